"""A group upgraded to a supergroup gets a new chat id: everything keyed by the old id follows.

One function for every part of the bot that learns of the upgrade (the migrate service message,
a ChatMigrated error during a push or a reply), so settings, history, subscriptions and the
push log always move together.
"""

from __future__ import annotations

from bot.storage import summaries
from bot.storage.group_sql import chat_record
from bot.storage.port import Connection

# History that keeps every row and only changes its chat id, in this order: answers are found
# through their deliveries before those move (an answer carries its delivery's chat, and no
# index of answers by chat is kept for this rare move: every answer would pay for it).
MOVED_WITH_CHAT = ("answers", "deliveries", "mock_exams")
_MOVED_WHERE = {
    "answers": "chat_id = :old AND delivery_id IN (SELECT id FROM deliveries WHERE chat_id = :old)"
}
# Tables beyond chats, deliveries and answers that key rows by chat, with the columns that
# complete their unique key. A migration that adds another such table adds it here
# (tests/test_storage.py checks the schema against this list).
CHAT_KEYED_TABLES = {"subscriptions": (), "push_log": ("local_date",)}
# Counts keyed by chat: added to whatever the new id already counts (summaries.merge_chat).
MERGED_WITH_CHAT = ("member_totals",)


def migrate_chat(conn: Connection, old_id: int, new_id: int, now: float) -> bool:
    """Move a group's settings and history to its supergroup id; False if nothing moved.

    Idempotent, and complete even when another part of the bot (the daily push, on a failed
    send) already moved the chat row: questions and answers are moved whenever any are left.
    """
    old = chat_record(conn, old_id)
    changed = False
    if old is not None and old.migrated_to != new_id:
        conn.execute(
            "INSERT INTO chats (id, type, title, active, bank_id, topic, answer_window_s,"
            " leaderboard, poll_mode, tz, created_at, updated_at)"
            " SELECT ?, 'supergroup', title, 1, bank_id, topic, answer_window_s, leaderboard,"
            " poll_mode, tz, created_at, ? FROM chats WHERE id = ?"
            " ON CONFLICT (id) DO UPDATE SET bank_id = COALESCE(chats.bank_id, excluded.bank_id),"
            " topic = COALESCE(chats.topic, excluded.topic),"
            " answer_window_s = COALESCE(chats.answer_window_s, excluded.answer_window_s),"
            " leaderboard = excluded.leaderboard, poll_mode = excluded.poll_mode,"
            " tz = COALESCE(chats.tz, excluded.tz), active = 1, updated_at = excluded.updated_at",
            (new_id, now, old_id),
        )
        conn.execute(
            "UPDATE chats SET migrated_to = ?, active = 0, updated_at = ? WHERE id = ?",
            (new_id, now, old_id),
        )
        changed = True
    # A question still open stays in the old group, which takes no more answers and whose
    # messages the supergroup cannot edit (its message ids are its own: a reveal there would
    # edit whatever message bears the same id). It moves closed, with nothing to reveal.
    conn.execute(
        "UPDATE deliveries SET closed_at = COALESCE(closed_at, ?), revealed_at = ?"
        " WHERE chat_id = ? AND revealed_at IS NULL",
        (now, now, old_id),
    )
    for table in MOVED_WITH_CHAT:
        where = _MOVED_WHERE.get(table, "chat_id = :old")
        cur = conn.execute(
            f"UPDATE {table} SET chat_id = :new WHERE {where}", {"new": new_id, "old": old_id}
        )
        changed = changed or cur.rowcount > 0
    summaries.merge_chat(conn, old_id, new_id)
    for table, key in CHAT_KEYED_TABLES.items():
        # A row the new id already has (say, a subscription made after the upgrade) wins over
        # the old one, which stays behind and is dropped.
        same = "".join(f" AND n.{c} = {table}.{c}" for c in key)
        cur = conn.execute(
            f"UPDATE {table} SET chat_id = :new WHERE chat_id = :old"
            f" AND NOT EXISTS (SELECT 1 FROM {table} n WHERE n.chat_id = :new{same})",
            {"new": new_id, "old": old_id},
        )
        conn.execute(f'DELETE FROM "{table}" WHERE chat_id = ?', (old_id,))
        changed = changed or cur.rowcount > 0
    return changed
