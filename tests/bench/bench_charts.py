"""Render the /stats chart (a year of history) and a mock result chart: time and PNG size.

Targets: under 200 ms and 150 KB each. `python -m tests.bench.bench_charts --write DIR` also
writes both charts as files: docs/mock-chart.png is committed from it (docs/stats-chart.png comes
from docs/pictures.py, for a sample learner of the bundled bank).
"""

from __future__ import annotations

import datetime as dt
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bot.charts import DayActivity, TopicBar, mock_chart, stats_chart

REPS = 15
TARGET_MS = 200.0
TARGET_BYTES = 150_000
TODAY = dt.date(2026, 11, 20)
TOPICS = (
    ("Fine-tuning", 18),
    ("Data preparation", 14),
    ("Model optimization and deployment", 18),
    ("Evaluation", 16),
    ("Safety and guardrails", 16),
    ("Prompt engineering", 18),
)


def year_of_history(seed: int = 3) -> list[DayActivity]:
    """365 days of answers, some days off, about 70% right."""
    rng = random.Random(seed)
    out = []
    for back in range(365):
        n = rng.choice([0, 0, 3, 5, 8, 12, 20])
        right = sum(rng.random() < 0.7 for _ in range(n))
        out.append(DayActivity(TODAY - dt.timedelta(days=back), n, right))
    return out


def predicted() -> list[TopicBar]:
    """Per-topic predictions, one topic still without enough evidence."""
    scores = (74.0, 62.0, 81.0, 58.0, None, 91.0)
    return [TopicBar(name, s, w) for (name, w), s in zip(TOPICS, scores, strict=True)]


def mock_topics() -> list[TopicBar]:
    """A mock exam's per-topic scores."""
    scores = (81.8, 50.0, 100.0, 70.0, 33.3, 90.9)
    return [TopicBar(name, s, w) for (name, w), s in zip(TOPICS, scores, strict=True)]


def render_stats() -> bytes:
    return stats_chart(predicted(), year_of_history(), passing_score=70, today=TODAY)


def render_mock() -> bytes:
    return mock_chart(mock_topics(), passing_score=70, title="Mock exam, 20 Nov: 73% · passed")


def main() -> None:
    """Print render time (min/median/max over REPS, first call apart) and PNG size per chart."""
    cases: dict[str, Callable[[], bytes]] = {"stats": render_stats, "mock": render_mock}
    first = {}
    for name, fn in cases.items():
        started = time.perf_counter()
        fn()  # fonts and caches warm up here, once per process
        first[name] = (time.perf_counter() - started) * 1000
    wall: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    sizes: dict[str, int] = {}
    for _ in range(REPS):  # interleaved, so a busy moment hits both alike
        for name, fn in cases.items():
            started, started_cpu = time.perf_counter(), time.process_time()
            sizes[name] = len(fn())
            wall[name].append((time.perf_counter() - started) * 1000)
            cpu[name].append((time.process_time() - started_cpu) * 1000)
    print(f"   targets: {TARGET_MS:.0f} ms, {TARGET_BYTES / 1000:.0f} KB; {REPS} reps each")
    for name in cases:
        w, c = wall[name], cpu[name]
        print(
            f"   {name:5} chart: wall {min(w):5.1f} / {statistics.median(w):5.1f} /"
            f" {max(w):5.1f} ms, cpu {min(c):5.1f} / {statistics.median(c):5.1f} /"
            f" {max(c):5.1f} ms (min/median/max; first call {first[name]:.0f} ms),"
            f" {sizes[name] / 1000:.1f} KB"
        )


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        folder = Path(sys.argv[2])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "stats-chart.png").write_bytes(render_stats())
        (folder / "mock-chart.png").write_bytes(render_mock())
    else:
        main()
