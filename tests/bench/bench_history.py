"""History benchmark: `python -m tests.bench history`.

On a copy of the generated year of history (tests/bench/gen_history.py: ≥ 2M answers, ≥ 10k
learners, cached in the temp dir), through the services the bot uses:
- next question (`PracticeService.next_delivery`) and /stats p99 for the learner with 20,000
  answers and the one with 200;
- the leaderboard of the group with 600,000 answers;
- answer latency (`PracticeService.answer`) idle, and while /stats of the heavy learner or the
  group's leaderboard runs without pause beside it.
Each figure is measured in several reps; min/median/max over the reps are printed, with the
CPU time of a next question beside its wall time (on a shared machine the wall time is mostly
waiting for a core). Targets: next/stats p99 ≤ 5 ms (20k) and ≤ 2 ms (200); leaderboard
≤ 10 ms; answer max under a heavy read ≤ 3× idle.

Then what each handler reads and computes, per command, for a fresh learner (registered, no
answer), the 200-answer one and the 20,000-answer one (their memory states backfilled in the
generated history): the pick of /quiz and of /mistakes, /stats (its counts, the readiness
report and the wrong ideas), /ready (the report) and the chart's render (uncached), CPU
min/median/max over CMD_CALLS calls of each rep, and the 20k / fresh ratio (target ≤ ×1.5).
HIST_ONLY=commands runs only that part.

HIST_SOURCE=path copies that database instead of the generated one (e.g. one already
upgraded, to compare two revisions without timing the upgrade); HIST_JSON=path writes the
figures there (seconds), for a script that interleaves revisions.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS
from bot.domain.models import Learner
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.groups import GroupService
from bot.practice.readiness_service import ReadinessService, render_stats_chart
from bot.practice.service import PracticeService
from bot.storage import summaries
from bot.storage.port import Connection
from bot.storage.sqlite.database import Database
from tests.bench import gen_history as gen

REPS = int(os.environ.get("HIST_REPS", "3"))
CMD_CALLS = int(os.environ.get("HIST_CMD_CALLS", "40"))
CALLS = 100
ANSWERS = 60
ANSWERER = 4_321  # an ordinary learner whose answers are timed


async def latencies(
    call: Callable[[], Awaitable[Any]], n: int, cpu: list[float] | None = None
) -> list[float]:
    out = []
    for _ in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        await call()
        out.append(time.perf_counter() - t0)
        if cpu is not None:
            cpu.append(time.process_time() - c0)
    return out


def p99(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=100)[98] if len(xs) >= 2 else xs[0]


def p50_p99(xs: list[float]) -> tuple[float, float]:
    return statistics.median(xs), p99(xs)


def line(name: str, reps: list[float], target: float | None = None) -> None:
    ms = sorted(x * 1e3 for x in reps)
    verdict = ""
    if target is not None:
        verdict = f"   target ≤ {target:g} ms: {'OK' if ms[len(ms) // 2] <= target else 'NO'}"
    print(
        f"   {name:<44} min {ms[0]:8.2f}  median {statistics.median(ms):8.2f}"
        f"  max {ms[-1]:8.2f} ms{verdict}",
        flush=True,
    )


async def answer_max(
    service: PracticeService, clock: FakeClock, load: Callable[[], Awaitable[Any]] | None
) -> float:
    """Max latency of ANSWERS answers (5 ms apart) while `load` runs in a loop beside them."""
    learner = Learner(ANSWERER, "A")
    deliveries = [await service.next_delivery(ANSWERER, learner) for _ in range(ANSWERS)]
    stop = asyncio.Event()

    async def loop() -> None:
        assert load is not None
        while not stop.is_set():
            await load()

    background = asyncio.create_task(loop()) if load is not None else None
    await asyncio.sleep(0.05)  # let the first heavy read start
    worst = 0.0
    for d in deliveries:
        assert d is not None
        clock.advance(1)
        t0 = time.perf_counter()
        await service.answer(d.id, learner, ANSWERER, frozenset({0}))
        worst = max(worst, time.perf_counter() - t0)
        await asyncio.sleep(0.005)
    stop.set()
    if background is not None:
        await background
    return worst


async def streak_cost(db: Database, user_id: int) -> None:
    """The streak read alone: from the learner's latest run, and walked over their days (the
    read before the run was kept), min/median/max µs of 200 reads each on a reader."""
    zone = ZoneInfo("UTC")

    def with_freezes(c: Connection, user: int, now: float, zone: ZoneInfo) -> int:
        return summaries.streak_with_freezes(c, user, now, zone).days

    for name, fn in (
        ("from the run", summaries.streak),
        ("with freezes (what /stats reads)", with_freezes),
        ("walked", summaries.walked_streak),
    ):
        times: list[float] = []

        def read(c: Connection, fn: Any = fn, times: list[float] = times) -> int:
            for _ in range(200):
                t0 = time.perf_counter()
                days = fn(c, user_id, gen.END, zone)
                times.append(time.perf_counter() - t0)
            return int(days)

        days = await db.read(read)
        us = sorted(t * 1e6 for t in times)
        print(
            f"   streak {name} ({days} days): min {us[0]:.1f}  median"
            f" {statistics.median(us):.1f}  max {us[-1]:.1f} µs"
        )


async def commands(
    service: PracticeService, ready: ReadinessService, figures: dict[str, list[float]]
) -> None:
    """CPU of each command's own work, per learner: the calls the handlers make."""
    from bot.domain.kinds import Source

    learners = {"fresh": gen.FRESH, "200": gen.LIGHT, "20k": gen.HEAVY}

    async def stats_cmd(uid: int) -> None:
        # As the /stats handler: counts, the report, the wrong ideas (the chart separately).
        await service.stats(uid)
        await ready.report(uid)
        await service.learning.misconceptions(uid)

    async def chart(uid: int) -> None:
        report = await ready.report(uid)
        await asyncio.to_thread(render_stats_chart, report)

    def calls(uid: int) -> dict[str, Callable[[], Awaitable[Any]]]:
        who = Learner(uid, f"L{uid}")
        return {
            "next question (/quiz pick)": lambda: service.next_delivery(uid, who),
            "/mistakes pick": lambda: service.next_delivery(uid, who, source=Source.MISTAKES),
            "/stats (without the chart)": lambda: stats_cmd(uid),
            "/ready (the report)": lambda: ready.report(uid),
            "chart (report + render)": lambda: chart(uid),
        }

    for _ in range(REPS):
        for size, uid in learners.items():
            for name, call in calls(uid).items():
                await call()  # warm: caches as a running bot has them
                cpu: list[float] = []
                await latencies(call, CMD_CALLS, cpu)
                figures.setdefault(f"CPU {name}, {size}", []).append(statistics.median(cpu))


def command_lines(figures: dict[str, list[float]]) -> None:
    names = [k.removeprefix("CPU ").rsplit(", ", 1)[0] for k in figures if k.endswith(", 20k")]
    for name in names:
        for size in ("fresh", "200", "20k"):
            line(f"CPU {name}, {size}", figures[f"CPU {name}, {size}"])
        ratio = statistics.median(figures[f"CPU {name}, 20k"]) / statistics.median(
            figures[f"CPU {name}, fresh"]
        )
        print(
            f"   {name}: 20k / fresh ×{ratio:.2f}"
            f" (target ≤ ×1.5: {'OK' if ratio <= 1.5 else 'NO'})"
        )


async def run(path: Path) -> dict[str, list[float]]:
    catalog = Catalog(load_banks([BUNDLED_QUESTIONS]).banks)
    clock = FakeClock(gen.END + 60)
    t0 = time.perf_counter()
    db = Database(path)
    await db.open()
    print(f"   open (newer migrations and their backfill): {time.perf_counter() - t0:.1f} s")
    service = PracticeService(db, catalog, clock=clock, rng=random.Random(1))
    ready = ReadinessService(db, catalog, clock=clock)
    figures: dict[str, list[float]] = {}
    if os.environ.get("HIST_ONLY") == "commands":
        await commands(service, ready, figures)
        await db.close()
        command_lines(figures)
        return figures
    groups = GroupService(db, catalog, clock=clock, rng=random.Random(1))
    heavy, light = Learner(gen.HEAVY, "H"), Learner(gen.LIGHT, "L")
    stats = await service.stats(gen.HEAVY)
    print(
        f"   heavy learner: {stats.answered:,} answers, streak {stats.streak_days} days;"
        f" light: {(await service.stats(gen.LIGHT)).answered} answers"
    )
    await streak_cost(db, gen.HEAVY)
    board = await groups.leaderboard(gen.GROUP)
    print(f"   group leaderboard: top {board.all_time[0].answered:,} answers all time")

    def add(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    for _ in range(REPS):
        for name, size, call in (
            ("next question", "20k", lambda: service.next_delivery(gen.HEAVY, heavy)),
            ("next question", "200", lambda: service.next_delivery(gen.LIGHT, light)),
            ("/stats", "20k", lambda: service.stats(gen.HEAVY)),
            ("/stats", "200", lambda: service.stats(gen.LIGHT)),
        ):
            cpu: list[float] = []
            mid, top = p50_p99(await latencies(call, CALLS, cpu))
            add(f"{name} p50, {size} answers", mid)
            add(f"{name} p99, {size} answers", top)
            add(f"{name} CPU p50, {size} answers", statistics.median(cpu))
        add("leaderboard, 600k-answer group (median)", statistics.median(await latencies(
            lambda: groups.leaderboard(gen.GROUP), 5)))  # fmt: skip
        add("answer max, idle", await answer_max(service, clock, None))
        add("answer max, beside heavy /stats", await answer_max(
            service, clock, lambda: service.stats(gen.HEAVY)))  # fmt: skip
        add("answer max, beside the leaderboard", await answer_max(
            service, clock, lambda: groups.leaderboard(gen.GROUP)))  # fmt: skip
    await commands(service, ready, figures)
    await db.close()
    targets = {
        "next question p99, 20k answers": 5.0,
        "next question p99, 200 answers": 2.0,
        "/stats p99, 20k answers": 5.0,
        "/stats p99, 200 answers": 2.0,
        "leaderboard, 600k-answer group (median)": 10.0,
    }
    for name, reps in figures.items():
        if not name.startswith("CPU ") or "answers" in name:
            line(name, reps, targets.get(name))
    command_lines(figures)
    idle = statistics.median(figures["answer max, idle"])
    for name in ("answer max, beside heavy /stats", "answer max, beside the leaderboard"):
        ratio = statistics.median(figures[name]) / idle
        print(f"   {name} / idle: ×{ratio:.1f} (target ≤ ×3: {'OK' if ratio <= 3 else 'NO'})")
    return figures


def main() -> None:
    given = os.environ.get("HIST_SOURCE")
    source = Path(given) if given else gen.ensure()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "history.sqlite3"
        t0 = time.perf_counter()
        shutil.copyfile(source, work)
        # On disk before the run: else the first checkpoint's sync writes the whole copy.
        with work.open("rb+") as f:
            os.fsync(f.fileno())
        print(f"   copied the history ({time.perf_counter() - t0:.1f} s)")
        figures = asyncio.run(run(work))
    if out := os.environ.get("HIST_JSON"):
        Path(out).write_text(json.dumps(figures))


if __name__ == "__main__":
    main()
