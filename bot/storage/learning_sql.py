"""SQL of the learning engine: memory states, misconceptions, exam dates, the confidence
preference. Plain sync functions on a connection, so an answer updates memory in the same
transaction as its row. They return the engine's frozen dataclasses."""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache

from bot.learning.memory import MemoryState, from_timestamp
from bot.learning.misconceptions import MisconceptionState
from bot.storage.port import Connection, Cursor, Row

MEMORY_COLUMNS = (
    "stability", "difficulty", "due", "last_review", "reps", "lapses", "last_correct",
    "last_confidence", "first_correct", "predicted_recall", "review_right", "spaced_reviews",
    "miss_predicted", "miss_right", "miss_reviews", "decay",
)  # fmt: skip
_MEMORY_SELECT = ", ".join(MEMORY_COLUMNS)


def upsert_sql(columns: tuple[str, ...]) -> str:
    """INSERT ... ON CONFLICT (its key) DO UPDATE of a memory state's `columns`."""
    return (
        f"INSERT INTO memory_states (user_id, bank_id, question_id, {', '.join(columns)})"
        f" VALUES (?, ?, ?, {', '.join('?' * len(columns))})"
        " ON CONFLICT (user_id, bank_id, question_id) DO UPDATE SET "
        + ", ".join(f"{c} = excluded.{c}" for c in columns)
    )


_MEMORY_UPSERT = upsert_sql(MEMORY_COLUMNS)


def _state(row: Row | tuple[object, ...]) -> MemoryState:
    return _parsed(tuple(row))


# A pick reads every state a learner has in the bank, and between two picks only one of them
# changed: parsing is memoised on the row's values (a row is plain values, a state is frozen).
@lru_cache(maxsize=1 << 16)
def _parsed(row: tuple[object, ...]) -> MemoryState:
    return MemoryState.from_row(dict(zip(MEMORY_COLUMNS, row, strict=True)))


def state_of(row: tuple[object, ...]) -> MemoryState:
    """A MemoryState from the MEMORY_COLUMNS of a row, in that order."""
    return _parsed(row)


# The states last read per learner and bank, with the version they were read at
# (memory_versions, changed by triggers with every change to them): a read that finds the
# version unchanged reuses them, one primary-key read instead of all the rows and their parse.
# Versions are random 64-bit values: two databases open in one process never share one.
_read: OrderedDict[tuple[int, str], tuple[int, dict[str, MemoryState]]] = OrderedDict()
_read_lock = threading.Lock()  # reads run on several reader threads
MEMORY_READS_KEPT = 2048


def memory_version(conn: Connection, user_id: int, bank_id: str) -> int | None:
    """The version of a learner's memory states in a bank (None: they never had one)."""
    row = conn.execute(
        "SELECT version FROM memory_versions WHERE user_id = ? AND bank_id = ?",
        (user_id, bank_id),
    ).fetchone()
    return None if row is None else int(row[0])


def memory_states(conn: Connection, user_id: int, bank_id: str) -> dict[str, MemoryState]:
    """A learner's memory of every question met in a bank, by question id (a new dict)."""
    version = memory_version(conn, user_id, bank_id)
    key = (user_id, bank_id)
    if version is not None:
        with _read_lock:
            found = _read.get(key)
            if found is not None and found[0] == version:
                _read.move_to_end(key)
                return dict(found[1])
    rows = _tuples(conn).execute(
        f"SELECT question_id, {_MEMORY_SELECT} FROM memory_states"
        " WHERE user_id = ? AND bank_id = ?",
        (user_id, bank_id),
    )
    states = {row[0]: _parsed(row[1:]) for row in rows}
    if version is not None:
        with _read_lock:
            _read[key] = (version, states)
            _read.move_to_end(key)
            while len(_read) > MEMORY_READS_KEPT:
                _read.popitem(last=False)
    return dict(states)


def _tuples(conn: Connection) -> Cursor:
    # Plain tuples: the hot reads of a pick slice and hash every row, which Row slows.
    cur = conn.cursor()
    cur.row_factory = None
    return cur


def memory_state(
    conn: Connection, user_id: int, bank_id: str, question_id: str
) -> MemoryState | None:
    """One question's memory state, or None before the first answer."""
    row = conn.execute(
        f"SELECT {_MEMORY_SELECT} FROM memory_states"
        " WHERE user_id = ? AND bank_id = ? AND question_id = ?",
        (user_id, bank_id, question_id),
    ).fetchone()
    return None if row is None else _state(row)


def save_memory(
    conn: Connection, user_id: int, bank_id: str, question_id: str, state: MemoryState
) -> MemoryState:
    """Store one memory state (insert or update); returns it as a read of the row gives it."""
    row = state.to_row()
    values = tuple(row[c] for c in MEMORY_COLUMNS)
    conn.execute(_MEMORY_UPSERT, (user_id, bank_id, question_id, *values))
    # The same parse as `memory_state`: times come back through their stored Unix seconds.
    return _parsed(values)


# ---------------------------------------------------------------- misconceptions
_MIS_FIELDS = (
    "active", "activated_at", "activated_by", "last_event_at", "avoidances", "resolved_at"
)  # fmt: skip
_MIS_COLUMNS = "misconception_id, " + ", ".join(_MIS_FIELDS)
_MISCONCEPTION_UPSERT = (
    f"INSERT INTO misconception_states (user_id, bank_id, {_MIS_COLUMNS})"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (user_id, bank_id, misconception_id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _MIS_FIELDS)
)


@lru_cache(maxsize=1 << 14)  # a pick reads them all; they change rarely (see _parsed)
def _misconception(row: tuple[object, ...]) -> MisconceptionState:
    mid, active, activated_at, activated_by, last_event_at, avoidances, resolved_at = row
    return MisconceptionState(
        misconception_id=str(mid),
        active=bool(active),
        activated_at=from_timestamp(float(activated_at)),  # type: ignore[arg-type]
        activated_by=str(activated_by),
        last_event_at=from_timestamp(float(last_event_at)),  # type: ignore[arg-type]
        avoidances=int(avoidances),  # type: ignore[call-overload]
        resolved_at=None if resolved_at is None else from_timestamp(float(resolved_at)),  # type: ignore[arg-type]
    )


def misconception_states(
    conn: Connection, user_id: int, bank_id: str, ids: Collection[str] | None = None
) -> dict[str, MisconceptionState]:
    """A learner's misconception states in a bank (only `ids` when given)."""
    sql = f"SELECT {_MIS_COLUMNS} FROM misconception_states WHERE user_id = ? AND bank_id = ?"
    params: list[object] = [user_id, bank_id]
    if ids is not None:
        if not ids:
            return {}
        sql += f" AND misconception_id IN ({', '.join('?' * len(ids))})"
        params += list(ids)
    return {row[0]: _misconception(row) for row in _tuples(conn).execute(sql, params)}


def _misconception_row(user_id: int, bank_id: str, s: MisconceptionState) -> tuple[object, ...]:
    resolved = None if s.resolved_at is None else s.resolved_at.timestamp()
    return (
        user_id, bank_id, s.misconception_id, int(s.active), s.activated_at.timestamp(),
        s.activated_by, s.last_event_at.timestamp(), s.avoidances, resolved,
    )  # fmt: skip


def save_misconceptions(
    conn: Connection, user_id: int, bank_id: str, states: Mapping[str, MisconceptionState]
) -> dict[str, MisconceptionState]:
    """Store changed misconception states; returns them as a read of their rows gives them."""
    rows = [_misconception_row(user_id, bank_id, s) for s in states.values()]
    if rows:
        conn.executemany(_MISCONCEPTION_UPSERT, rows)
    # The same parse as `misconception_states` (the row without its user and bank).
    return {str(row[2]): _misconception(row[2:]) for row in rows}


def exam_date(conn: Connection, user_id: int, bank_id: str) -> dt.date | None:
    """The learner's exam date for a bank, or None."""
    row = conn.execute(
        "SELECT exam_date FROM exam_dates WHERE user_id = ? AND bank_id = ?", (user_id, bank_id)
    ).fetchone()
    return None if row is None else dt.date.fromisoformat(row[0])


def set_exam_date(
    conn: Connection, user_id: int, bank_id: str, date: dt.date | None, now: float
) -> None:
    """Set (or, with None, clear) the learner's exam date for a bank."""
    if date is None:
        conn.execute(
            "DELETE FROM exam_dates WHERE user_id = ? AND bank_id = ?", (user_id, bank_id)
        )
        return
    conn.execute(
        "INSERT INTO exam_dates (user_id, bank_id, exam_date, set_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (user_id, bank_id) DO UPDATE SET exam_date = excluded.exam_date,"
        " set_at = excluded.set_at",
        (user_id, bank_id, date.isoformat(), now),
    )


@dataclass(frozen=True, slots=True)
class LearningPrefs:
    """A learner's confidence preference and whether /start already offered an exam date."""

    confidence: bool
    exam_offered: bool


def learning_prefs(conn: Connection, user_id: int) -> LearningPrefs:
    """Confidence on/off and exam-offer flag (both off for a stranger)."""
    row = conn.execute(
        "SELECT confidence, exam_offered FROM users WHERE id = ?", (user_id,)
    ).fetchone()
    return (
        LearningPrefs(False, False) if row is None else LearningPrefs(bool(row[0]), bool(row[1]))
    )


def set_confidence(conn: Connection, user_id: int, on: bool, now: float) -> None:
    """Turn the Sure/Unsure question on or off for a learner."""
    conn.execute(
        "INSERT INTO users (id, confidence, created_at, seen_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET confidence = excluded.confidence",
        (user_id, int(on), now, now),
    )


def claim_exam_offer(conn: Connection, user_id: int) -> bool:
    """Mark the exam-date offer made; True only the first time (the offer is made once)."""
    cur = conn.execute(
        "UPDATE users SET exam_offered = 1 WHERE id = ? AND exam_offered = 0", (user_id,)
    )
    return cur.rowcount == 1


def last_question(conn: Connection, user_id: int, bank_id: str) -> str | None:
    """The question most recently sent to the learner in a bank."""
    row = conn.execute(
        "SELECT question_id FROM deliveries WHERE user_id = ? AND bank_id = ?"
        " ORDER BY id DESC LIMIT 1",
        (user_id, bank_id),
    ).fetchone()
    return None if row is None else str(row[0])
