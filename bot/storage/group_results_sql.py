"""SQL of a group's results: each member's answers in the chat, per bank and topic."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.port import Connection


@dataclass(frozen=True, slots=True)
class MemberTopic:
    """One member's answers in one chat on one topic."""

    user_id: int
    first_name: str
    username: str | None
    bank_id: str
    topic: str
    answered: int
    correct: int
    last_at: float


def member_topics(conn: Connection, chat_id: int) -> list[MemberTopic]:
    """Every member who answered in the chat, one row per bank and topic (the answers kept)."""
    rows = conn.execute(
        "SELECT a.user_id, COALESCE(u.first_name, ''), u.username, a.bank_id, a.topic,"
        " COUNT(*), SUM(a.correct), MAX(a.answered_at)"
        " FROM answers a LEFT JOIN users u ON u.id = a.user_id"
        # u's columns follow a.user_id; PostgreSQL wants them named in the GROUP BY.
        " WHERE a.chat_id = ? GROUP BY a.user_id, a.bank_id, a.topic, u.first_name, u.username"
        " ORDER BY a.user_id, a.bank_id, a.topic",
        (chat_id,),
    )
    return [MemberTopic(*row) for row in rows]
