"""SQL of groups and channels: chat settings, the group chooser, reveals, leaderboards and
migrations. Plain sync functions run by `Database.write`/`read`, one transaction each; they
return frozen dataclasses, never `Row`."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.port import Connection

CHAT_FIELDS = (
    "id, type, title, active, bank_id, topic, answer_window_s, leaderboard, poll_mode,"
    " migrated_to, tz"
)
# Settings a chat may change; the names come from this tuple only, never from input.
SETTINGS = frozenset({"answer_window_s", "leaderboard", "poll_mode", "tz", "bank_id", "topic"})


@dataclass(frozen=True, slots=True)
class ChatRecord:
    """A `chats` row; None in a setting means "the configured default"."""

    id: int
    type: str
    title: str | None
    active: bool
    bank_id: str | None
    topic: str | None
    answer_window_s: int | None
    leaderboard: bool
    poll_mode: str
    migrated_to: int | None
    tz: str | None


def chat_record(conn: Connection, chat_id: int) -> ChatRecord | None:
    """One chat, or None if the bot never heard of it."""
    row = conn.execute(f"SELECT {CHAT_FIELDS} FROM chats WHERE id = ?", (chat_id,)).fetchone()
    if row is None:
        return None
    cid, kind, title, active, bank_id, topic, window, board, mode, migrated, tz = row
    return ChatRecord(
        cid, kind, title, bool(active), bank_id, topic, window, bool(board), mode, migrated, tz
    )


def set_setting(conn: Connection, chat_id: int, name: str, value: object, now: float) -> None:
    """Change one setting of a chat (the chat row must exist)."""
    if name not in SETTINGS:
        raise ValueError(f"not a chat setting: {name}")
    conn.execute(
        f"UPDATE chats SET {name} = ?, updated_at = ? WHERE id = ?", (value, now, chat_id)
    )


def set_active(conn: Connection, chat_id: int, active: bool, now: float) -> None:
    conn.execute(
        "UPDATE chats SET active = ?, updated_at = ? WHERE id = ?", (int(active), now, chat_id)
    )


def asked_in_chat(conn: Connection, chat_id: int, bank_id: str) -> dict[str, float]:
    """Question id -> last time it was asked in this chat."""
    rows = conn.execute(
        "SELECT question_id, MAX(sent_at) FROM deliveries WHERE chat_id = ? AND bank_id = ?"
        " GROUP BY question_id",
        (chat_id, bank_id),
    )
    return {r[0]: r[1] for r in rows}


def unrevealed_in_chat(conn: Connection, chat_id: int) -> list[int]:
    """Posted windowed deliveries of a chat not yet revealed, oldest first.

    One whose message has not arrived yet (`message_id` NULL: the send is in flight, or
    failed) is left out: revealing it now would close it before its buttons show up, and no
    reveal would follow. The sweep reveals it once its message is recorded.
    """
    rows = conn.execute(
        "SELECT id FROM deliveries WHERE chat_id = ? AND closes_at IS NOT NULL"
        " AND revealed_at IS NULL AND message_id IS NOT NULL ORDER BY id",
        (chat_id,),
    )
    return [r[0] for r in rows]


def due_for_reveal(conn: Connection, now: float) -> list[int]:
    """Posted windowed deliveries whose window is over (or closed early), not yet revealed.

    Without a message (in flight, or never accepted) there is nothing to reveal yet; leaving
    those out also keeps a push that failed for good from being looked at every sweep.
    """
    rows = conn.execute(
        "SELECT id FROM deliveries WHERE closes_at IS NOT NULL AND revealed_at IS NULL"
        " AND message_id IS NOT NULL AND (closes_at <= ? OR closed_at IS NOT NULL)"
        " ORDER BY closes_at",
        (now,),
    )
    return [r[0] for r in rows]


def open_windows(conn: Connection, now: float) -> list[tuple[int, float]]:
    """(delivery id, closes_at) of windows still open: their close jobs after a restart."""
    rows = conn.execute(
        "SELECT id, closes_at FROM deliveries WHERE closes_at IS NOT NULL"
        " AND revealed_at IS NULL AND closed_at IS NULL AND closes_at > ?",
        (now,),
    )
    return [(r[0], r[1]) for r in rows]


def claim_reveal(conn: Connection, delivery_id: int, now: float) -> bool:
    """Close a delivery and claim its reveal; False if revealed already or not posted yet.

    A delivery whose message has not arrived (`message_id` NULL) is never claimed: its send
    is in flight and would land with live buttons after a reveal that edited nothing.
    """
    cur = conn.execute(
        "UPDATE deliveries SET revealed_at = ?, closed_at = COALESCE(closed_at, ?)"
        " WHERE id = ? AND revealed_at IS NULL AND message_id IS NOT NULL",
        (now, now, delivery_id),
    )
    return cur.rowcount == 1


def is_revealed(conn: Connection, delivery_id: int) -> bool:
    row = conn.execute(
        "SELECT revealed_at FROM deliveries WHERE id = ?", (delivery_id,)
    ).fetchone()
    return row is not None and row[0] is not None


def release_reveal(conn: Connection, delivery_id: int) -> None:
    """Give a claimed reveal back (its edit failed for a passing reason) for the next sweep.

    `closed_at` stays: the question takes no more answers, and the sweep finds it due.
    """
    conn.execute("UPDATE deliveries SET revealed_at = NULL WHERE id = ?", (delivery_id,))


def discard_delivery(conn: Connection, delivery_id: int) -> None:
    """Forget a delivery Telegram never accepted (no answers can exist)."""
    conn.execute("DELETE FROM deliveries WHERE id = ? AND message_id IS NULL", (delivery_id,))


def set_poll(conn: Connection, delivery_id: int, message_id: int, poll_id: str) -> None:
    conn.execute(
        "UPDATE deliveries SET message_id = ?, poll_id = ? WHERE id = ?",
        (message_id, poll_id, delivery_id),
    )


def delivery_by_poll(conn: Connection, poll_id: str) -> tuple[int, int] | None:
    """(delivery id, chat id) of a native quiz poll."""
    row = conn.execute("SELECT id, chat_id FROM deliveries WHERE poll_id = ?", (poll_id,))
    found = row.fetchone()
    return None if found is None else (int(found[0]), int(found[1]))


def chosen_of_delivery(conn: Connection, delivery_id: int) -> list[str]:
    """Every member's recorded choice (encoded) for one delivery."""
    rows = conn.execute("SELECT chosen FROM answers WHERE delivery_id = ?", (delivery_id,))
    return [r[0] for r in rows]
