"""kill -9 mid-push, several times: after the last run everyone has the day's question, and the
duplicates are no more than the pushes that were in flight (claimed, outcome not recorded)."""

from __future__ import annotations

import datetime as dt
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bot.schedule import delivery_log
from bot.storage.db import connect_sync
from bot.storage.migrations import apply_migrations
from tests.fakes import TOKEN, FakeBotApi, FakeBotApiServer, wait_for

REPO = Path(__file__).resolve().parent.parent
SUBSCRIBERS = 300
FIRST_CHAT = 10_000
KILL_AT = (60, 130, 200)  # distinct chats served when each kill -9 lands


def seed(db: Path) -> None:
    """Subscribers whose local time (UTC) was two minutes ago: due now, well within the grace.

    Real time, no clock override: the subprocess is the production binary, unmodified.
    """
    now = time.time()
    local = dt.datetime.fromtimestamp(now - 120, dt.UTC).strftime("%H:%M")
    conn = connect_sync(db)
    try:
        apply_migrations(conn)
        conn.execute("BEGIN")
        for chat in range(FIRST_CHAT, FIRST_CHAT + SUBSCRIBERS):
            conn.execute(
                "INSERT INTO users (id, first_name, started, created_at, seen_at)"
                " VALUES (?, 'L', 1, ?, ?)",
                (chat, now, now),
            )
            delivery_log.upsert_subscription(
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


def states(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT state, COUNT(*) FROM push_log GROUP BY state").fetchall())


def start_bot(server: FakeBotApiServer, db: Path, cwd: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "BOT_TOKEN": TOKEN,
        "BOT_API_URL": server.url,
        "QUIZBOT_DB": str(db),
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
    return sum(1 for chat, n in api.send_counts.items() if isinstance(chat, int) and n > 0)


def test_kill_9_mid_push_misses_no_one(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    seed(db)
    api = FakeBotApi()
    api.set_delay("sendMessage", 0.02)  # slow enough to be killed mid-push
    in_flight_at_kills = 0
    with FakeBotApiServer(api) as server:
        for threshold in KILL_AT:
            proc = start_bot(server, db, tmp_path)
            try:
                wait_for(api, lambda a, t=threshold: served(a) >= t, timeout=20)
            finally:
                proc.kill()  # SIGKILL: no shutdown code runs
                _, err = proc.communicate(timeout=10)
            assert proc.returncode == -signal.SIGKILL, err.decode()[-2000:]
            in_flight_at_kills += states(db).get("sending", 0)
        proc = start_bot(server, db, tmp_path)
        try:
            wait_for(api, lambda a: served(a) >= SUBSCRIBERS, timeout=20)
            deadline = time.monotonic() + 10
            while set(states(db)) != {"sent"} and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err.decode()[-2000:]
    counts = api.send_counts
    chats = range(FIRST_CHAT, FIRST_CHAT + SUBSCRIBERS)
    assert all(counts[c] >= 1 for c in chats)
    duplicates = sum(counts[c] - 1 for c in chats)
    assert duplicates <= in_flight_at_kills
    assert states(db) == {"sent": SUBSCRIBERS}
    with sqlite3.connect(db) as conn:
        # One day key per chat, and every message id recorded on its delivery.
        assert conn.execute("SELECT COUNT(DISTINCT chat_id) FROM push_log").fetchone() == (
            SUBSCRIBERS,
        )
        assert conn.execute(
            "SELECT COUNT(*) FROM deliveries WHERE source = 'daily' AND message_id IS NULL"
            " AND id IN (SELECT delivery_id FROM push_log)"
        ).fetchone() == (0,)
    print(f"duplicates {duplicates} <= in flight at kills {in_flight_at_kills}")
