"""The learning engine wired to storage and the practice service, on real SQLite files."""

from __future__ import annotations

import datetime as dt
import itertools
import random
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.bank.models import Question
from bot.domain import display, grading
from bot.domain.kinds import Source
from bot.domain.models import AnswerStatus, Learner
from bot.learning.memory import DEFAULT_WEIGHTS, Answer, Confidence, replay_all
from bot.practice import memory_updates
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.service import PracticeService
from bot.storage import fit_sql
from bot.storage import learning_sql as lsql
from bot.storage.factory import connect_blocking, open_database
from bot.storage.memory_backfill import restate
from bot.storage.port import Connection
from bot.storage.postgres import migrations as pg_migrations
from bot.storage.postgres.connection import PgConnection
from bot.storage.sqlite import migrations
from bot.storage.sqlite.database import connect_sync
from tests import factories, sample_bank
from tests.backend import database, target_of
from tests.learning_support import learning_bank, tagged

ANN = Learner(11, "Ann")
START = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[PracticeService]:
    db = open_database(database(tmp_path / "q.sqlite3"))
    await db.open()
    yield PracticeService(
        db, Catalog({"learn": learning_bank()}), clock=FakeClock(START), rng=random.Random(5)
    )
    await db.close()


def rows(service: PracticeService, sql: str) -> list[tuple[object, ...]]:
    return factories.rows(target_of(service.db), sql)


def wrong_choice(question: Question) -> frozenset[int]:
    """A complete but wrong choice: one wrong option, plus keys up to the count asked for."""
    wrong = min(set(range(len(question.options))) - question.correct_indices)
    keys = sorted(question.correct_indices)[: question.select_count - 1]
    return frozenset({wrong, *keys})


def _record_answers(conn: Connection, history: list[tuple[float, int]], first_id: int = 1) -> None:
    """User 7's answers to question q1 of bank b, each with its delivery: (time, correct)."""
    for i, (at, correct) in enumerate(history, first_id):
        conn.execute(
            "INSERT INTO deliveries (id, chat_id, user_id, bank_id, question_id, sent_at)"
            " VALUES (?, 7, 7, 'b', 'q1', ?)",
            (i, at - 5),
        )
        conn.execute(
            "INSERT INTO answers (delivery_id, user_id, chat_id, bank_id, question_id, topic,"
            " chosen, correct, answered_at) VALUES (?, 7, 7, 'b', 'q1', 't', '0', ?, ?)",
            (i, correct, at),
        )


@pytest.mark.sqlite_only("replays SQLite migrations 0006 and later on an older SQLite schema")
async def test_migration_replays_existing_answers_into_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.sqlite3"
    every = migrations.available()
    # A database from before the learning engine: none of its migrations or later ones.
    monkeypatch.setattr(migrations, "available", lambda: [m for m in every if m[0] < "0006"])
    conn = connect_sync(path)
    migrations.apply_migrations(conn)
    history = [(1.0e9, 0), (1.0e9 + 86400 * 3, 0), (1.0e9 + 86400 * 5, 1)]
    _record_answers(conn, history)
    monkeypatch.setattr(migrations, "available", lambda: every)
    applied = migrations.apply_migrations(conn)
    assert "0006_learning" in applied and "0017_forgetting_probe" in applied
    states = lsql.memory_states(conn, 7, "b")
    expected = replay_all(
        Answer("q1", dt.datetime.fromtimestamp(at, dt.UTC), bool(c)) for at, c in history
    )
    assert states == expected and states["q1"].reps == 3 and states["q1"].lapses == 2
    # The second and third answers, days apart, are spaced reviews; one of them right.
    assert (states["q1"].spaced_reviews, states["q1"].review_right) == (2, 1)
    assert states["q1"].decay == DEFAULT_WEIGHTS[20]  # no fit yet: FSRS-6's default curve
    conn.close()


def test_storage_round_trips(tmp_path: Path) -> None:
    conn = factories.migrated(tmp_path / "s.sqlite3")
    conn.execute("INSERT INTO users (id, created_at, seen_at) VALUES (5, 0, 0)")
    state = memory_updates.take_stored(
        conn, 5, "b", Answer("q", START, False, Confidence.SURE, 3.5), DEFAULT_WEIGHTS
    )
    assert lsql.memory_state(conn, 5, "b", "q") == state and state.confident_error
    assert lsql.memory_states(conn, 5, "other") == {}
    q = tagged("t1", "alpha", "m1")
    changed = memory_updates.take_misconceptions(conn, 5, "b", q, {0}, START)
    assert lsql.misconception_states(conn, 5, "b") == changed and changed["m1"].active
    plain = sample_bank.question("plain")
    assert memory_updates.take_misconceptions(conn, 5, "b", plain, {0}, START) == {}
    lsql.set_exam_date(conn, 5, "b", dt.date(2027, 3, 15), 0.0)
    assert lsql.exam_date(conn, 5, "b") == dt.date(2027, 3, 15)
    lsql.set_exam_date(conn, 5, "b", None, 0.0)
    assert lsql.exam_date(conn, 5, "b") is None
    assert lsql.learning_prefs(conn, 5) == lsql.LearningPrefs(False, False)
    lsql.set_confidence(conn, 5, True, 0.0)
    assert [lsql.claim_exam_offer(conn, 5) for _ in range(2)] == [True, False]
    assert lsql.learning_prefs(conn, 5) == lsql.LearningPrefs(True, True)
    conn.close()


async def test_answer_updates_memory_once_and_stores_file_order(service: PracticeService) -> None:
    d = await service.next_delivery(ANN.id, ANN)
    assert d is not None and sorted(d.order) == list(range(len(d.order)))
    file_q = service.catalog.question("learn", d.question.id)
    assert file_q is not None
    shown_right = d.question.correct_indices  # display positions of the key
    out = await service.answer(d.id, ANN, ANN.id, shown_right, token=d.token)
    assert out.status is AnswerStatus.RECORDED and out.correct
    stored = rows(service, "SELECT chosen, correct, confidence FROM answers")
    assert stored == [(grading.encode_choice(file_q.correct_indices), 1, None)]
    again = await service.answer(d.id, ANN, ANN.id, shown_right, token=d.token)
    assert again.status is AnswerStatus.ALREADY and again.chosen == shown_right
    memory = await service.learning.memory(ANN.id, "learn")
    assert list(memory) == [d.question.id] and memory[d.question.id].reps == 1


async def test_picking_a_tagged_option_activates_its_misconception(
    service: PracticeService,
) -> None:
    for _ in range(12):
        d = await service.next_delivery(ANN.id, ANN)
        assert d is not None
        tagged_at = [p for p, o in enumerate(d.question.options) if o.misconception]
        if tagged_at:
            break
        await service.answer(d.id, ANN, ANN.id, d.question.correct_indices, token=d.token)
    assert tagged_at, "the queue never offered a tagged question"
    out = await service.answer(d.id, ANN, ANN.id, frozenset(tagged_at[:1]), token=d.token)
    assert out.status is AnswerStatus.RECORDED and not out.correct
    names = [m.name for m in await service.learning.misconceptions(ANN.id)]
    assert names and names[0] in {"More data always helps", "Bigger is better"}


async def test_confidence_holds_the_pick_until_sure_or_unsure(service: PracticeService) -> None:
    await service.learning.set_confidence(ANN.id, True)
    d = await service.next_delivery(ANN.id, ANN)
    assert d is not None
    wrong = wrong_choice(d.question)
    held = await service.answer(d.id, ANN, ANN.id, wrong, token=d.token)
    assert held.status is AnswerStatus.CONFIRM and rows(service, "SELECT * FROM answers") == []
    out = await service.confirm(d.id, ANN, ANN.id, Confidence.SURE, token=d.token)
    assert out.status is AnswerStatus.RECORDED and out.chosen == wrong and not out.correct
    assert rows(service, "SELECT confidence FROM answers") == [("sure",)]
    state = (await service.learning.memory(ANN.id, "learn"))[d.question.id]
    assert state.confident_error
    twice = await service.confirm(d.id, ANN, ANN.id, Confidence.UNSURE, token=d.token)
    assert twice.status is AnswerStatus.ALREADY


async def test_mistakes_ask_only_wrong_answers_until_none_left(service: PracticeService) -> None:
    assert await service.next_delivery(ANN.id, ANN, source=Source.MISTAKES) is None
    d = await service.next_delivery(ANN.id, ANN)
    assert d is not None
    chosen = wrong_choice(d.question)
    await service.answer(d.id, ANN, ANN.id, chosen, token=d.token)
    m = await service.next_delivery(ANN.id, ANN, source=Source.MISTAKES)
    assert m is not None and m.question.id == d.question.id and m.source is Source.MISTAKES
    await service.answer(m.id, ANN, ANN.id, m.question.correct_indices, token=m.token)
    assert await service.next_delivery(ANN.id, ANN, after=m.id) is None  # Next stays in /mistakes
    assert await service.next_delivery(ANN.id, ANN) is not None


async def test_a_button_from_another_copy_of_the_data_is_refused(service: PracticeService) -> None:
    d = await service.next_delivery(ANN.id, ANN)
    assert d is not None and d.token is not None and len(d.token) == 4
    right = d.question.correct_indices
    other = "zzzz" if d.token != "zzzz" else "yyyy"
    assert (
        await service.answer(d.id, ANN, ANN.id, right, token=other)
    ).status is AnswerStatus.STALE
    assert (await service.answer(d.id, ANN, ANN.id, right, token="")).status is AnswerStatus.STALE
    assert rows(service, "SELECT * FROM answers") == []
    assert await service.delivery(d.id, token=other) is None


async def test_revised_question_is_not_graded_unless_its_version_is_known(
    service: PracticeService,
) -> None:
    d = await service.next_delivery(ANN.id, ANN)
    assert d is not None
    bank = learning_bank()
    q = bank.questions[d.question.id]
    # The author moves the key: what the learner saw is still known in this process, so the
    # answer is graded against it.
    options = list(reversed(q.options))
    moved = q.model_copy(update={"options": options, "shuffle": False})
    edited = bank.model_copy(update={"questions": {**bank.questions, q.id: moved}})
    service.catalog.replace({"learn": edited})
    out = await service.answer(d.id, ANN, ANN.id, d.question.correct_indices, token=d.token)
    assert out.status is AnswerStatus.RECORDED and out.correct
    # A delivery whose version this process never loaded (say, shown before a restart).
    d2 = await service.next_delivery(ANN.id, ANN)
    assert d2 is not None
    factories.execute(
        target_of(service.db), "UPDATE deliveries SET version = 'gone' WHERE id = ?", (d2.id,)
    )
    out = await service.answer(d2.id, ANN, ANN.id, frozenset({0}), token=d2.token)
    assert out.status is AnswerStatus.REVISED
    assert len(rows(service, "SELECT * FROM answers")) == 1
    again = await service.redeliver(d2.id, ANN, ANN.id)
    assert again is not None and again.question.id == d2.question.id and again.id != d2.id


async def test_group_answers_update_each_members_memory(service: PracticeService) -> None:
    from bot.practice.groups import GroupService

    groups = GroupService(service.db, service.catalog, clock=service.clock, rng=random.Random(1))
    d = await groups.ask(-100)
    assert d is not None
    bob = Learner(12, "Bob")
    for member in (ANN, bob):
        out = await service.answer(d.id, member, -100, d.question.correct_indices, token=d.token)
        assert out.status is AnswerStatus.RECORDED
    again = await service.answer(d.id, ANN, -100, d.question.correct_indices, token=d.token)
    assert again.status is AnswerStatus.ALREADY
    for member in (ANN, bob):
        memory = await service.learning.memory(member.id, "learn")
        assert memory[d.question.id].reps == 1


async def test_exam_dates_are_per_bank_and_the_offer_comes_once(service: PracticeService) -> None:
    learning = service.learning
    await service.register(ANN, started=True)
    assert await learning.offer_exam(ANN.id) and not await learning.offer_exam(ANN.id)
    info = await learning.set_exam_in(ANN.id, 30)
    assert info.date == dt.date(2026, 3, 31) and info.days_left == 30
    assert await learning.exam_date(ANN.id, "learn") == info.date
    assert (await learning.set_exam(ANN.id, None)).date is None


@settings(deadline=None)  # ~1 ms an example: a stalled machine is not a wrong verdict
@given(st.permutations(range(5)), st.sampled_from([(0,), (3,), (1, 4), (0, 2, 4)]))
def test_verdict_is_right_for_every_permutation(order: list[int], key: tuple[int, ...]) -> None:
    q = sample_bank.question("p", correct=key, n_options=5, shuffle=True)
    shown = display.displayed(q, tuple(order))
    for k in range(1, 6):
        for pick in itertools.combinations(range(5), k):
            chosen = frozenset(pick)
            file_chosen = display.to_file(tuple(order), chosen)
            assert [o.text for o in shown.options] == [q.options[f].text for f in order]
            assert grading.is_correct(shown, chosen) == (file_chosen == q.correct_indices)
            assert display.to_display(tuple(order), file_chosen) == chosen


def test_shuffle_respects_no_shuffle_and_a_pinned_last_option() -> None:
    data = sample_bank.question("pin", n_options=5, shuffle=True).model_dump()
    data["options"][-1]["pin"] = True
    pinned = Question.model_validate(data)
    orders = {display.shuffled_order(pinned, random.Random(s)) for s in range(30)}
    assert all(o[-1] == 4 for o in orders) and len(orders) > 5
    fixed = sample_bank.question("fixed")
    assert display.shuffled_order(fixed, random.Random(1)) == (0, 1, 2, 3)
    assert display.decode_order(None, 3) == (0, 1, 2)
    assert display.decode_order("2,0,1", 3) == (2, 0, 1)
    assert display.decode_order("2,2,1", 3) == (0, 1, 2)  # unusable: file order


@pytest.mark.sqlite_only("replays SQLite migration 0017 on an older SQLite schema")
def test_review_backfill_and_restating_skip_states_whose_early_answers_were_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    every = migrations.available()
    monkeypatch.setattr(migrations, "available", lambda: [m for m in every if m[0] < "0017"])
    conn = connect_sync(tmp_path / "pruned.sqlite3")
    migrations.apply_migrations(conn)
    conn.execute("INSERT INTO users (id, created_at, seen_at) VALUES (7, 0, 0)")
    # Right, then two misses days apart; only the last two answers are still stored (retention
    # pruned the first), and a state that counts three.
    history = [(1.0e9, 1), (1.0e9 + 86400 * 3, 0), (1.0e9 + 86400 * 5, 0)]
    state = replay_all(
        Answer("q1", dt.datetime.fromtimestamp(at, dt.UTC), bool(c)) for at, c in history
    )["q1"]
    old = [c for c in lsql.MEMORY_COLUMNS if c in {r[1] for r in conn.execute(
        "PRAGMA table_info(memory_states)")}]  # fmt: skip
    row = state.to_row()
    conn.execute(
        f"INSERT INTO memory_states (user_id, bank_id, question_id, {', '.join(old)})"
        f" VALUES (7, 'b', 'q1', {', '.join('?' * len(old))})",
        [row[c] for c in old],
    )
    _record_answers(conn, history[1:], first_id=2)
    monkeypatch.setattr(migrations, "available", lambda: every)
    assert "0017_forgetting_probe" in migrations.apply_migrations(conn)
    # Replayed alone, the stored answers would be a first meeting missed and one review. The
    # after-a-miss fields, added later, stay at zero for the same reason.
    stored = lsql.memory_states(conn, 7, "b")["q1"]
    assert state.miss_reviews == 1
    state = replace(state, miss_predicted=0.0, miss_right=0, miss_reviews=0)
    assert stored == state and stored.reps == 3
    # Restating under newly fitted weights leaves it too: a replay would forget the first.
    fitted = list(DEFAULT_WEIGHTS)
    fitted[20] = 0.3
    fit_sql.save_params(conn, "b", 7, tuple(fitted), 400, 1.0e9)
    assert restate(conn, 7, "b") == 0
    assert lsql.memory_states(conn, 7, "b")["q1"] == state
    # With every answer there, the state is restated on the fitted curve.
    _record_answers(conn, history[:1], first_id=9)
    assert restate(conn, 7, "b") == 1
    again = lsql.memory_states(conn, 7, "b")["q1"]
    assert again.decay == 0.3 and again.reps == 3 and again.stability != state.stability
    conn.close()


def test_postgres_migration_gives_stored_states_their_after_a_miss_fields(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = connect_blocking(pg_url)
    try:
        admin.execute("CREATE DATABASE before_after_miss")
    finally:
        admin.close()
    conn = connect_blocking(pg_url.rsplit("/", 1)[0] + "/before_after_miss")
    assert isinstance(conn, PgConnection)
    try:
        every = pg_migrations.available()
        earlier = [m for m in every if m[0] < "0028"]
        monkeypatch.setattr(pg_migrations, "available", lambda: earlier)
        pg_migrations.apply_migrations(conn.raw)
        conn.execute("INSERT INTO users (id, created_at, seen_at) VALUES (7, 0, 0)")
        history = [(1.0e9, 0), (1.0e9 + 86400 * 3, 0), (1.0e9 + 86400 * 5, 1)]
        _record_answers(conn, history)
        state = replay_all(
            Answer("q1", dt.datetime.fromtimestamp(at, dt.UTC), bool(c)) for at, c in history
        )["q1"]
        # As the code before the migration stored it: its columns only.
        old = [c for c in lsql.MEMORY_COLUMNS if not c.startswith("miss_")]
        row = state.to_row()
        conn.execute(
            f"INSERT INTO memory_states (user_id, bank_id, question_id, {', '.join(old)})"
            f" VALUES (7, 'b', 'q1', {', '.join('?' * len(old))})",
            [row[c] for c in old],
        )
        monkeypatch.setattr(pg_migrations, "available", lambda: every)
        assert "0028_after_miss" in pg_migrations.apply_migrations(conn.raw)
        stored = lsql.memory_states(conn, 7, "b")["q1"]
        # Both later answers came days after a miss; the second of them was right.
        assert (stored.miss_reviews, stored.miss_right) == (2, 1)
        assert stored == state
    finally:
        conn.close()
