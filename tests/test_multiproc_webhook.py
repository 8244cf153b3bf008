"""Webhook mode with two bot processes on one PostgreSQL, the fake Bot API's updates spread
over both (Telegram's retry of an unacknowledged post simulated: the other process gets it):
every answer recorded once, every verdict sent once, and a kill -9 of one process during the
load loses nothing the other cannot finish."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.multiproc_support import Load, answers, memory_matches_a_replay, webhook_load

pytestmark = pytest.mark.slow
LEARNERS = 40
ROUNDS = 6  # answers per learner
ALREADY = "You already answered"


def check(load: Load, pg_url: str) -> None:
    recorded = answers(pg_url)
    # Every tap recorded, once.
    assert len(recorded) == len(set(recorded)) == len(load.tapped) == LEARNERS * ROUNDS
    assert Counter(uid for uid, _ in recorded) == {9500 + i: ROUNDS for i in range(LEARNERS)}
    # Every tap got its verdict (a tap handled again after a crash gets it again, not "you
    # already answered": it is the same tap), and no tap was told it answered already.
    calls = load.api.calls_of("answerCallbackQuery")
    assert not [c for c in calls if ALREADY in c.params.get("text", "")]
    assert len({c.params["callback_query_id"] for c in calls}) == len(load.tapped)
    # Memory written answer by answer, by both processes at once, is what one process
    # replaying the recorded answers in order computes.
    assert memory_matches_a_replay(pg_url) >= LEARNERS


def test_two_processes_record_every_answer_once(tmp_path: Path, pg_url: str) -> None:
    load = webhook_load(tmp_path, pg_url, processes=2, learners=LEARNERS, rounds=ROUNDS)
    check(load, pg_url)
    assert load.telegram.retried == 0
    # Nothing handled twice without a crash: not even an "already answered".
    assert load.api.count("answerCallbackQuery") == len(load.tapped)


def test_kill_9_of_one_process_under_load_loses_nothing(tmp_path: Path, pg_url: str) -> None:
    kill_at = LEARNERS * ROUNDS // 3
    load = webhook_load(
        tmp_path, pg_url, processes=2, learners=LEARNERS, rounds=ROUNDS, kill_at=kill_at
    )
    check(load, pg_url)
    # Posts to the dead process went to the other; what it had acknowledged and not handled
    # was taken over from the inbox.
    assert load.telegram.retried > 0
    assert "updates nobody was handling are handled now" in load.outputs[1]
