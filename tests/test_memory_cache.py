"""The memory states kept between picks (`quizbot play --jsonl`): always what a fresh read of
the database would give, in the same order, and emptied by any write it was not told about."""

from __future__ import annotations

import datetime as dt
import json
import random
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.commands.jsonl import JsonlSession
from bot.domain.kinds import Source
from bot.domain.models import Learner
from bot.learning.memory import Confidence, MemoryState
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.readiness_service import ReadinessService
from bot.practice.service import PracticeService
from bot.storage import learning_sql as lsql
from bot.storage import memory_cache
from bot.storage.db import Database, connect_sync
from bot.storage.inline_db import InlineDatabase
from bot.storage.memory_cache import MemoryCache
from tests.learning_support import learning_bank

START = dt.datetime(2027, 1, 4, 8, tzinfo=dt.UTC)
BANK = "learn"
Held = tuple[bool, bool]


@pytest.fixture
async def setup(tmp_path: Path) -> AsyncIterator[tuple[PracticeService, MemoryCache]]:
    async with InlineDatabase(tmp_path / "c.sqlite3") as db:
        cache = MemoryCache()
        service = PracticeService(
            db,
            Catalog({BANK: learning_bank()}),
            clock=FakeClock(START),
            rng=random.Random(3),
            memory_cache=cache,
        )
        yield service, cache


async def practise(service: PracticeService, user: int, rng: random.Random) -> None:
    """One next + answer, the answer chosen at random (right or wrong, sure or not)."""
    learner = Learner(user, "t")
    delivery = await service.next_delivery(user, learner, source=Source.TERMINAL)
    assert delivery is not None
    q = delivery.question
    chosen = frozenset(rng.sample(range(len(q.options)), q.select_count))
    confidence = rng.choice([None, Confidence.SURE, Confidence.UNSURE])
    await service.answer(delivery.id, learner, user, chosen, confidence=confidence)


async def warmed(
    setup: tuple[PracticeService, MemoryCache], seed: int, answers: int
) -> tuple[PracticeService, MemoryCache]:
    """Learner 1 practised `answers` times, the cache holding exactly what is stored."""
    service, cache = setup
    rng = random.Random(seed)
    for _ in range(answers):
        await practise(service, 1, rng)
    assert (await compare(service, cache, 1)) == (True, True)
    return service, cache


async def compare(service: PracticeService, cache: MemoryCache, user: int) -> Held:
    """In one transaction, as a pick uses the cache: whether the learner was still held after
    the check, and whether the cache gave exactly what the database holds."""

    def go(conn: sqlite3.Connection) -> Held:
        cache.check(conn)
        held = cache.holds(user, BANK)
        memory = list(cache.memory_states(conn, user, BANK).items())
        mis = list(cache.misconception_states(conn, user, BANK).items())
        kept = (cache.last_question(conn, user, BANK), cache.exam_date(conn, user, BANK))
        cache.settle(conn)
        fresh = list(lsql.memory_states(conn, user, BANK).items())
        fresh_mis = list(lsql.misconception_states(conn, user, BANK).items())
        read = (lsql.last_question(conn, user, BANK), lsql.exam_date(conn, user, BANK))
        return held, memory == fresh and mis == fresh_mis and kept == read

    return await service.db.write(go)


async def test_kept_states_equal_a_fresh_read_after_every_answer(
    setup: tuple[PracticeService, MemoryCache],
) -> None:
    service, cache = setup
    rng = random.Random(9)
    for i in range(90):
        user = 1 + i % 3
        await practise(service, user, rng)
        if i % 11 == 10:
            assert isinstance(service.clock, FakeClock)
            service.clock.advance(86400 * rng.choice((1, 3)))
        held, same = await compare(service, cache, user)
        assert same
        assert held  # served from the cache, not read again
    states = await service.db.read(lambda c: lsql.misconception_states(c, 1, BANK))
    assert states  # the answers did move misconceptions, so they were checked too


async def test_another_connections_commit_empties_it(
    setup: tuple[PracticeService, MemoryCache],
) -> None:
    service, cache = await warmed(setup, seed=2, answers=4)
    other = connect_sync(service.db.path)  # another process's write, say the bot's
    with other:
        qid = other.execute("SELECT question_id FROM memory_states LIMIT 1").fetchone()[0]
        other.execute("UPDATE memory_states SET stability = 123.5 WHERE question_id = ?", (qid,))
    other.close()
    assert (await compare(service, cache, 1)) == (False, True)
    memory = await service.db.write(lambda c: cache.memory_states(c, 1, BANK))
    assert memory[qid].stability == 123.5


async def stored(service: PracticeService) -> tuple[dict[str, MemoryState], str, MemoryState]:
    """The learner's stored memory states, and the first of them."""
    states = await service.db.read(lambda c: lsql.memory_states(c, 1, BANK))
    qid, state = next(iter(states.items()))
    return states, qid, state


async def test_a_write_in_process_it_was_not_told_about_empties_it(
    setup: tuple[PracticeService, MemoryCache],
) -> None:
    service, cache = await warmed(setup, seed=4, answers=3)
    _, qid, state = await stored(service)
    await service.db.write(
        lambda c: lsql.save_memory(c, 1, BANK, qid, replace(state, stability=77.0))
    )
    assert (await compare(service, cache, 1)) == (False, True)


async def test_a_rolled_back_answer_leaves_the_stored_state(
    setup: tuple[PracticeService, MemoryCache],
) -> None:
    service, cache = await warmed(setup, seed=6, answers=3)
    _, qid, state = await stored(service)

    def fail(conn: sqlite3.Connection) -> None:
        cache.check(conn)
        cache.answered(1, BANK, qid, misconceptions=True)
        lsql.save_memory(conn, 1, BANK, qid, replace(state, stability=55.0))
        cache.settle(conn)
        raise RuntimeError("the answer's transaction fails")

    with pytest.raises(RuntimeError):
        await service.db.write(fail)
    assert (await compare(service, cache, 1)) == (True, True)
    memory = await service.db.write(lambda c: cache.memory_states(c, 1, BANK))
    assert memory[qid] == state


async def test_what_a_failed_transaction_wrote_is_never_taken_in(
    setup: tuple[PracticeService, MemoryCache],
) -> None:
    service, cache = await warmed(setup, seed=5, answers=3)
    states, qid, state = await stored(service)
    last = await service.db.read(lambda c: lsql.last_question(c, 1, BANK))
    other = next(q for q in states if q != last)

    def fail(conn: sqlite3.Connection) -> None:
        cache.check(conn)
        cache.memory_states(conn, 1, BANK)
        cache.answered(1, BANK, qid, misconceptions=False)
        cache.stored(1, BANK, qid, lsql.save_memory(conn, 1, BANK, qid, replace(state, reps=9)))
        cache.recorded(1, BANK, other)
        cache.settle(conn)
        raise RuntimeError("the commit fails")

    with pytest.raises(RuntimeError):
        await service.db.write(fail)
    assert (await compare(service, cache, 1)) == (True, True)  # the next check dropped them
    cache.committed()  # too late: nothing is pending any more
    memory = await service.db.write(lambda c: cache.memory_states(c, 1, BANK))
    assert memory[qid] == state
    assert await service.db.write(lambda c: cache.last_question(c, 1, BANK)) == last


async def test_an_exam_date_set_meanwhile_is_read_again(
    setup: tuple[PracticeService, MemoryCache],
) -> None:
    service, cache = await warmed(setup, seed=7, answers=2)
    await service.learning.set_exam(1, dt.date(2027, 2, 1))
    assert (await compare(service, cache, 1)) == (False, True)
    await practise(service, 1, random.Random(1))
    assert (await compare(service, cache, 1)) == (True, True)


async def replies(
    tmp_path: Path, name: str, db_kind: type[Database], cached: bool, learners: int = 3
) -> list[Any]:
    """A seeded conversation of `learners` learners over simulated days; every reply."""
    catalog = Catalog({BANK: learning_bank()})
    async with db_kind(tmp_path / f"{name}.sqlite3") as db:
        clock = FakeClock(START)
        service = PracticeService(
            db,
            catalog,
            clock=clock,
            rng=random.Random(1),
            memory_cache=MemoryCache() if cached else None,
        )
        session = JsonlSession(
            service, ReadinessService(db, catalog, clock=clock), catalog.bank(None), clock
        )
        rng = random.Random(8)
        out: list[Any] = []
        for i in range(150):
            user = 1 + rng.randrange(learners)
            q = await session.handle(json.dumps({"cmd": "next", "user": user}))
            chosen = sorted(rng.sample(range(len(q["options"])), q["select"]))
            req = {"cmd": "answer", "user": user, "delivery": q["delivery"], "chosen": chosen}
            if rng.random() < 0.5:
                req["confidence"] = rng.choice(["sure", "unsure"])
            out += [q, await session.handle(json.dumps(req))]
            if i % 13 == 12:
                out.append(await session.handle('{"cmd": "advance", "seconds": 90000}'))
        return out


async def test_the_same_conversation_gets_the_same_replies_with_and_without_it(
    tmp_path: Path,
) -> None:
    plain = await replies(tmp_path, "plain", Database, cached=False)
    fast = await replies(tmp_path, "fast", InlineDatabase, cached=True)
    assert fast == plain
    assert sum(r["type"] == "verdict" for r in fast) == 150


async def test_learners_past_the_bound_are_let_go_and_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory_cache, "KEPT_LEARNERS", 2)
    kept: list[int] = []
    memory_states = MemoryCache.memory_states

    def counted(self: MemoryCache, conn: sqlite3.Connection, user_id: int, bank_id: str) -> Any:
        found = memory_states(self, conn, user_id, bank_id)
        kept.append(len(self._learners))
        return found

    monkeypatch.setattr(MemoryCache, "memory_states", counted)
    plain = await replies(tmp_path, "plain", Database, cached=False, learners=5)
    fast = await replies(tmp_path, "fast", InlineDatabase, cached=True, learners=5)
    assert fast == plain
    assert max(kept) == 2


def _rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table's rows, deliveries without their random button token."""
    conn = connect_sync(path)
    conn.row_factory = None
    try:
        tables = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if r[0] != "schema_migrations"
        ]
        out = {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
        out["deliveries"] = conn.execute(
            "SELECT id, chat_id, user_id, bank_id, question_id, source, sent_at, option_order,"
            " version FROM deliveries ORDER BY id"
        ).fetchall()
        return out
    finally:
        conn.close()


async def test_the_same_conversation_stores_the_same_rows_with_and_without_it(
    tmp_path: Path,
) -> None:
    # The kept user rows leave out upserts that would write the row as it stands, and the
    # kept tallies their reads: what is stored must not change.
    await replies(tmp_path, "plain", Database, cached=False)
    await replies(tmp_path, "fast", InlineDatabase, cached=True)
    plain, fast = _rows(tmp_path / "plain.sqlite3"), _rows(tmp_path / "fast.sqlite3")
    assert fast == plain
    assert len(plain["users"]) == 3 and len(plain["answers"]) == 150
