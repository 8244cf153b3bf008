"""Fitting the memory model off the answer path: read a bank's answers, fit FSRS-6 weights
pooled over its learners and per learner with enough reviews (`bot.learning.fit`), store them
as a new version (`memory_params`), and restate each learner's memory states under the weights
they are on (their own, else the bank's), so that due times, the queue's mode and readiness
follow the fitted model. Run by a scheduled job (bot.telegram.fit_job) and by `quizbot fit`;
an answer never waits for it: it reads the stored weights and schedules under them.

A fit that fails or runs out of time stores nothing: the last good weights stay in use, and
one log line says why."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import multiprocessing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from bot.learning.fit import (
    DAY_SECONDS,
    MIN_BANK_REVIEWS,
    MIN_LEARNER_REVIEWS,
    Fitted,
    Graded,
    fit,
)
from bot.learning.memory import check_weights
from bot.practice.clock import Clock
from bot.storage import fit_sql
from bot.storage.fit_sql import BANK_SCOPE, StoredParams
from bot.storage.memory_backfill import restate
from bot.storage.port import Connection, StorageError, Store

log = logging.getLogger(__name__)

FIT_TIMEOUT_S = 120.0
FIT_AT = dt.time(3, 30, tzinfo=dt.UTC)  # nightly: the quietest hours of most of the learners


def nights_between(before: float, after: float) -> int:
    """How many times the clock passed FIT_AT going from `before` to `after` (Unix seconds)."""
    at = FIT_AT.hour * 3600 + FIT_AT.minute * 60
    return max(0, int((after - at) // DAY_SECONDS) - int((before - at) // DAY_SECONDS))


Fitter = Callable[[Sequence[list[Graded]], int], Fitted | None]


@dataclass(frozen=True, slots=True)
class FitOutcome:
    """What one bank's fit stored: the pooled fit's version (None: not enough answers or the
    fit failed) and how many learners got their own."""

    bank_id: str
    pooled_version: int | None
    learners: int
    failed: bool = False


def _in_subprocess(
    by_learner: dict[int, list[Graded]], fitter: Fitter, timeout_s: float
) -> tuple[Fitted | None, dict[int, Fitted]]:
    # The optimizer holds the GIL for as long as it runs (seconds on a large bank): in a
    # thread it would stall the event loop and every answer with it. A spawned process (not
    # a fork of a process with threads) runs it; leaving the pool terminates it on a timeout.
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply_async(_fit_all, (by_learner, fitter)).get(timeout_s)


def _fit_all(
    by_learner: dict[int, list[Graded]], fitter: Fitter
) -> tuple[Fitted | None, dict[int, Fitted]]:
    pooled = fitter(list(by_learner.values()), MIN_BANK_REVIEWS)
    if pooled is not None:
        check_weights(pooled.weights)  # out of bounds: the fit fails, the last good stays
    own: dict[int, Fitted] = {}
    for user_id, answers in by_learner.items():
        found = fitter([answers], MIN_LEARNER_REVIEWS)
        if found is not None and _usable(found.weights):
            own[user_id] = found  # else this learner stays on the pooled fit
    return pooled, own


def _usable(weights: tuple[float, ...]) -> bool:
    try:
        check_weights(weights)
    except ValueError:
        return False
    return True


class MemoryFits:
    """Fits and the weights a learner is on."""

    def __init__(
        self,
        db: Store,
        clock: Clock,
        *,
        fitter: Fitter = fit,
        timeout_s: float = FIT_TIMEOUT_S,
    ) -> None:
        self.db, self.clock, self.fitter, self.timeout_s = db, clock, fitter, timeout_s

    async def fit_bank(self, bank_id: str) -> FitOutcome:
        """Fit one bank's weights and store them; on a failure or timeout store nothing."""
        by_learner = await self.db.read(lambda c: fit_sql.answers_by_learner(c, bank_id))
        if sum(map(len, by_learner.values())) < min(MIN_BANK_REVIEWS, MIN_LEARNER_REVIEWS):
            return FitOutcome(bank_id, None, 0)  # fewer answers than any fit needs reviews
        try:
            pooled, own = await asyncio.to_thread(
                _in_subprocess, by_learner, self.fitter, self.timeout_s
            )
        except Exception as err:  # the optimizer's errors, or the timeout
            late = isinstance(err, TimeoutError | multiprocessing.TimeoutError)
            reason = "timed out" if late else f"failed: {err!r}"
            log.warning("memory fit of bank %s %s; keeping the last good weights", bank_id, reason)
            return FitOutcome(bank_id, None, 0, failed=True)
        now = self.clock.now()

        def store(c: Connection) -> int | None:
            version = None
            if pooled is not None:
                version = fit_sql.save_params(
                    c, bank_id, BANK_SCOPE, pooled.weights, pooled.reviews, now
                )
            for user_id, f in own.items():
                fit_sql.save_params(c, bank_id, user_id, f.weights, f.reviews, now)
            return version

        version = await self.db.write(store)
        for user_id in by_learner:
            # One transaction a learner: the writer is free for answers between them. Under
            # the weights stored for the learner (what their answers are scheduled under:
            # their own fit may be an older one that this run did not replace).
            try:
                await self.db.write(
                    partial(restate, user_id=user_id, bank_id=bank_id), learner=user_id
                )
            except StorageError as err:  # the others are still restated
                log.warning("restating learner %s in bank %s failed: %s", user_id, bank_id, err)
        return FitOutcome(bank_id, version, len(own))

    async def fit_banks(self, bank_ids: Sequence[str]) -> list[FitOutcome]:
        """Fit each bank in turn."""
        return [await self.fit_bank(b) for b in bank_ids]

    async def params_for(self, user_id: int, bank_id: str) -> StoredParams | None:
        """The weights a learner is on (None: FSRS's defaults)."""
        return await self.db.read(lambda c: fit_sql.params_for(c, user_id, bank_id))


def describe(params: StoredParams | None) -> str:
    """Which weights a learner is on, in one line for operators."""
    if params is None:
        return "Memory model: FSRS-6 defaults (no fit yet)"
    whose = "the bank's learners pooled" if params.pooled else "their own answers"
    return f"Memory model: fitted to {whose}, version {params.version}, {params.reviews} reviews"
