"""SQL behind the bot's abuse rules: one result per button, a group's question pace, and a
learner's reset of one exam's history. Plain sync functions run by `Database.write`/`read`."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.dialect import of
from bot.storage.learner_lock import lock_learner
from bot.storage.port import Connection


@dataclass(frozen=True, slots=True)
class LastQuestion:
    """The newest posted question of a group: when it went out, and whether it is still open."""

    delivery_id: int
    sent_at: float
    open: bool


def claim_button(
    conn: Connection, chat_id: int, delivery_id: int, button: str, now: float
) -> bool | None:
    """True for the first press of this button under this delivery, False for any repeat,
    None when the chat has no such delivery (forged data must not use up someone's button)."""
    found = conn.execute(
        "SELECT 1 FROM deliveries WHERE id = ? AND chat_id = ?", (delivery_id, chat_id)
    ).fetchone()
    if found is None:
        return None
    cur = conn.execute(
        "INSERT INTO button_uses (delivery_id, button, used_at) VALUES (?, ?, ?)"
        " ON CONFLICT (delivery_id, button) DO NOTHING",
        (delivery_id, button, now),
    )
    return cur.rowcount == 1


def release_button(conn: Connection, delivery_id: int, button: str) -> None:
    """The press could not be served (the send failed): let the next press try again."""
    conn.execute(
        "DELETE FROM button_uses WHERE delivery_id = ? AND button = ?", (delivery_id, button)
    )


def last_group_question(conn: Connection, chat_id: int, now: float) -> LastQuestion | None:
    """The chat's newest windowed question (posted or in flight), if any."""
    row = conn.execute(
        "SELECT id, sent_at, closes_at, closed_at FROM deliveries"
        " WHERE chat_id = ? AND closes_at IS NOT NULL ORDER BY id DESC LIMIT 1",
        (chat_id,),
    ).fetchone()
    if row is None:
        return None
    is_open = row["closed_at"] is None and row["closes_at"] > now
    return LastQuestion(row["id"], row["sent_at"], is_open)


# Keyed by user and bank but settings, not history: a reset leaves them alone. Tables keyed by
# user without a bank (the streak's learner_days, a group's member_totals) are not per exam and
# stay too; tests/test_reset.py lists the decision for every table with a user_id. A learner's
# reports of bad questions are about the bank, not their practice: they stay, and still count
# once.
NOT_HISTORY = frozenset(
    {
        "subscriptions",
        "push_log",
        "users",
        "chats",
        "deliveries",
        "question_reports",
        "memory_params",
        "memory_versions",
    }
)


def _history_tables(conn: Connection) -> list[str]:
    """Every table with both a user_id and a bank_id column, settings excepted."""
    d = of(conn)
    names = [r["name"] for r in conn.execute(d.tables())]
    found = []
    for name in names:
        columns = set(d.columns(conn, name))
        if {"user_id", "bank_id"} <= columns and name not in NOT_HISTORY:
            found.append(name)
    return found


# A learner's answers in their private chat (a private chat's id is the user's).
_PRIVATE = " AND chat_id = user_id"


def reset_history(conn: Connection, user_id: int, bank_id: str) -> int:
    """Forget a learner's practice in one bank; returns how many answers went.

    Answers, toggled choices, private deliveries, mock exams and any per-user memory a later
    migration keeps for the bank (every table with user_id and bank_id columns, found by name
    so the reset stays complete as the schema grows). Group questions and the learner's
    answers to them stay: they belong to the group, whose leaderboard counts each member's
    one answer to a question (forgotten, it could be given again and counted twice).
    """
    # The learner's lock, as an answer and the nightly restate take it: a restate that read
    # the states before this deletes them must not write them back after.
    lock_learner(conn, user_id)
    answers = conn.execute(
        f"SELECT COUNT(*) FROM answers WHERE user_id = ? AND bank_id = ?{_PRIVATE}",
        (user_id, bank_id),
    ).fetchone()[0]
    conn.execute(
        "DELETE FROM pending_choices WHERE user_id = ? AND delivery_id IN"
        " (SELECT id FROM deliveries WHERE bank_id = ?)",
        (user_id, bank_id),
    )
    for table in _history_tables(conn):
        private = _PRIVATE if table == "answers" else ""
        conn.execute(
            f'DELETE FROM "{table}" WHERE user_id = ? AND bank_id = ?{private}',
            (user_id, bank_id),
        )
    # A private delivery a daily push log still points at keeps its row (the log is the
    # at-least-once record of what was sent); its answers went above, so it counts no more.
    conn.execute(
        "DELETE FROM deliveries WHERE user_id = ? AND bank_id = ?"
        " AND id NOT IN (SELECT delivery_id FROM push_log WHERE delivery_id IS NOT NULL)",
        (user_id, bank_id),
    )
    return int(answers)
