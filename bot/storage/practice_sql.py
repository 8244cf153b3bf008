"""SQL of the practice loop: users, deliveries and answers. Plain sync functions on a connection,
run by `Database.write`/`read` so that each service call is one transaction in one round trip.
They return frozen dataclasses, never `Row`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.domain.grading import decode_choice
from bot.domain.kinds import Audience, Source
from bot.domain.models import Learner
from bot.storage import summaries
from bot.storage.dialect import Dialect, Statement
from bot.storage.port import Connection
from bot.storage.summaries import UNREAD, Unread


@dataclass(frozen=True, slots=True)
class DeliveryRecord:
    """A `deliveries` row."""

    id: int
    chat_id: int
    message_id: int | None
    user_id: int | None
    bank_id: str
    question_id: str
    source: Source
    sent_at: float
    closes_at: float | None
    closed_at: float | None
    poll_id: str | None
    option_order: str | None = None  # file indices in display order; None: file order
    version: str | None = None  # content hash of the question as shown
    token: str | None = None  # random, in the buttons: a restored copy cannot match it

    @property
    def audience(self) -> Audience:
        """Private practice names its learner; a group's question is for every member."""
        return Audience.PRIVATE if self.user_id is not None else Audience.GROUP

    def is_closed(self, now: float) -> bool:
        """Closed early, or its answer window is over."""
        return self.closed_at is not None or (self.closes_at is not None and now >= self.closes_at)


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    """A user's recorded answer to one delivery."""

    chosen: frozenset[int]
    correct: bool


@dataclass(frozen=True, slots=True)
class TopicTotal:
    """A user's answers in one topic."""

    topic: str
    answered: int
    correct: int


@dataclass(frozen=True, slots=True)
class BankTotal:
    """A user's answers in one bank (exam)."""

    bank_id: str
    answered: int
    correct: int


def upsert_user(conn: Connection, user: Learner, now: float, started: bool = False) -> None:
    """Create or refresh a user row (name changes follow the user)."""
    conn.execute(
        _UPSERT_USER(conn),
        (user.id, user.first_name, user.username, user.language, int(started), now, now),
    )


def _upsert_user(d: Dialect) -> str:
    return (
        "INSERT INTO users (id, first_name, username, language, started, created_at,"
        " seen_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET first_name = excluded.first_name,"
        " username = excluded.username, language = COALESCE(excluded.language, users.language),"
        f" started = {d.greatest('users.started', 'excluded.started')}, seen_at = excluded.seen_at"
    )


_UPSERT_USER = Statement(_upsert_user)


_UPSERT_USER_RETURNING = Statement(
    lambda d: _upsert_user(d) + " RETURNING bank_id, topic, timezone, confidence"
)


def upsert_user_prefs(conn: Connection, user: Learner, now: float) -> UserPrefs:
    """`upsert_user`, returning the user's chosen bank, topic and timezone (`user_prefs`)
    from the same statement."""
    return upsert_user_settings(conn, user, now)[0]


# seen_at is refreshed at most this often: a pick that finds the user's row as it would write
# it reads it and leaves the row (and its page) alone.
SEEN_EVERY_S = 3600.0


def upsert_user_settings(conn: Connection, user: Learner, now: float) -> tuple[UserPrefs, bool]:
    """`upsert_user_prefs`, and whether Sure/Unsure is asked (`learning_sql.learning_prefs`).
    Nothing is written when the user's names are as stored and seen_at is recent."""
    row = conn.execute(
        "SELECT bank_id, topic, timezone, confidence, first_name, username, language, seen_at"
        " FROM users WHERE id = ?",
        (user.id,),
    ).fetchone()
    if (
        row is not None
        and row[4] == user.first_name
        and row[5] == user.username
        and (user.language is None or row[6] == user.language)
        and 0 <= now - row[7] < SEEN_EVERY_S
    ):
        return UserPrefs(row[0], row[1], row[2]), bool(row[3])
    rows = conn.execute(
        _UPSERT_USER_RETURNING(conn),
        (user.id, user.first_name, user.username, user.language, 0, now, now),
    ).fetchall()
    bank_id, topic, timezone, confidence = rows[0]
    return UserPrefs(bank_id, topic, timezone), bool(confidence)


def upsert_chat(
    conn: Connection, chat_id: int, chat_type: str, title: str | None, now: float
) -> None:
    """Create or refresh a chat row; a chat we hear from is active again."""
    conn.execute(
        "INSERT INTO chats (id, type, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET type = excluded.type, title = excluded.title,"
        " active = 1, updated_at = excluded.updated_at",
        (chat_id, chat_type, title, now, now),
    )


@dataclass(frozen=True, slots=True)
class UserPrefs:
    bank_id: str | None
    topic: str | None
    timezone: str | None


def user_prefs(conn: Connection, user_id: int) -> UserPrefs:
    """A user's chosen bank, topic and timezone (all None for a stranger)."""
    row = conn.execute(
        "SELECT bank_id, topic, timezone FROM users WHERE id = ?", (user_id,)
    ).fetchone()
    if row is None:
        return UserPrefs(None, None, None)
    return UserPrefs(row[0], row[1], row[2])


def has_started(conn: Connection, user_id: int) -> bool:
    """Whether the user opened a private chat with the bot (so it may write to them)."""
    row = conn.execute("SELECT started FROM users WHERE id = ?", (user_id,)).fetchone()
    return row is not None and bool(row[0])


def set_user_timezone(conn: Connection, user_id: int, timezone: str, now: float) -> None:
    """Remember a user's IANA zone (streaks, the daily push)."""
    conn.execute(
        "INSERT INTO users (id, timezone, created_at, seen_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET timezone = excluded.timezone",
        (user_id, timezone, now, now),
    )


def set_user_topic(
    conn: Connection, user_id: int, bank_id: str, topic: str | None, now: float
) -> None:
    """Remember a user's bank and topic (None: all topics)."""
    conn.execute(
        "INSERT INTO users (id, bank_id, topic, created_at, seen_at) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET bank_id = excluded.bank_id, topic = excluded.topic",
        (user_id, bank_id, topic, now, now),
    )


def insert_delivery(
    conn: Connection,
    *,
    chat_id: int,
    user_id: int | None,
    bank_id: str,
    question_id: str,
    source: Source,
    now: float,
    closes_at: float | None = None,
    option_order: str | None = None,
    version: str | None = None,
    token: str | None = None,
) -> int:
    """A new delivery row (message id comes later, once Telegram accepted it)."""
    cur = conn.execute(
        "INSERT INTO deliveries (chat_id, user_id, bank_id, question_id, source, sent_at,"
        " closes_at, option_order, version, token) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " RETURNING id",
        (
            chat_id,
            user_id,
            bank_id,
            question_id,
            source,
            now,
            closes_at,
            option_order,
            version,
            token,
        ),
    )
    return int(cur.fetchone()[0])


def set_delivery_message(conn: Connection, delivery_id: int, message_id: int) -> None:
    conn.execute("UPDATE deliveries SET message_id = ? WHERE id = ?", (message_id, delivery_id))


DELIVERY_COLUMNS = (
    "id", "chat_id", "message_id", "user_id", "bank_id", "question_id", "source", "sent_at",
    "closes_at", "closed_at", "poll_id", "option_order", "version", "token",
)  # fmt: skip


def delivery_record(conn: Connection, delivery_id: int) -> DeliveryRecord | None:
    """One delivery, or None."""
    row = conn.execute(
        f"SELECT {', '.join(DELIVERY_COLUMNS)} FROM deliveries WHERE id = ?", (delivery_id,)
    ).fetchone()
    return None if row is None else delivery_of_row(row)


def delivery_of_row(row: Sequence[Any]) -> DeliveryRecord:
    """A DeliveryRecord from the DELIVERY_COLUMNS of a row, in that order."""
    did, chat_id, message_id, user_id, bank_id, question_id, source, *rest = row
    sent_at, closes_at, closed_at, poll_id, option_order, version, token = rest
    return DeliveryRecord(
        did, chat_id, message_id, user_id, bank_id, question_id, Source(source),
        sent_at, closes_at, closed_at, poll_id, option_order, version, token,
    )  # fmt: skip


def insert_answer(
    conn: Connection,
    *,
    delivery: DeliveryRecord,
    user_id: int,
    topic: str,
    chosen: str,
    correct: bool,
    now: float,
    confidence: str | None = None,
    default_timezone: str = "UTC",
    seconds: float | None = None,
    timezone: str | Unread | None = UNREAD,
) -> bool:
    """Record an answer (chosen in FILE order; response time as the client measured it, else
    from the delivery; never graded) and count it in the summaries; False when this user had
    already answered this delivery. `default_timezone`: the zone of a learner or chat that set
    none; `timezone`: the learner's own, when the caller has read it already."""
    cur = conn.execute(
        "INSERT INTO answers (delivery_id, user_id, chat_id, bank_id, question_id, topic, chosen,"
        " correct, answered_at, time_to_answer_ms, confidence)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (delivery_id, user_id) DO NOTHING",
        (
            delivery.id,
            user_id,
            delivery.chat_id,
            delivery.bank_id,
            delivery.question_id,
            topic,
            chosen,
            int(correct),
            now,
            max(0, round(((now - delivery.sent_at) if seconds is None else seconds) * 1000)),
            confidence,
        ),
    )
    if cur.rowcount != 1:
        return False
    summaries.add_answer(
        conn,
        user_id=user_id,
        chat_id=delivery.chat_id,
        bank_id=delivery.bank_id,
        topic=topic,
        correct=correct,
        now=now,
        default_timezone=default_timezone,
        timezone=timezone,
    )
    return True


def existing_answer(conn: Connection, delivery_id: int, user_id: int) -> AnswerRecord | None:
    """The answer this user gave to this delivery, or None."""
    row = conn.execute(
        "SELECT chosen, correct FROM answers WHERE delivery_id = ? AND user_id = ?",
        (delivery_id, user_id),
    ).fetchone()
    return None if row is None else AnswerRecord(decode_choice(row[0]), bool(row[1]))


def answer_count(conn: Connection, delivery_id: int) -> int:
    row = conn.execute("SELECT COUNT(*) FROM answers WHERE delivery_id = ?", (delivery_id,))
    return int(row.fetchone()[0])


def pending_choice(conn: Connection, delivery_id: int, user_id: int) -> str:
    row = conn.execute(
        "SELECT chosen FROM pending_choices WHERE delivery_id = ? AND user_id = ?",
        (delivery_id, user_id),
    ).fetchone()
    return str(row[0]) if row else ""


def set_pending_choice(conn: Connection, delivery_id: int, user_id: int, chosen: str) -> None:
    conn.execute(
        "INSERT INTO pending_choices (delivery_id, user_id, chosen) VALUES (?, ?, ?)"
        " ON CONFLICT (delivery_id, user_id) DO UPDATE SET chosen = excluded.chosen",
        (delivery_id, user_id, chosen),
    )


def swap_pending_choice(
    conn: Connection, delivery_id: int, user_id: int, seen: str, chosen: str
) -> bool:
    """Store `chosen` if the toggled options are still `seen` ("": none, with or without a
    row); False, with nothing written, when another writer changed them since they were read."""
    if seen:
        cur = conn.execute(
            "UPDATE pending_choices SET chosen = ?"
            " WHERE delivery_id = ? AND user_id = ? AND chosen = ?",
            (chosen, delivery_id, user_id, seen),
        )
    else:
        cur = conn.execute(
            "INSERT INTO pending_choices (delivery_id, user_id, chosen) VALUES (?, ?, ?)"
            " ON CONFLICT (delivery_id, user_id) DO UPDATE SET chosen = excluded.chosen"
            " WHERE pending_choices.chosen = ''",
            (delivery_id, user_id, chosen),
        )
    return cur.rowcount == 1


def clear_pending_choice(conn: Connection, delivery_id: int, user_id: int) -> None:
    conn.execute(
        "DELETE FROM pending_choices WHERE delivery_id = ? AND user_id = ?", (delivery_id, user_id)
    )


def topic_totals(conn: Connection, user_id: int, bank_id: str) -> list[TopicTotal]:
    """A user's answers per topic of one bank, by topic id (from the summary: O(topics))."""
    rows = conn.execute(
        "SELECT topic, answered, correct FROM learner_topics"
        " WHERE user_id = ? AND bank_id = ? ORDER BY topic",
        (user_id, bank_id),
    )
    return [TopicTotal(topic, answered, correct) for topic, answered, correct in rows]


def bank_totals(conn: Connection, user_id: int) -> list[BankTotal]:
    """A user's answers per bank (exam), by bank id (from the summary: O(topics))."""
    rows = conn.execute(
        "SELECT bank_id, SUM(answered), SUM(correct) FROM learner_topics"
        " WHERE user_id = ? GROUP BY bank_id ORDER BY bank_id",
        (user_id,),
    )
    return [BankTotal(bank, answered, correct) for bank, answered, correct in rows]
