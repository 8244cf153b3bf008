"""One learner's read-then-write transactions one at a time, whatever the backend.

SQLite runs one writer at a time, so there is nothing to take. On PostgreSQL the answer path
runs READ COMMITTED (see `bot.storage.postgres.database`): what it reads of a learner (the
memory state of a question, the misconceptions, the held choice) and writes back computed in
Python would lose an update if two of that learner's transactions interleaved, in this bot
process or another one sharing the database. A transaction-scoped advisory lock on the
learner's id, taken before the first read, makes them queue instead. It needs no row (a group
member may have none in `users` yet), and it is released at commit or rollback.

Every transaction that reads and then writes a learner's memory or misconception states
takes it: the answer path by `Store.write(fn, learner=...)`, a mock exam's submission inside
its own transaction (`lock_learner`). Only learners are locked this way, so a learner id is
the whole key.
"""

from __future__ import annotations

from bot.storage.port import Connection


def lock_learner(conn: Connection, user_id: int) -> None:
    """Wait for, then hold until the transaction ends, the lock on one learner's state."""
    if getattr(conn, "dialect", "sqlite") == "postgresql":
        conn.execute("SELECT pg_advisory_xact_lock(?)", (user_id,))
