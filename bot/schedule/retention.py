"""The daily retention run: old push log rows, unanswered deliveries and (when the operator
sets a retention) old answers go, in small batches so answers never wait behind it."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from bot.practice.clock import Clock
from bot.storage import retention
from bot.storage.port import Store

log = logging.getLogger(__name__)

DAY_S = 86400.0
LOG_DAYS = 90  # push log rows and unanswered deliveries
BATCH = 500  # rows per transaction: a few ms of the writer


@dataclass(frozen=True, slots=True)
class Pruned:
    push_log: int
    deliveries_walked: int
    answers: int


async def prune(db: Store, clock: Clock, answer_days: int | None) -> Pruned:
    """One retention run (a daily job); each batch is its own short write transaction."""
    now = clock.now()
    log_before = now - LOG_DAYS * DAY_S
    counts = [0, 0, 0]
    steps = [
        (0, lambda c: retention.prune_push_log(c, log_before, BATCH)),
        (1, lambda c: retention.prune_unanswered(c, log_before, BATCH, now)),
    ]
    if answer_days is not None:
        before = now - answer_days * DAY_S
        steps.append((2, lambda c: retention.prune_answers(c, before, BATCH)))
    for slot, step in steps:
        while True:
            n = await db.write(step)
            if n <= 0:
                break
            counts[slot] += n
            if slot != 1 and n < BATCH:
                break
            await asyncio.sleep(0)  # let waiting answers into the next transaction first
    pruned = Pruned(*counts)
    log.info("retention: %s", pruned)
    return pruned
