"""The study queue's pick: CPU per `choose_next` for a learner who has met 300 of the bundled
bank's questions (1,200 answers over 35 days), 200 picks a run, seven runs, min / median / max.
To compare two revisions, run it from each in turn, A B A B (PYTHONPATH=<checkout>)."""

from __future__ import annotations

import datetime as dt
import random
import statistics
import time

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS
from bot.learning.blueprint import Blueprint
from bot.learning.memory import Answer, MemoryState, review
from bot.learning.queue import Learner, Today, choose_next

PICKS = 200
RUNS = 7


def main() -> None:
    """Print the CPU per pick."""
    plan = Blueprint.of(next(iter(load_banks([BUNDLED_QUESTIONS]).banks.values())))
    rng = random.Random(3)
    start = dt.datetime(2027, 1, 4, 8, tzinfo=dt.UTC)
    memory: dict[str, MemoryState] = {}
    ids = list(plan.questions)[:300]
    for k in range(1200):
        q = rng.choice(ids)
        memory[q] = review(
            memory.get(q), Answer(q, start + dt.timedelta(hours=k * 0.7), rng.random() < 0.7)
        )
    now = start + dt.timedelta(days=40)
    exam = (now + dt.timedelta(days=30)).date()
    learner = Learner(memory, Today(now.date(), now.replace(hour=0)), exam_date=exam)
    per_pick = []
    for _ in range(RUNS):
        began = time.process_time()
        for _ in range(PICKS):
            choose_next(plan, learner, now, rng)
        per_pick.append((time.process_time() - began) / PICKS * 1e6)
    print(
        f"choose_next, {len(memory)} questions met: CPU per pick "
        f"{min(per_pick):.0f} / {statistics.median(per_pick):.0f} / {max(per_pick):.0f} µs"
    )
