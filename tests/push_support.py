"""A push-ready SQLite file and the bot as a subprocess, for the push crash and SIGTERM tests."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from bot.storage import push_log
from bot.storage.factory import connect_blocking, prepare_database
from bot.storage.port import Connection
from tests import factories
from tests.backend import database, database_env
from tests.fakes import TOKEN, FakeBotApi, FakeBotApiServer

REPO = Path(__file__).resolve().parent.parent
SUBSCRIBERS = 300
FIRST_CHAT = 10_000


def seed(db: str | Path) -> None:
    """Subscribers whose local time (UTC) was two minutes ago: due now, well within the grace.

    Real time, no clock override: the subprocess is the production binary, unmodified.
    """
    now = time.time()
    local = dt.datetime.fromtimestamp(now - 120, dt.UTC).strftime("%H:%M")
    prepare_database(database(db))
    conn = connect_blocking(database(db))
    try:
        conn.execute("BEGIN")
        for chat in range(FIRST_CHAT, FIRST_CHAT + SUBSCRIBERS):
            conn.execute(
                "INSERT INTO users (id, first_name, started, created_at, seen_at)"
                " VALUES (?, 'L', 1, ?, ?)",
                (chat, now, now),
            )
            push_log.upsert_subscription(
                conn,
                chat_id=chat,
                user_id=chat,
                kind="private",
                local_time=local,
                timezone="UTC",
                now=now - 600,
            )
        conn.execute("COMMIT")
    finally:
        conn.close()


def insert_private_subscriptions(
    conn: Connection, rows: Iterable[tuple[int, str, str, str, float]], now: float
) -> None:
    """Private subscriptions in bulk, each (chat_id, local_time, zone, next local date, its
    due time); the user id is the chat id, created and updated at `now`."""
    conn.executemany(
        "INSERT INTO subscriptions (chat_id, user_id, kind, local_time, timezone, active,"
        " next_local_date, next_due_at, created_at, updated_at)"
        " VALUES (?, ?, 'private', ?, ?, 1, ?, ?, ?, ?)",
        (
            (chat, chat, at_time, zone, date, due_at, now, now)
            for chat, at_time, zone, date, due_at in rows
        ),
    )


def states(db: Path) -> dict[str, int]:
    return dict(factories.rows(db, "SELECT state, COUNT(*) FROM push_log GROUP BY state"))


def start_bot(server: FakeBotApiServer, db: Path, cwd: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "BOT_TOKEN": TOKEN,
        "BOT_API_URL": server.url,
        "QUIZBOT_DB": database_env(db),
        "QUIZBOT_PUSH_RATE": "100",
        "QUIZBOT_LOG_LEVEL": os.environ.get("DBG_LEVEL", "WARNING"),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "run"],
        cwd=cwd,  # no stray .env from the checkout
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def served(api: FakeBotApi) -> int:
    # The server's threads count sends while the test reads: a copy taken under its lock.
    counts = api.sends_by_chat()
    return sum(1 for chat, n in counts.items() if isinstance(chat, int) and n > 0)
