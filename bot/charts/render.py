"""The two charts: study statistics (topics and the last 30 days) and a mock exam's result."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from bot.charts.models import DayActivity, TopicBar
from bot.charts.style import (
    BLUE,
    DPI,
    GREY,
    INK,
    LABEL_PT,
    NOTE_PT,
    TICK_PT,
    TITLE_PT,
    VERMILLION,
    new_figure,
    to_png,
)
from bot.plural import plural

DAYS = 30
MAX_LABEL = 44  # characters of a topic name before it is cut with an ellipsis
ROW_IN = 0.95  # height of one topic row (name above its bar)
# In a topic row (bar centred at y, 0.42 high): the name's baseline band starts LABEL_ABOVE
# over y; the passing line runs from LINE_BELOW under y to LINE_ABOVE over it.
LABEL_ABOVE = 0.3
LINE_ABOVE = 0.25
LINE_BELOW = 0.35
TOPIC_LABEL = "topic-label"  # artist ids, for finding the names and the line in a figure
PASS_LINE = "pass-line"


def _label(bar: TopicBar) -> str:
    name = bar.name if len(bar.name) <= MAX_LABEL else bar.name[: MAX_LABEL - 1] + "…"
    return f"{name} · {bar.weight:g}% of the exam" if bar.weight else name


def _topic_panel(ax: Axes, topics: Sequence[TopicBar], passing: float, title: str) -> None:
    """One row per topic: its name, then its bar against a dashed passing line, with the value
    and a ✓/✗ mark (pass and fail differ by more than colour)."""
    n = len(topics)
    ys = [n - 1 - i for i in range(n)]  # first topic at the top
    scored = [(y, b) for y, b in zip(ys, topics, strict=True) if b.score is not None]
    ax.barh(
        [y for y, _ in scored],
        [b.score or 0.0 for _, b in scored],
        height=0.42,
        color=[BLUE if (b.score or 0.0) >= passing else VERMILLION for _, b in scored],
    )
    for y, bar in zip(ys, topics, strict=True):
        ax.text(0, y + LABEL_ABOVE, _label(bar), va="bottom", fontsize=LABEL_PT, color=INK,
                zorder=3, gid=TOPIC_LABEL)  # fmt: skip
        if bar.score is None:
            ax.text(1, y, "not enough answers yet", va="center", fontsize=NOTE_PT, color=GREY)
            continue
        mark = "✓" if bar.score >= passing else "✗"
        inside = bar.score > 84
        ax.text(
            bar.score + (-1.2 if inside else 1.2),
            y,
            f"{bar.score:.0f}% {mark}",
            va="center",
            ha="right" if inside else "left",
            fontsize=LABEL_PT,
            color="white" if inside else INK,
            fontweight="bold",
            zorder=3,
            bbox=None if inside else {"facecolor": "white", "edgecolor": "none", "pad": 1},
        )
    # The passing line is drawn across each bar's band only, never through the names above
    # the bars: a long name would otherwise run through it.
    ax.vlines(
        [passing] * n,
        [y - LINE_BELOW for y in ys],
        [y + LINE_ABOVE for y in ys],
        colors=INK,
        linestyles="--",
        linewidth=2.5,
        zorder=2,
        gid=PASS_LINE,
    )
    ax.text(passing + 0.8, n - 0.35, f"pass {passing:g}%", va="bottom", fontsize=NOTE_PT)
    ax.set_xlim(0, 100)
    ax.set_ylim(-0.45, n + 0.05)
    ax.set_yticks([])
    # Every bar carries its value: an axis scale would only add text to draw and to read.
    ax.set_xticks([])
    ax.set_title(title, fontsize=TITLE_PT, loc="left", pad=12)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)


def _days_panel(ax: Axes, days: Sequence[DayActivity], today: dt.date) -> None:
    """Answers per day over the last 30 days, right ones stacked under wrong ones."""
    start = today - dt.timedelta(days=DAYS - 1)
    by_day = {d.day: d for d in days if start <= d.day <= today}
    xs = list(range(DAYS))
    right = [by_day[d].correct if (d := start + dt.timedelta(i)) in by_day else 0 for i in xs]
    total = [by_day[d].answered if (d := start + dt.timedelta(i)) in by_day else 0 for i in xs]
    # One line collection per colour instead of 60 rectangles: a third of the drawing time.
    width = 0.78 * 0.9 * 1000 / DAYS * 72 / DPI  # bar width in points
    ax.vlines(xs, 0, right, colors=BLUE, linewidth=width)
    ax.vlines(xs, right, total, colors=VERMILLION, linewidth=width)
    ax.set_ylim(0, max(5, max(total) * 1.12))
    ax.set_xlim(-0.7, DAYS - 0.3)
    ticks = [0, 7, 14, 21, 29]
    ax.set_xticks(ticks, [(start + dt.timedelta(i)).strftime("%d %b") for i in ticks])
    ax.tick_params(axis="both", labelsize=TICK_PT)
    # A key of two coloured words: matplotlib's legend box costs more to draw than the bars.
    for x, word, colour in ((0.74, "■ right", BLUE), (0.88, "■ wrong", VERMILLION)):
        ax.text(x, 1.02, word, transform=ax.transAxes, fontsize=NOTE_PT, color=colour)
    answered, correct = sum(total), sum(right)
    summary = (
        f"{plural(answered, 'answer')}, {100 * correct / answered:.0f}% right"
        if answered
        else "none"
    )
    ax.set_title(f"{DAYS} days: {summary}", fontsize=TITLE_PT, loc="left", pad=12)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def stats_chart(
    topics: Sequence[TopicBar],
    days: Sequence[DayActivity],
    *,
    passing_score: float,
    today: dt.date,
    title: str = "Predicted score per topic",
) -> bytes:
    """PNG: per-topic predicted scores against the passing line, then answers per day with how
    many were right over the 30 days up to `today`. Drawn on this thread's figure for that
    many topics, its data artists replaced: building a figure and its axes costs a good part
    of a render, and the same PNG comes out (a test compares it with a fresh figure's)."""
    fig, top, bottom = _kept_figure(len(topics))
    for ax in (top, bottom):
        _wipe(ax)
    _topic_panel(top, topics, passing_score, title)
    _days_panel(bottom, days, today)
    return to_png(fig)


# Per thread (charts render in worker threads, a figure is not thread-safe): one figure per
# number of topics, the few a deployment's banks have.
_kept = threading.local()
KEPT_FIGURES = 4


def _kept_figure(n_topics: int) -> tuple[Figure, Axes, Axes]:
    figures: dict[int, tuple[Figure, Axes, Axes]] = _kept.__dict__.setdefault("figures", {})
    found = figures.get(n_topics)
    if found is None:
        if len(figures) >= KEPT_FIGURES:
            figures.clear()
        found = figures[n_topics] = _stats_axes(n_topics)
    return found


def _wipe(ax: Axes) -> None:
    """Remove what a panel drew (bars, lines, texts), keeping the axes, their ticks and
    spines: `Axes.clear` would build the ticks again, which is what reuse saves."""
    for artist in [*ax.texts, *ax.collections, *ax.patches, *ax.lines]:
        artist.remove()
    ax.containers.clear()
    ax.relim()


def _stats_axes(n_topics: int) -> tuple[Figure, Axes, Axes]:
    """The /stats figure's two empty panels for `n_topics` topic rows."""
    top = 1.1 + ROW_IN * max(1, n_topics)
    bottom = 4.2
    fig = new_figure(top + bottom)
    grid = fig.add_gridspec(2, 1, height_ratios=[top, bottom], hspace=0.3)
    # The top margin in inches, not a share: a short chart (few topics) kept too little of it
    # for the title.
    fig.subplots_adjust(left=0.07, right=0.95, top=1 - 0.5 / (top + bottom), bottom=0.04)
    return fig, fig.add_subplot(grid[0]), fig.add_subplot(grid[1])


def stats_figure(
    topics: Sequence[TopicBar],
    days: Sequence[DayActivity],
    *,
    passing_score: float,
    today: dt.date,
    title: str = "Predicted score per topic",
) -> Figure:
    """A new figure of what stats_chart writes as a PNG."""
    fig, top, bottom = _stats_axes(len(topics))
    _topic_panel(top, topics, passing_score, title)
    _days_panel(bottom, days, today)
    return fig


def mock_chart(
    topics: Sequence[TopicBar], *, passing_score: float, title: str = "Mock exam by topic"
) -> bytes:
    """PNG: a mock exam's per-topic scores against the passing line."""
    height = 1.3 + ROW_IN * max(1, len(topics))
    fig = new_figure(height)
    fig.subplots_adjust(left=0.03, right=0.95, top=1 - 0.75 / height, bottom=0.5 / height)
    _topic_panel(fig.add_subplot(), topics, passing_score, title)
    return to_png(fig)
