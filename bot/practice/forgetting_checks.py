"""The bank-wide forgetting check as the study queue reads it: summed over a bank's learners
in SQL, kept for an hour (it moves with hundreds of reviews, not with one)."""

from __future__ import annotations

import sqlite3

from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import QueueMode, queue_mode
from bot.storage import learning_sql as lsql

REFRESH_SECONDS = 3600.0

Snapshot = dict[str, tuple[float, QueueMode]]  # bank id -> (read at, mode)


class ForgettingChecks:
    """Each bank's queue mode, re-read from the database at most once an hour of `now`."""

    def __init__(self) -> None:
        self._modes: dict[str, tuple[float, QueueMode]] = {}

    def mode(self, conn: sqlite3.Connection, plan: Blueprint, now: float) -> QueueMode:
        """The bank's queue mode at `now` (Unix seconds), read in the caller's transaction."""
        found = self._modes.get(plan.meta.id)
        if found is None or not found[0] <= now < found[0] + REFRESH_SECONDS:
            mode = queue_mode(lsql.probe_tally(conn, plan.meta.id), plan.mean_chance)
            found = self._modes[plan.meta.id] = (now, mode)
        return found[1]

    def snapshot(self) -> Snapshot:
        """What `restore` puts back."""
        return dict(self._modes)

    def restore(self, snapshot: Snapshot) -> None:
        """Back to a `snapshot`: a read inside a rolled-back transaction is forgotten, and the
        next read happens where it would have happened had that transaction not failed."""
        self._modes = dict(snapshot)
