"""kill -9 mid-push, several times: after the last run everyone has the day's question, and the
duplicates are no more than the pushes that were in flight (claimed, outcome not recorded)."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests import factories
from tests.fakes import FakeBotApi, FakeBotApiServer, wait_for
from tests.push_support import FIRST_CHAT, SUBSCRIBERS, seed, served, start_bot, states

# Starts `quizbot run` as a real process: `pytest -m "not slow"` leaves it out.
pytestmark = pytest.mark.slow

KILL_AT = (60, 130, 200)  # distinct chats served when each kill -9 lands


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
    # One day key per chat, and every message id recorded on its delivery.
    assert factories.one(db, "SELECT COUNT(DISTINCT chat_id) FROM push_log") == (SUBSCRIBERS,)
    assert factories.one(
        db,
        "SELECT COUNT(*) FROM deliveries WHERE source = 'daily' AND message_id IS NULL"
        " AND id IN (SELECT delivery_id FROM push_log)",
    ) == (0,)
    print(f"duplicates {duplicates} <= in flight at kills {in_flight_at_kills}")
