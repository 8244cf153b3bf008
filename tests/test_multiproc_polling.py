"""Polling with two bot processes on one PostgreSQL: one polls, the other stands by and polls
within 15 s of a kill -9 of the poller; no update is handled twice."""

from __future__ import annotations

import signal
import time
from collections import Counter
from pathlib import Path

import pytest

from tests import factories
from tests.fakes import FakeBotApiServer
from tests.multiproc_support import answer_button, answers, lease_pid, start, wait

pytestmark = pytest.mark.slow
LEARNERS = 5


def test_the_standby_polls_within_15_s_of_a_kill_9_and_nothing_is_handled_twice(
    tmp_path: Path, pg_url: str
) -> None:
    users = [factories.user(9100 + i, f"Learner {i}") for i in range(LEARNERS)]
    with FakeBotApiServer() as server:
        api = server.api
        first = start(tmp_path, "first", server, pg_url)
        second = None
        try:
            wait(lambda: first.alive() and lease_pid(pg_url) == first.proc.pid, 60, "a poller")
            second = start(tmp_path, "second", server, pg_url)
            wait(lambda: second.alive() and "standing by" in second.output(), 60, "a standby")
            for u in users:
                api.push_update(factories.command("/quiz", u, factories.private_chat(u)))
            questions = {
                u["id"]: server.wait_for(
                    lambda a, uid=u["id"]: (
                        (m := a.last_message(uid)) and m.get("reply_markup") and m
                    ),
                    timeout=60,
                )
                for u in users
            }
            assert "this process polls" not in second.output()
            time.sleep(1.5)  # the done marks are written (they wait up to a second)
            first.stop(signal.SIGKILL)
            killed_at = time.monotonic()
            # Taps while nobody polls: they wait at Telegram for the next poller.
            for u in users:
                api.push_update(factories.callback(answer_button(questions[u["id"]]), u,
                                                   questions[u["id"]]))  # fmt: skip
            wait(lambda: second.alive() and lease_pid(pg_url) == second.proc.pid, 20, "takeover")
            wait(lambda: "this process polls" in second.output(), 5, "the standby polls")
            took = time.monotonic() - killed_at
            assert took < 15, took
            wait(lambda: len(answers(pg_url)) >= LEARNERS, 30, "every tap answered")
            time.sleep(3)  # time for a second handling, were there one
        finally:
            first.close()
            if second is not None:
                second.close()
    recorded = answers(pg_url)
    assert sorted(uid for uid, _ in recorded) == [u["id"] for u in users]
    # Each /quiz handled once (one question each), each tap once (one verdict each).
    assert Counter(c.params["chat_id"] for c in api.calls_of("sendMessage")) == {
        u["id"]: 1 for u in users
    }
    assert api.count("answerCallbackQuery") == LEARNERS
    assert api.count("editMessageText") == LEARNERS
