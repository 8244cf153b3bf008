"""Draw the README's pictures: a verdict as a learner sees it, and the /stats chart.

Run from the repository root: `python -m docs.pictures [OUT_DIR]` (default: docs/). The verdict
is the bot's own HTML for a bundled question (`bot.telegram.views.render.verdict_html`),
laid out as a Telegram chat bubble with its buttons; the chart is `bot.charts.stats_chart` for a
sample learner. Both are drawn with matplotlib's Agg canvas, as the bot's charts are; the chart
is saved with a palette so that it stays small in the repository.
"""

from __future__ import annotations

import datetime as dt
import io
import random
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from matplotlib.font_manager import FontProperties
from matplotlib.patches import FancyBboxPatch
from matplotlib.transforms import IdentityTransform
from PIL import Image

from bot.bank.loader import load_bank
from bot.bank.models import Bank, Question
from bot.charts import DayActivity, TopicBar, stats_chart
from bot.charts.style import new_figure, to_png
from bot.telegram.views import keyboards, render, texts

ROOT = Path(__file__).resolve().parent.parent
BANK = ROOT / "questions" / "genai-llm"
QUESTION = "deploy-weight-memory-int4"  # short, single answer, with a trap
VERDICT_PNG = "verdict.png"
STATS_PNG = "stats-chart.png"

# Telegram's light theme, roughly: a green-grey chat, white bubbles, translucent buttons.
CHAT_BG = "#D5E3C5"
BUBBLE = "#FFFFFF"
BUTTON = "#8FA88A"
TOAST = "#3A3A3A"
INK = "#000000"
# Agg cannot draw colour emoji: each is drawn as a DejaVu Sans glyph in its colour instead.
EMOJI = {
    "✅": ("✔", "#2EA043"),
    "❌": ("✘", "#D13B3B"),
    "▫️": ("▫", "#8A8A8A"),
    "⚠️": ("⚠", "#E09B00"),
}

WIDTH = 760  # px, about a phone's chat column at 2x
MARGIN = 24
PAD = 18
TEXT_PT = 11.5
LINE = 21  # px per line
BUTTON_H = 44


@dataclass(frozen=True, slots=True)
class Run:
    """A piece of text in one style."""

    text: str
    bold: bool = False
    italic: bool = False
    colour: str = INK


class _Runs(HTMLParser):
    """Telegram HTML (b, i) as lines of styled runs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[list[Run]] = [[]]
        self.bold = 0
        self.italic = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.bold += tag == "b"
        self.italic += tag == "i"

    def handle_endtag(self, tag: str) -> None:
        self.bold -= tag == "b"
        self.italic -= tag == "i"

    def handle_data(self, data: str) -> None:
        for n, part in enumerate(data.split("\n")):
            if n:
                self.lines.append([])
            for emoji, (glyph, colour) in EMOJI.items():
                part = part.replace(emoji, f"\0{glyph}{colour}\0")
            for k, piece in enumerate(part.split("\0")):
                if k % 2:
                    self.lines[-1].append(Run(piece[0], True, False, piece[1:]))
                elif piece:
                    self.lines[-1].append(Run(piece, self.bold > 0, self.italic > 0))


def html_lines(html: str) -> list[list[Run]]:
    """Lines of styled runs from Telegram HTML."""
    parser = _Runs()
    parser.feed(html)
    parser.close()
    return parser.lines


def _font(run: Run) -> FontProperties:
    return FontProperties(
        family="DejaVu Sans",
        weight="bold" if run.bold else "normal",
        style="italic" if run.italic else "normal",
        size=TEXT_PT,
    )


Placed = tuple[float, int, Run]  # x offset in px, line number, run


def wrap(lines: list[list[Run]], width: float) -> tuple[list[Placed], int]:
    """Words placed on lines no wider than `width` px, and how many lines that takes."""
    renderer = new_figure(1.0).canvas.get_renderer()  # type: ignore[attr-defined]

    def measure(run: Run) -> float:
        w, _, _ = renderer.get_text_width_height_descent(run.text, _font(run), ismath=False)
        return float(w)

    placed: list[Placed] = []
    row = 0
    for line in lines:
        x = 0.0
        for run in line:
            for word in run.text.replace(" ", " \0").split("\0"):
                if not word:
                    continue
                piece = Run(word, run.bold, run.italic, run.colour)
                w = measure(piece)
                if x and x + measure(Run(word.rstrip(), run.bold, run.italic)) > width:
                    row, x = row + 1, 0.0
                placed.append((x, row, piece))
                x += w
        row += 1
    return placed, row


def verdict_picture(bank: Bank, question: Question, chosen: int) -> bytes:
    """A wrong answer's verdict, as the bot edits it into the question's message."""
    html = render.verdict_html(bank, question, frozenset({chosen}), correct=False)
    toast = render.clip(texts.CB_WRONG.format(answer=render.letters(question.correct_indices)))
    for emoji, (glyph, _) in EMOJI.items():
        toast = toast.replace(emoji, glyph)
    inner = WIDTH - 2 * MARGIN - 2 * PAD
    placed, rows = wrap(html_lines(html), inner)
    bubble_h = rows * LINE + 2 * PAD
    height = MARGIN + 56 + bubble_h + 8 + BUTTON_H + MARGIN
    fig = new_figure(height / 100)
    fig.set_size_inches(WIDTH / 100, height / 100)
    fig.set_facecolor(CHAT_BG)
    px = IdentityTransform()

    def box(x: float, y: float, w: float, h: float, colour: str, radius: float) -> None:
        fig.patches.append(
            FancyBboxPatch(
                (x, y),
                w,
                h,
                boxstyle=f"round,pad=0,rounding_size={radius}",
                facecolor=colour,
                edgecolor="none",
                transform=px,
            )
        )

    top = height - MARGIN
    # The pop-up Telegram shows when the callback is answered (the short verdict).
    toast_w = 40 + 8.2 * len(toast)
    box((WIDTH - toast_w) / 2, top - 40, toast_w, 36, TOAST, 12)
    fig.text(
        WIDTH / 2,
        top - 22,
        toast,
        transform=px,
        ha="center",
        va="center",
        color="white",
        fontproperties=_font(Run(toast)),
    )
    bubble_top = top - 56
    box(MARGIN, bubble_top - bubble_h, WIDTH - 2 * MARGIN, bubble_h, BUBBLE, 14)
    for x, row, run in placed:
        fig.text(
            MARGIN + PAD + x,
            bubble_top - PAD - row * LINE - LINE / 2,
            run.text,
            transform=px,
            va="center",
            color=run.colour,
            fontproperties=_font(run),
        )
    markup = keyboards.verdict_markup(1, "abcd")
    buttons = markup["inline_keyboard"][0]
    gap = 6
    button_w = (WIDTH - 2 * MARGIN - gap * (len(buttons) - 1)) / len(buttons)
    y = bubble_top - bubble_h - 8 - BUTTON_H
    for n, button in enumerate(buttons):
        x = MARGIN + n * (button_w + gap)
        box(x, y, button_w, BUTTON_H, BUTTON, 10)
        label = str(button["text"]).replace("▶️", "▶")
        fig.text(
            x + button_w / 2,
            y + BUTTON_H / 2,
            label,
            transform=px,
            ha="center",
            va="center",
            color="white",
            fontproperties=_font(Run(label, bold=True)),
        )
    return to_png(fig)


def sample_days(today: dt.date, seed: int = 7) -> list[DayActivity]:
    """Thirty days of a learner who practises most days, improving as they go."""
    rng = random.Random(seed)
    days = []
    for back in range(30):
        if rng.random() < 0.2:
            continue  # a day off
        answered = rng.randint(8, 25)
        accuracy = min(0.9, 0.55 + 0.01 * (30 - back) + rng.uniform(-0.08, 0.08))
        days.append(
            DayActivity(today - dt.timedelta(days=back), answered, round(answered * accuracy))
        )
    return days


def stats_picture(bank: Bank, today: dt.date) -> bytes:
    """The /stats chart of a sample learner three weeks into practice."""
    rng = random.Random(11)
    bars = []
    for n, topic in enumerate(bank.meta.topics):
        score = None if n == len(bank.meta.topics) - 1 else round(rng.uniform(52, 88), 1)
        bars.append(TopicBar(topic.name, score, topic.weight))
    return stats_chart(
        bars, sample_days(today), passing_score=bank.meta.passing_score, today=today
    )


def small_png(png: bytes, colours: int = 256) -> bytes:
    """The same picture with a palette of `colours`: a third of the bytes, the same to the eye."""
    with Image.open(io.BytesIO(png)) as image:
        out = io.BytesIO()
        image.convert("RGB").quantize(colours).save(out, format="PNG", optimize=True)
    return out.getvalue()


def main(out_dir: Path) -> list[Path]:
    """Write both pictures into out_dir and return their paths."""
    bank = load_bank(BANK)
    question = bank.questions[QUESTION]
    wrong = next(i for i, o in enumerate(question.options) if not o.correct)
    out_dir.mkdir(parents=True, exist_ok=True)
    verdict = out_dir / VERDICT_PNG
    verdict.write_bytes(verdict_picture(bank, question, wrong))
    chart = out_dir / STATS_PNG
    chart.write_bytes(small_png(stats_picture(bank, dt.date(2027, 3, 1))))
    return [verdict, chart]


if __name__ == "__main__":
    for path in main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"):
        print(f"{path} ({path.stat().st_size // 1024} KB)")
