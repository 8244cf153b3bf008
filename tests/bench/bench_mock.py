"""Mock exam taps against practice answers, at the service level on a real SQLite file.

(a) practice: `answer` then `next_delivery` per question (a tap, then "Next question");
(b) mock: `choose` then `step(+1)` per question of a 60-question exam. Each rep runs 20
learners at once through 60 questions; reps alternate a b a b. Target: (b) keeps at least half
of (a)'s answers per second (the Telegram round trip, equal for both, comes on top).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from bot.domain.models import Learner
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.mock_models import MockStatus
from bot.practice.mock_service import MockService
from bot.practice.service import PracticeService
from bot.storage.sqlite.database import Database
from tests.mock_bank import bank, q

QUESTIONS = 60
LEARNERS = 20
REPS = 4


def big_bank() -> Catalog:
    """90 questions over three topics, a 60-question exam in 90 minutes."""
    diffs = ("easy", "medium", "hard")
    qs = [q(f"{t}{i:02d}", t, diffs[i % 3]) for t in "abc" for i in range(30)]
    return Catalog({"bench": bank(qs, {"a": 40, "b": 35, "c": 25}, exam=(60, 90))})


async def practice_run(db: Database, catalog: Catalog, base: int) -> float:
    svc = PracticeService(db, catalog, clock=FakeClock(), rng=random.Random(1))

    async def learner(uid: int) -> None:
        who = Learner(uid, f"L{uid}")
        d = await svc.next_delivery(uid, who)
        for _ in range(QUESTIONS):
            assert d is not None
            await svc.answer(d.id, who, uid, d.question.correct_indices)
            d = await svc.next_delivery(uid, who)

    started = time.perf_counter()
    await asyncio.gather(*(learner(base + i) for i in range(LEARNERS)))
    return LEARNERS * QUESTIONS / (time.perf_counter() - started)


async def mock_run(db: Database, catalog: Catalog, base: int) -> float:
    svc = MockService(db, catalog, clock=FakeClock(), rng=random.Random(1))

    async def learner(uid: int) -> None:
        reply = await svc.start(uid, bank_id="bench")
        assert reply.status is MockStatus.STARTED and reply.exam is not None
        exam = reply.exam
        for pos, item in enumerate(exam.items):
            for f in item.correct:
                await svc.choose(uid, exam.id, pos, item.display_index(f))
            await svc.step(uid, exam.id, +1)
        done = await svc.finish(uid, exam.id)
        assert done.status is MockStatus.FINISHED

    started = time.perf_counter()
    await asyncio.gather(*(learner(base + i) for i in range(LEARNERS)))
    return LEARNERS * QUESTIONS / (time.perf_counter() - started)


async def run() -> None:
    catalog = big_bank()
    rates: dict[str, list[float]] = {"practice": [], "mock": []}
    with tempfile.TemporaryDirectory() as tmp:
        async with Database(Path(tmp) / "bench.sqlite3") as db:
            for rep in range(REPS):
                rates["practice"].append(await practice_run(db, catalog, 1000 * rep + 100))
                rates["mock"].append(await mock_run(db, catalog, 1000 * rep + 500))
    for name, rs in rates.items():
        print(
            f"   {name:8}: {min(rs):6.0f} / {statistics.median(rs):6.0f} / {max(rs):6.0f}"
            f" answers/s (min/median/max of {REPS}; {LEARNERS} learners x {QUESTIONS})"
        )
    ratio = statistics.median(rates["mock"]) / statistics.median(rates["practice"])
    print(f"   mock / practice (medians): {ratio:.2f}  [target >= 0.5]")


def main() -> None:
    """Print both rates and their ratio."""
    asyncio.run(run())
