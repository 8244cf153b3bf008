"""Many answers in flight on PostgreSQL, through the service layer: none is refused as busy,
each is recorded once, and a learner's answers to one question all reach its memory state
(none written back over another's), with two bot processes sharing the database; and a
conflict between SERIALIZABLE writes is rerun and logged with its SQLSTATE and statement."""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections import Counter
from typing import Any

import psycopg
import pytest

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS
from bot.domain import display
from bot.domain.models import AnswerStatus, Learner
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.service import PracticeService
from bot.storage import learning_sql, practice_sql
from bot.storage.factory import open_database
from bot.storage.port import Connection, DatabaseBusy
from bot.storage.postgres.database import PgDatabase

NOW = 1_800_000_000.0
TOKEN = "c0de"
LEARNERS = 60
PER_LEARNER = 8  # deliveries each; learner 1's are all of one question
IN_FLIGHT = 32


def seed(conn: Connection, catalog: Catalog) -> list[tuple[int, Learner, int]]:
    """Deliveries shown in private chats, as the bot records them; (id, learner, option)."""
    bank = catalog.bank(None)
    questions = sorted(
        (q for q in bank.questions.values() if q.kind.value == "single"), key=lambda q: q.id
    )
    out = []
    for uid in range(1, LEARNERS + 1):
        learner = Learner(uid, f"U{uid}")
        learning_sql.set_confidence(conn, uid, False, NOW - 100)
        for k in range(PER_LEARNER):
            q = questions[0] if uid == 1 else questions[(uid * PER_LEARNER + k) % len(questions)]
            order = display.shuffled_order(q, random.Random(uid * 100 + k))
            did = practice_sql.insert_delivery(
                conn, chat_id=uid, user_id=uid, bank_id=bank.id, question_id=q.id,
                source="quiz", now=NOW - 60, option_order=display.encode_order(order),
                version=display.question_version(q), token=TOKEN,
            )  # fmt: skip
            practice_sql.set_delivery_message(conn, did, did)
            out.append((did, learner, k % len(q.options)))
    return out


async def test_answers_in_flight_are_never_busy_and_counted_once(pg_url: str) -> None:
    catalog = Catalog(load_banks([BUNDLED_QUESTIONS]).banks)
    # Two stores on one database: two bot processes, each with its own pool.
    async with open_database(pg_url) as one, open_database(pg_url) as two:
        seeded = await one.write(lambda c: seed(c, catalog))
        services = [
            PracticeService(db, catalog, clock=FakeClock(NOW), rng=random.Random(1))
            for db in (one, two)
        ]
        # Every delivery answered twice (a double tap, one in each process), shuffled so that
        # both taps of one delivery are in flight together; learner 1's go first, all at once.
        taps = [(i % 2, *s) for s in seeded for i in range(2)]
        random.Random(7).shuffle(taps)
        taps.sort(key=lambda t: t[2].id != 1)
        gate = asyncio.Semaphore(IN_FLIGHT)
        busy = 0

        async def tap(which: int, did: int, learner: Learner, option: int) -> Any:
            nonlocal busy
            async with gate:
                try:
                    outcome = await services[which].answer(
                        did, learner, learner.id, frozenset({option}), token=TOKEN
                    )
                except DatabaseBusy:
                    busy += 1
                    return None
                return did, outcome.status

        results = await asyncio.gather(*(tap(*t) for t in taps))

        def counts(conn: Connection) -> tuple[Any, ...]:
            answers = conn.execute("SELECT COUNT(*), COUNT(DISTINCT delivery_id) FROM answers")
            topics = conn.execute("SELECT SUM(answered) FROM learner_topics").fetchone()[0]
            days = conn.execute("SELECT SUM(answered) FROM learner_days").fetchone()[0]
            reps = conn.execute(
                "SELECT SUM(reps) FROM memory_states WHERE user_id <> 1"
            ).fetchone()[0]
            first = conn.execute(
                "SELECT COUNT(*), SUM(reps) FROM memory_states WHERE user_id = 1"
            ).fetchone()
            return tuple(answers.fetchone()), topics, days, reps, tuple(first)

        (n, distinct), topics, days, reps, first = await one.read(counts)
    assert busy == 0
    statuses = Counter(status for did, status in results)
    assert statuses == {AnswerStatus.RECORDED: len(seeded), AnswerStatus.ALREADY: len(seeded)}
    recorded = Counter(did for did, status in results if status is AnswerStatus.RECORDED)
    assert set(recorded.values()) == {1} and len(recorded) == len(seeded)
    assert n == distinct == len(seeded)
    assert topics == days == len(seeded)
    # Learner 1 answered one question PER_LEARNER times at once: each answer read the state
    # the one before wrote, so all of them are in it.
    assert first == (1, PER_LEARNER)
    assert reps == len(seeded) - PER_LEARNER


async def test_a_conflict_is_rerun_and_logged_with_its_statement(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The bot's own writers take turns, so the conflict comes from a writer outside the bot:
    # it and the bot's transaction both read 0, it commits 1 first, and the bot's update must
    # fail and be run again, reading 1.
    caplog.set_level(logging.INFO, logger="bot.storage.postgres.database")
    both_read = threading.Barrier(2, timeout=10)
    outside_done = threading.Event()
    async with PgDatabase(pg_url, pool_size=2) as db:
        await db.write(lambda c: c.execute("INSERT INTO bot_status VALUES ('n', '0', 0)"))
        runs = Counter[str]()

        def bump(conn: Connection) -> None:
            runs["bot"] += 1
            (n,) = conn.execute("SELECT value FROM bot_status WHERE key = 'n'").fetchone()
            if runs["bot"] == 1:
                both_read.wait()
                outside_done.wait(10)
            conn.execute("UPDATE bot_status SET value = ? WHERE key = 'n'", (str(int(n) + 1),))

        def outside() -> None:
            with psycopg.connect(pg_url, autocommit=True) as raw, raw.transaction():
                raw.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
                (n,) = raw.execute("SELECT value FROM bot_status WHERE key = 'n'").fetchone()
                both_read.wait()
                raw.execute("UPDATE bot_status SET value = %s WHERE key = 'n'", (str(int(n) + 1),))
            outside_done.set()

        await asyncio.gather(db.write(bump), asyncio.to_thread(outside))
        assert (await db.fetchone("SELECT value FROM bot_status"))[0] == "2"
    assert runs["bot"] == 2
    logged = [r.getMessage() for r in caplog.records]
    assert any("SQLSTATE 40001" in m and "UPDATE bot_status SET value" in m for m in logged)
