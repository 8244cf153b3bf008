"""Two webhook processes against one, on one PostgreSQL (`python -m tests.bench multiproc`).

LEARNERS learners answer ROUNDS questions each (/quiz, then a tap), the posts spread over the
processes; runs interleaved (1, 2, 1, 2, ...), RUNS of each. Reported: answers a second (wall,
from the first post to the last verdict) and the bots' CPU milliseconds per answer. The
learners, the fake Bot API and PostgreSQL share the machine with the bots: on a small machine
the figures say as much about it as about the bots.

After each run the bench checks that every tap was recorded once (one answer row per tap,
ROUNDS per learner, no delivery answered twice) and handled once (one answerCallbackQuery per
tap, none saying "already answered"), and prints how many posts were refused and sent again:
with more learners than a process's backlog cap the bot answers 503 and the simulated
Telegram retries within 50 ms (Telegram itself opens at most 40 connections and waits longer),
and the bots' CPU includes those refusals.

QUIZBOT_BENCH_LEARNERS (default 200), QUIZBOT_BENCH_ROUNDS (default 5) and QUIZBOT_BENCH_RUNS
(default 2) set the size.
"""

from __future__ import annotations

import os
import statistics
import tempfile
from collections import Counter
from pathlib import Path

import psycopg

from bot.storage.postgres.database import prepare
from tests.multiproc_support import Load, answers, webhook_load
from tests.pg_fixtures import TEMPLATE
from tests.pg_server import running

REPS = int(os.environ.get("QUIZBOT_BENCH_RUNS", "2"))
LEARNERS = int(os.environ.get("QUIZBOT_BENCH_LEARNERS", "200"))
ROUNDS = int(os.environ.get("QUIZBOT_BENCH_ROUNDS", "5"))
FIRST_LEARNER = 9500  # webhook_load's first user id
ALREADY = "You already answered"


def summary(values: list[float]) -> str:
    return f"min {min(values):.1f}  median {statistics.median(values):.1f}  max {max(values):.1f}"


def check_once(load: Load, db: str) -> None:
    """Every tap recorded once and handled once (AssertionError otherwise)."""
    recorded = answers(db)
    expected = LEARNERS * ROUNDS
    assert len(recorded) == len(set(recorded)) == len(load.tapped) == expected, (
        len(recorded),
        len(set(recorded)),
        len(load.tapped),
    )
    assert len({delivery for _, delivery in recorded}) == expected
    per_learner = Counter(uid for uid, _ in recorded)
    assert per_learner == {FIRST_LEARNER + i: ROUNDS for i in range(LEARNERS)}
    calls = load.api.calls_of("answerCallbackQuery")
    assert len(calls) == len({c.params["callback_query_id"] for c in calls}) == expected
    assert not [c for c in calls if ALREADY in c.params.get("text", "")]


def main() -> None:
    figures: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    with running() as server, tempfile.TemporaryDirectory() as tmp:
        with psycopg.connect(server.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {TEMPLATE}")
        prepare(server.url(TEMPLATE))
        for rep in range(REPS):
            for processes in (1, 2):
                name = f"bench_{rep}_{processes}"
                with psycopg.connect(server.url(), autocommit=True) as conn:
                    conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
                folder = Path(tmp) / name
                folder.mkdir()
                load = webhook_load(
                    folder,
                    server.url(name),
                    processes=processes,
                    learners=LEARNERS,
                    rounds=ROUNDS,
                    env={"QUIZBOT_LOG_LEVEL": "WARNING"},
                )
                check_once(load, server.url(name))
                n = len(load.tapped)
                figures[processes].append((n / load.seconds, 1000 * load.cpu_s / n))
                print(
                    f"   {processes} process(es): {n} answers in {load.seconds:.1f} s,"
                    f" {n / load.seconds:.1f}/s, {1000 * load.cpu_s / n:.1f} ms bot CPU each;"
                    f" each recorded and handled once; {load.telegram.retried} posts sent again",
                    flush=True,
                )
    for processes, runs in figures.items():
        print(f"{processes} process(es), {LEARNERS} learners x {ROUNDS} answers:")
        print(f"   answers/s       {summary([r for r, _ in runs])}")
        print(f"   CPU ms/answer   {summary([c for _, c in runs])}")
