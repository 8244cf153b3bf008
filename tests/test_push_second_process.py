"""A second bot process on the same database mid-push sends none of the first one's in-flight
rows: claims carry an owner and a lease, and only an expired lease (or a dead owner) frees them.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from bot.schedule.lease import LEASE_S
from bot.storage import push_log
from bot.storage.factory import connect_blocking
from tests.backend import database
from tests.fakes import FakeBotApi, FakeBotApiServer, wait_for
from tests.push_support import FIRST_CHAT, SUBSCRIBERS, seed, served, start_bot, states

pytestmark = pytest.mark.slow

IN_FLIGHT = 20  # rows this test process holds as "the first bot", claimed and live


def test_second_process_leaves_live_claims_alone(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    seed(db)
    now = time.time()
    first_bot = f"{socket.gethostname()}:{os.getpid()}:firstbot"  # alive: this very process
    held = range(FIRST_CHAT, FIRST_CHAT + IN_FLIGHT)
    conn = connect_blocking(database(db))
    try:
        conn.execute("BEGIN")
        push_log.materialize_due(conn, now, 7200, SUBSCRIBERS)
        conn.executemany(
            "UPDATE push_log SET state = 'sending', attempts = 1, claimed_at = ?, owner = ?,"
            " lease_until = ? WHERE chat_id = ?",
            [(now, first_bot, now + LEASE_S, chat) for chat in held],
        )
        conn.execute("COMMIT")
    finally:
        conn.close()
    api = FakeBotApi()
    with FakeBotApiServer(api) as server:
        proc = start_bot(server, db, tmp_path)
        try:
            wait_for(api, lambda a: served(a) >= SUBSCRIBERS - IN_FLIGHT, timeout=30)
            time.sleep(1.0)  # a second look: still nothing for the held rows
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err.decode()[-2000:]
    assert all(api.send_counts[chat] == 0 for chat in held)
    assert served(api) == SUBSCRIBERS - IN_FLIGHT
    assert states(db) == {"sent": SUBSCRIBERS - IN_FLIGHT, "sending": IN_FLIGHT}
