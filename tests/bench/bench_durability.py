"""What QUIZBOT_DURABILITY=full costs an answer: `python -m tests.bench durability`.

One learner answers ANSWERS questions in turn through PracticeService on a fresh SQLite file,
each answer awaited before the next (so no group commit hides a sync): wall ms per answer with
synchronous=NORMAL and with FULL, alternated A B A B over REPS reps; min/median/max.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS
from bot.domain.models import Learner
from bot.practice.catalog import Catalog
from bot.practice.core import build_core
from bot.storage.factory import open_database

ANSWERS = int(os.environ.get("DURABILITY_ANSWERS", "300"))
REPS = int(os.environ.get("DURABILITY_REPS", "3"))


async def run(folder: Path, catalog: Catalog, durability: str) -> float:
    """Wall ms per answered question (pick + answer, two commits)."""
    learner = Learner(id=1, first_name="bench")
    async with open_database(folder / f"{durability}.sqlite3", durability=durability) as db:
        practice = build_core(db, catalog, rng=random.Random(1)).practice
        started = time.perf_counter()
        for _ in range(ANSWERS):
            delivery = await practice.next_delivery(1, learner)
            assert delivery is not None
            chosen = frozenset(range(delivery.question.select_count))
            await practice.answer(delivery.id, learner, 1, chosen)
        return (time.perf_counter() - started) * 1000 / ANSWERS


def main() -> None:
    """Alternate normal and full; print ms per answer."""
    catalog = Catalog(load_banks([BUNDLED_QUESTIONS]).banks)
    figures: dict[str, list[float]] = {"normal": [], "full": []}
    for _ in range(REPS):
        for durability in figures:
            with tempfile.TemporaryDirectory(dir=os.environ.get("DURABILITY_DIR")) as tmp:
                figures[durability].append(asyncio.run(run(Path(tmp), catalog, durability)))
    for name, ms in figures.items():
        print(
            f"   {name:6} ms per answer (pick + answer) min/median/max "
            f"{min(ms):.2f} / {statistics.median(ms):.2f} / {max(ms):.2f}"
        )


if __name__ == "__main__":
    main()
