"""Learners' memory and misconception states kept in process between picks.

A pick reads every memory state the learner has in the bank (one row per question met), and
between two picks of a learner at most one of them changed: the question just answered. A
process that asks and answers through one PracticeService (`quizbot play --jsonl`) keeps the
states here and re-reads only the rows an answer touched.

It stays right because it trusts nothing it cannot check, inside each transaction that uses it:
- `PRAGMA data_version` changes when any other connection (another process, the bot) committed
  to the file: then everything is read again;
- the connection's change counter must be where the last transaction that used the cache left
  it: a write it was not told about (a topic or exam date, a mock exam's review, any future
  path) empties it too;
- an answer marks its question's row (and, when the question carries misconceptions, the
  learner's misconception states) to be read again, inside the answer's transaction, so a
  rolled-back answer costs a re-read, never a wrong state;
- what a transaction wrote (the answered question's new state, the question just asked) is
  held as pending and taken in only by `committed`, which the caller calls once the
  transaction is committed; the next `check` drops whatever was never confirmed.

The learner's exam date and last question asked are kept the same way (read once, then kept),
and so is each bank's forgetting tally (read again once an answer counted a probe).

A pick's upsert of the user's row is left out when it would write the row as it stands: the
same name, language and time as the last upsert that committed, nothing written since that
the cache was not told of (a simulated clock that did not move: every field the same). What
an answer reads first (`answer_sql.answer_context`: its delivery, the user's confidence
setting and zone, the question's memory state) comes from what is kept when all of it is:
the delivery as the pick recorded it, the user's row as the upsert returned it.

The states come back as the same mappings, in the same order (the table's key order), as
`learning_sql.memory_states` and `misconception_states` would read them.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import dataclass, field

from bot.domain.models import Learner
from bot.learning.forgetting import ProbeTally
from bot.learning.memory import MemoryState
from bot.learning.misconceptions import MisconceptionState
from bot.learning.pick_memo import PickMemo
from bot.storage import answer_sql, forgetting_sql
from bot.storage import learning_sql as lsql
from bot.storage import practice_sql as sql
from bot.storage.answer_sql import AnswerContext
from bot.storage.practice_sql import DeliveryRecord

UserArgs = tuple[int, str, str | None, str | None, float]  # what an upsert writes, and when
UserRow = tuple[UserArgs, sql.UserPrefs, bool]  # the last upsert, its prefs and confidence
KEPT_DELIVERIES = 10_000  # deliveries recorded and kept for their answer; older are read
# Learners kept; past it the one kept longest is let go (read again at its next pick). A kept
# learner holds its memory states and its pick memo: some tens of KB on a 2,000-question bank,
# so a run playing a hundred thousand learners stays within a few hundred MB.
KEPT_LEARNERS = 10_000


@dataclass(slots=True)
class _Learner:
    memory: dict[str, MemoryState]
    stale: set[str] = field(default_factory=set)
    misconceptions: dict[str, MisconceptionState] | None = None
    exam_read: bool = False  # exam_date holds what was read (None is a value of it)
    exam_date: dt.date | None = None
    last_read: bool = False  # last_question holds what was read or recorded since
    last_question: str | None = None
    memo: PickMemo = field(default_factory=PickMemo)  # what the last picks computed


@dataclass(frozen=True, slots=True)
class _Written:
    """What a transaction wrote for one learner, held until it is committed."""

    key: tuple[int, str]
    question_id: str  # the question asked or answered ("" for misconceptions)
    state: MemoryState | None = None  # the answered question's state as stored
    misconceptions: dict[str, MisconceptionState] | None = None  # all of them, as stored


class MemoryCache:
    """Per learner and bank: the memory states (and misconception states) of the last pick."""

    def __init__(self) -> None:
        self._learners: dict[tuple[int, str], _Learner] = {}
        self._data_version: int | None = None
        self._changes: int | None = None
        self._pending: list[_Written] = []
        self._users: dict[int, UserRow] = {}
        self._pending_users: list[UserRow] = []
        self._tallies: dict[str, ProbeTally] = {}
        self._deliveries: dict[int, DeliveryRecord] = {}  # as recorded, by id
        self._pending_deliveries: list[DeliveryRecord] = []

    def check(self, conn: sqlite3.Connection) -> None:
        """At the start of a transaction: forget everything unless no one else wrote since
        the last `settle` (another connection, or this one outside the cache's knowledge)."""
        self._drop_pending()  # written by a transaction that was never confirmed
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        if version != self._data_version or conn.total_changes != self._changes:
            self._drop_kept()
            self._data_version = version

    def clear(self) -> None:
        """Forget every learner (their states are read again at their next pick)."""
        self._drop_kept()
        self._drop_pending()

    def _drop_kept(self) -> None:
        # Everything kept across transactions: one list, so that nothing kept is missed.
        self._learners.clear()
        self._users.clear()
        self._tallies.clear()
        self._deliveries.clear()

    def _drop_pending(self) -> None:
        self._pending.clear()
        self._pending_users.clear()
        self._pending_deliveries.clear()

    def upsert_user_prefs(
        self, conn: sqlite3.Connection, user: Learner, now: float
    ) -> sql.UserPrefs:
        """`practice_sql.upsert_user_prefs`, without the statement when the last upsert that
        committed wrote the same fields at the same time (the row stands as it would write it)."""
        args: UserArgs = (user.id, user.first_name, user.username, user.language, now)
        kept = self._users.get(user.id)
        if kept is not None and kept[0] == args:
            return kept[1]
        prefs, confidence = sql.upsert_user_settings(conn, user, now)
        self._pending_users.append((args, prefs, confidence))
        return prefs

    def delivered(self, record: DeliveryRecord) -> None:
        """A delivery was recorded as `record` (pending until committed)."""
        self._pending_deliveries.append(record)

    def answer_context(
        self, conn: sqlite3.Connection, delivery_id: int, user_id: int
    ) -> AnswerContext | None:
        """`answer_sql.answer_context`, from what is kept when the delivery, the user's row
        and the learner's states all are (read otherwise)."""
        record, user = self._deliveries.get(delivery_id), self._users.get(user_id)
        if record is not None and user is not None:
            learner = self._learners.get((user_id, record.bank_id))
            if learner is not None and record.question_id not in learner.stale:
                _, prefs, confidence = user
                state = learner.memory.get(record.question_id)
                return AnswerContext(record, confidence, prefs.timezone, state)
        return answer_sql.answer_context(conn, delivery_id, user_id)

    def probe_tally(self, conn: sqlite3.Connection, bank_id: str) -> ProbeTally:
        """`forgetting_sql.probe_tally`, read once and kept until an answer counts a probe."""
        tally = self._tallies.get(bank_id)
        if tally is None:
            tally = self._tallies[bank_id] = forgetting_sql.probe_tally(conn, bank_id)
        return tally

    def probe_counted(self, bank_id: str) -> None:
        """An answer added a probe to the bank's tally: read it again (a rolled-back answer
        costs a read, never a wrong tally)."""
        self._tallies.pop(bank_id, None)

    def settle(self, conn: sqlite3.Connection) -> None:
        """At the end of a transaction that used the cache: its writes are accounted for."""
        self._changes = conn.total_changes

    def holds(self, user_id: int, bank_id: str) -> bool:
        """Whether the learner's states are kept (read since the last time it was emptied)."""
        return (user_id, bank_id) in self._learners

    def memory_states(
        self, conn: sqlite3.Connection, user_id: int, bank_id: str
    ) -> dict[str, MemoryState]:
        """The learner's memory states in the bank, as `learning_sql.memory_states` reads them
        (do not change the mapping returned)."""
        key = (user_id, bank_id)
        learner = self._learners.get(key)
        if learner is None:
            if len(self._learners) >= KEPT_LEARNERS:
                # What is pending for it is skipped when committed: it is read again anyway.
                del self._learners[next(iter(self._learners))]
            learner = self._learners[key] = _Learner(lsql.memory_states(conn, user_id, bank_id))
        elif learner.stale:
            memory, added = learner.memory, False
            for question_id in learner.stale:
                state = lsql.memory_state(conn, user_id, bank_id, question_id)
                if state is None:
                    added |= memory.pop(question_id, None) is not None
                else:
                    added |= question_id not in memory
                    memory[question_id] = state
            learner.stale.clear()
            if added:
                # The table's key order, as a full read returns it (sums over the states are
                # then added in the same order, to the last bit).
                learner.memory = dict(sorted(memory.items()))
        return learner.memory

    def misconception_states(
        self, conn: sqlite3.Connection, user_id: int, bank_id: str
    ) -> dict[str, MisconceptionState]:
        """The learner's misconception states in the bank (do not change the mapping)."""
        learner = self._learners.get((user_id, bank_id))
        if learner is None:
            return lsql.misconception_states(conn, user_id, bank_id)
        if learner.misconceptions is None:
            learner.misconceptions = lsql.misconception_states(conn, user_id, bank_id)
        return learner.misconceptions

    def exam_date(self, conn: sqlite3.Connection, user_id: int, bank_id: str) -> dt.date | None:
        """The learner's exam date, as `learning_sql.exam_date` reads it (read once, kept:
        setting it is a write the cache is not told about, which empties it)."""
        learner = self._learners.get((user_id, bank_id))
        if learner is None:
            return lsql.exam_date(conn, user_id, bank_id)
        if not learner.exam_read:
            learner.exam_date, learner.exam_read = lsql.exam_date(conn, user_id, bank_id), True
        return learner.exam_date

    def last_question(self, conn: sqlite3.Connection, user_id: int, bank_id: str) -> str | None:
        """The question last asked, as `learning_sql.last_question` reads it (read once,
        then the one each confirmed `recorded` names)."""
        learner = self._learners.get((user_id, bank_id))
        if learner is None:
            return lsql.last_question(conn, user_id, bank_id)
        if not learner.last_read:
            learner.last_question = lsql.last_question(conn, user_id, bank_id)
            learner.last_read = True
        return learner.last_question

    def pick_memo(self, user_id: int, bank_id: str) -> PickMemo | None:
        """What the learner's last picks computed (`bot.learning.pick_memo`; exact whatever
        changed since, as it tells states apart itself), while the learner is kept."""
        learner = self._learners.get((user_id, bank_id))
        return None if learner is None else learner.memo

    def recorded(self, user_id: int, bank_id: str, question_id: str) -> None:
        """A delivery of this question to the learner was recorded (pending until committed)."""
        self._pending.append(_Written((user_id, bank_id), question_id))

    def answered(
        self, user_id: int, bank_id: str, question_id: str, *, misconceptions: bool
    ) -> None:
        """An answer (maybe) changed this question's state, and with `misconceptions` the
        learner's misconception states: read them again at the next pick."""
        learner = self._learners.get((user_id, bank_id))
        if learner is None:
            return
        learner.stale.add(question_id)
        if misconceptions:
            learner.misconceptions = None

    def stored(self, user_id: int, bank_id: str, question_id: str, state: MemoryState) -> None:
        """The answered question's new state as written (pending until committed): once
        taken in, its row is not read again."""
        self._pending.append(_Written((user_id, bank_id), question_id, state))

    def stored_misconceptions(
        self, user_id: int, bank_id: str, states: dict[str, MisconceptionState]
    ) -> None:
        """All of the learner's misconception states after an answer, as stored (pending
        until committed): once taken in, they are not read again."""
        self._pending.append(_Written((user_id, bank_id), "", misconceptions=states))

    def committed(self) -> None:
        """The transaction that wrote what is pending was committed: take it in."""
        for written in self._pending:
            learner = self._learners.get(written.key)
            if learner is None:
                continue
            if written.misconceptions is not None:
                # Keyed as a read returns them (the table's key order).
                learner.misconceptions = dict(sorted(written.misconceptions.items()))
            elif written.state is None:
                learner.last_question, learner.last_read = written.question_id, True
            elif written.question_id in learner.stale:
                memory, question_id = learner.memory, written.question_id
                added = question_id not in memory
                memory[question_id] = written.state
                learner.stale.discard(question_id)
                if added:
                    learner.memory = dict(sorted(memory.items()))  # as memory_states does
        self._pending.clear()
        for row in self._pending_users:
            self._users[row[0][0]] = row
        self._pending_users.clear()
        deliveries = self._deliveries
        for record in self._pending_deliveries:
            deliveries[record.id] = record
            if len(deliveries) > KEPT_DELIVERIES:
                del deliveries[next(iter(deliveries))]  # the oldest
        self._pending_deliveries.clear()
