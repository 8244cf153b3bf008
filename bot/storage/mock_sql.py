"""SQL of mock exams: plain sync functions on a connection, run by `Database.write`/`read` so
that each exam move is one transaction in one round trip."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import replace

from bot.domain.kinds import Source
from bot.mock.models import Exam, ExamKind, ExamStatus, MockItem, MockSummary, TopicWeight
from bot.mock.scoring import GradedAnswer, MockResult
from bot.storage import practice_sql
from bot.storage.port import Connection, Row


@functools.lru_cache(maxsize=4096)
def _indices(text: str) -> tuple[int, ...]:
    # Few distinct strings ("2,0,3,1", "1", ""): parsing them once keeps loading an exam cheap.
    return tuple(int(p) for p in text.split(",") if p != "")


@functools.lru_cache(maxsize=4096)
def _index_set(text: str) -> frozenset[int]:
    return frozenset(_indices(text))


def _text(indices: tuple[int, ...] | frozenset[int]) -> str:
    ordered = indices if isinstance(indices, tuple) else sorted(indices)
    return ",".join(str(i) for i in ordered)


def insert_exam(conn: Connection, exam: Exam, snapshots: Mapping[str, str]) -> int | None:
    """Store a new running exam with its question snapshots (JSON by question id); its id, or
    None when the learner already has a running exam."""
    topics = json.dumps([{"id": t.id, "name": t.name, "weight": t.weight} for t in exam.topics])
    # The conflict target is the one-running-exam index (mock_exams_one_running): a start
    # that raced another inserts nothing and returns no id.
    rows = conn.execute(
        "INSERT INTO mock_exams (user_id, bank_id, kind, size, seed, passing_score, topics,"
        " current, started_at, deadline, chat_id, message_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id) WHERE status = 'running' DO NOTHING RETURNING id",
        (
            exam.user_id,
            exam.bank_id,
            exam.kind.value,
            exam.size,
            exam.seed,
            exam.passing_score,
            topics,
            exam.current,
            exam.started_at,
            exam.deadline,
            exam.chat_id,
            exam.message_id,
        ),
    ).fetchall()
    if not rows:
        return None
    exam_id = int(rows[0][0])
    conn.executemany(
        "INSERT INTO mock_items (exam_id, position, question_id, topic, option_order, correct,"
        " chosen, flagged, answered_at, snapshot) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                exam_id,
                pos,
                item.question_id,
                item.topic,
                _text(item.order),
                _text(item.correct),
                _text(item.chosen),
                int(item.flagged),
                item.answered_at,
                snapshots[item.question_id],
            )
            for pos, item in enumerate(exam.items)
        ],
    )
    return exam_id


_EXAM_COLUMNS = (
    "id, user_id, bank_id, kind, status, seed, passing_score, topics, current, started_at,"
    " deadline, finished_at, chat_id, message_id, rev, paused_at, paused_s"
)


def _exam(conn: Connection, row: Row) -> Exam:
    items = tuple(
        MockItem(
            question_id=r["question_id"],
            topic=r["topic"],
            order=_indices(r["option_order"]),
            correct=_index_set(r["correct"]),
            chosen=_index_set(r["chosen"]),
            flagged=bool(r["flagged"]),
            answered_at=r["answered_at"],
        )
        for r in conn.execute(
            "SELECT question_id, topic, option_order, correct, chosen, flagged, answered_at"
            " FROM mock_items WHERE exam_id = ? ORDER BY position",
            (row["id"],),
        )
    )
    return Exam(
        id=row["id"],
        user_id=row["user_id"],
        bank_id=row["bank_id"],
        kind=ExamKind(row["kind"]),
        seed=row["seed"],
        started_at=row["started_at"],
        deadline=row["deadline"],
        passing_score=row["passing_score"],
        topics=tuple(
            TopicWeight(t["id"], t["name"], t["weight"]) for t in json.loads(row["topics"])
        ),
        items=items,
        current=row["current"],
        status=ExamStatus(row["status"]),
        finished_at=row["finished_at"],
        chat_id=row["chat_id"],
        message_id=row["message_id"],
        rev=row["rev"],
        paused_at=row["paused_at"],
        paused_s=row["paused_s"],
    )


def load_exam(conn: Connection, exam_id: int, cached: Exam | None = None) -> Exam | None:
    """An exam with its items (without the question snapshots), or None; `cached` is returned
    as is when the stored exam has not changed since it was read."""
    if cached is not None and cached.id == exam_id:
        row = conn.execute("SELECT rev FROM mock_exams WHERE id = ?", (exam_id,)).fetchone()
        if row is not None and row[0] == cached.rev:
            return cached
    row = conn.execute(
        f"SELECT {_EXAM_COLUMNS} FROM mock_exams WHERE id = ?", (exam_id,)
    ).fetchone()
    return _exam(conn, row) if row else None


def running_exam(conn: Connection, user_id: int) -> Exam | None:
    """The learner's running exam (even one past its deadline, not yet submitted), or None."""
    row = conn.execute(
        f"SELECT {_EXAM_COLUMNS} FROM mock_exams WHERE user_id = ? AND status = 'running'",
        (user_id,),
    ).fetchone()
    return _exam(conn, row) if row else None


def running_question_ids(conn: Connection, user_id: int, bank_id: str) -> frozenset[str]:
    """The questions of the learner's running exam in this bank (empty when none runs)."""
    rows = conn.execute(
        "SELECT i.question_id FROM mock_exams e JOIN mock_items i ON i.exam_id = e.id"
        " WHERE e.user_id = ? AND e.status = 'running' AND e.bank_id = ?",
        (user_id, bank_id),
    ).fetchall()
    return frozenset(r[0] for r in rows)


def in_running_exam(conn: Connection, user_id: int, bank_id: str, question_id: str) -> bool:
    """Whether a question is one of the learner's running exam in this bank."""
    row = conn.execute(
        "SELECT 1 FROM mock_exams e JOIN mock_items i ON i.exam_id = e.id"
        " WHERE e.user_id = ? AND e.status = 'running' AND e.bank_id = ? AND i.question_id = ?",
        (user_id, bank_id, question_id),
    ).fetchone()
    return row is not None


def snapshot(conn: Connection, exam_id: int, position: int) -> str | None:
    """The question at a position, as JSON frozen when the exam started."""
    row = conn.execute(
        "SELECT snapshot FROM mock_items WHERE exam_id = ? AND position = ?", (exam_id, position)
    ).fetchone()
    return row[0] if row else None


def snapshots(conn: Connection, exam_id: int) -> list[str]:
    """Every question of an exam as JSON, in exam order."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT snapshot FROM mock_items WHERE exam_id = ? ORDER BY position", (exam_id,)
        )
    ]


def save_exam(
    conn: Connection, before: Exam, after: Exam, result: MockResult | None = None
) -> Exam | None:
    """Write what a move changed (the exam's header, the items that differ, the score); returns
    `after` at its new revision. None, with nothing written, when the stored exam is no longer
    at `before`'s revision: another writer saved it after it was read."""
    saved = conn.execute(
        "UPDATE mock_exams SET current = ?, status = ?, finished_at = ?, deadline = ?,"
        " paused_at = ?, paused_s = ?, correct = ?, percent = ?, passed = ?, rev = rev + 1"
        " WHERE id = ? AND rev = ?",
        (
            after.current,
            after.status.value,
            after.finished_at,
            after.deadline,
            after.paused_at,
            after.paused_s,
            result.correct if result else None,
            result.percent if result else None,
            int(result.passed) if result else None,
            after.id,
            before.rev,
        ),
    ).rowcount
    if saved != 1:
        return None
    conn.executemany(
        "UPDATE mock_items SET chosen = ?, flagged = ?, answered_at = ?"
        " WHERE exam_id = ? AND position = ?",
        [
            (_text(new.chosen), int(new.flagged), new.answered_at, after.id, pos)
            for pos, (old, new) in enumerate(zip(before.items, after.items, strict=True))
            if old != new
        ],
    )
    return replace(after, rev=before.rev + 1)


def set_message(conn: Connection, exam_id: int, chat_id: int, message_id: int) -> None:
    """Remember the message that shows the exam (edited in place on each tap)."""
    conn.execute(
        "UPDATE mock_exams SET chat_id = ?, message_id = ?, rev = rev + 1 WHERE id = ?",
        (chat_id, message_id, exam_id),
    )


def due_exam_ids(conn: Connection, now: float) -> list[int]:
    """Running exams whose deadline has passed, earliest first (a paused exam's clock is
    stopped: it is not due)."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT id FROM mock_exams WHERE status = 'running' AND deadline <= ?"
            " AND paused_at IS NULL ORDER BY deadline",
            (now,),
        )
    ]


def next_deadline(conn: Connection) -> float | None:
    """The earliest deadline of a running, unpaused exam (when the auto-submit job wakes)."""
    row = conn.execute(
        "SELECT MIN(deadline) FROM mock_exams WHERE status = 'running' AND paused_at IS NULL"
    ).fetchone()
    return row[0] if row else None


def mocked_question_ids(conn: Connection, user_id: int, bank_id: str) -> set[str]:
    """Questions this learner met in earlier mock exams of a bank."""
    return {
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT i.question_id FROM mock_exams e JOIN mock_items i ON i.exam_id = e.id"
            " WHERE e.user_id = ? AND e.bank_id = ?",
            (user_id, bank_id),
        )
    }


def last_mocks(
    conn: Connection, user_id: int, bank_id: str | None = None, limit: int = 5
) -> list[MockSummary]:
    """A learner's latest exams (abandoned ones too), newest first."""
    # Two statements rather than `? IS NULL OR ...`: PostgreSQL cannot type a bare NULL.
    where, params = (
        ("", (user_id,)) if bank_id is None else (" AND bank_id = ?", (user_id, bank_id))
    )
    rows = conn.execute(
        "SELECT id, bank_id, kind, status, size, started_at, finished_at, correct, percent,"
        f" passed FROM mock_exams WHERE user_id = ?{where}"
        " ORDER BY started_at DESC, id DESC LIMIT ?",
        (*params, limit),
    ).fetchall()
    return [
        MockSummary(
            exam_id=r["id"],
            bank_id=r["bank_id"],
            kind=ExamKind(r["kind"]),
            status=ExamStatus(r["status"]),
            size=r["size"],
            started_at=r["started_at"],
            finished_at=r["finished_at"],
            correct=r["correct"],
            percent=r["percent"],
            passed=None if r["passed"] is None else bool(r["passed"]),
        )
        for r in rows
    ]


def record_graded_answers(
    conn: Connection,
    exam: Exam,
    graded: tuple[GradedAnswer, ...],
    default_timezone: str = "UTC",
) -> list[tuple[GradedAnswer, str | None]]:
    """Record a submitted exam's graded answers as practice answers (one delivery each, source
    'mock'), so item statistics and /stats count them; the ones not recorded before, each with
    its question as the exam showed it (JSON). `default_timezone`: the zone of a learner who
    set none (their day in the summaries)."""
    fresh: list[tuple[GradedAnswer, str | None]] = []
    chat_id = exam.chat_id if exam.chat_id is not None else exam.user_id
    snaps = snapshots(conn, exam.id)
    for g in graded:
        # sent_at is the exam start: time_to_answer then spans the exam up to that answer, an
        # honest upper bound (the exam does not record when each question was first shown).
        delivery_id = practice_sql.insert_delivery(
            conn,
            chat_id=chat_id,
            user_id=exam.user_id,
            bank_id=exam.bank_id,
            question_id=g.question_id,
            source=Source.MOCK,
            now=exam.started_at,
        )
        delivery = practice_sql.delivery_record(conn, delivery_id)
        assert delivery is not None
        new = practice_sql.insert_answer(
            conn,
            delivery=delivery,
            user_id=exam.user_id,
            topic=g.topic,
            chosen=_text(g.chosen),
            correct=g.correct,
            now=g.answered_at,
            default_timezone=default_timezone,
        )
        if new:
            fresh.append((g, snaps[g.position] if g.position < len(snaps) else None))
    return fresh


def shift_running(conn: Connection, seconds: float) -> int:
    """Move the start and deadline of every running exam by `seconds` (the wall clock stepped
    by that much: the learner's time left stays what it was, a paused exam's too); how many
    exams moved."""
    cur = conn.execute(
        "UPDATE mock_exams SET started_at = started_at + ?, deadline = deadline + ?,"
        " paused_at = paused_at + ?, rev = rev + 1 WHERE status = 'running'",
        (seconds, seconds, seconds),
    )
    return cur.rowcount
