"""The daily push with two bot processes on one PostgreSQL, one killed -9 mid-push: every
subscriber gets the question, once, except where the dead process had sent without recording
it (the outcome is unknown: sent again once its claim is recovered), and no more than those.

QUIZBOT_TEST_PUSH_SUBSCRIBERS sets how many subscribers (default: tests/push_support.py's),
for a one-off run at a larger size; `pytest -s` prints how many sends went twice."""

from __future__ import annotations

import os
import signal
from collections import Counter
from pathlib import Path

import pytest

from bot.schedule.push import push_window
from tests import factories, push_support
from tests.fakes import FakeBotApiServer
from tests.multiproc_support import start, wait
from tests.push_support import FIRST_CHAT, seed, served

pytestmark = pytest.mark.slow
RATE = 100  # sends a second per process, so the kill lands mid-push
SUBSCRIBERS = int(os.environ.get("QUIZBOT_TEST_PUSH_SUBSCRIBERS", str(push_support.SUBSCRIBERS)))
KILL_AFTER = max(60, SUBSCRIBERS // 5)  # served before the kill: the push well under way
# Time for the survivor to send everything, at half the rate should it keep its split.
SERVE_TIMEOUT = 150 + 2 * SUBSCRIBERS / RATE


def test_two_processes_one_killed_mid_push_every_subscriber_served(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # seed() subscribes push_support.SUBSCRIBERS chats: this test's count, when it is set.
    monkeypatch.setattr(push_support, "SUBSCRIBERS", SUBSCRIBERS)
    seed(pg_url)
    env = {"QUIZBOT_PUSH_RATE": str(RATE)}
    with FakeBotApiServer() as server:
        api = server.api
        runs = [start(tmp_path, n, server, pg_url, env=env, bank=None) for n in ("a", "b")]
        try:
            wait(
                lambda: runs[0].alive() and runs[1].alive() and served(api) >= KILL_AFTER,
                90,
                "push",
            )
            in_flight_at_kill = SUBSCRIBERS - served(api)
            runs[0].stop(signal.SIGKILL)
            wait(
                lambda: runs[1].alive() and served(api) == SUBSCRIBERS, SERVE_TIMEOUT, "all served"
            )
            wait(
                lambda: (
                    factories.one(pg_url, "SELECT COUNT(*) FROM push_log WHERE state = 'sent'")
                    == (SUBSCRIBERS,)
                ),
                60,
                "every row sent",
            )
        finally:
            for run in runs:
                run.close()
    counts = Counter(
        c.params["chat_id"] for c in api.calls if c.method in ("sendMessage", "sendPoll")
    )
    chats = range(FIRST_CHAT, FIRST_CHAT + SUBSCRIBERS)
    assert all(counts[c] >= 1 for c in chats)
    duplicates = sum(counts[c] - 1 for c in chats)
    print(
        f"\n{SUBSCRIBERS} subscribers: {sum(counts[c] == 1 for c in chats)} got exactly one"
        f" question, {duplicates} sends went twice"
    )
    # Only what the dead process sent without recording it can go twice: its sends in flight
    # (its claim window) and the sent ones whose outcomes wait to be written together (at
    # most half a window, PushService.flush_every).
    window = push_window(RATE)
    assert duplicates <= min(window + window // 2, in_flight_at_kill)
    assert factories.one(pg_url, "SELECT COUNT(DISTINCT chat_id) FROM push_log") == (SUBSCRIBERS,)
