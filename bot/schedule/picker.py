"""Choosing the daily question for a private chat, inside the claim transaction.

The same what-to-ask-next rule as /quiz (`choose_next` over the learner's history in their
chosen bank and topic); it runs on the claim's connection so that a whole batch of picks costs
one round trip. Groups register their own picker for kind 'group' (see PushService).
"""

from __future__ import annotations

import random
import sqlite3

from bot.domain.selection import Seen, choose_next
from bot.practice.catalog import Catalog
from bot.schedule.delivery_log import DueRow, Picker
from bot.storage import practice_sql as sql


def private_picker(catalog: Catalog, rng: random.Random) -> Picker:
    """A picker for learners: their bank and topic, the /quiz rule, source 'daily'."""

    def pick(conn: sqlite3.Connection, row: DueRow, now: float) -> tuple[int, str, str] | None:
        user_id = row.user_id if row.user_id is not None else row.chat_id
        prefs = sql.user_prefs(conn, user_id)
        bank = catalog.bank(row.bank_id or prefs.bank_id)
        wanted = row.topic or prefs.topic
        topic = wanted if wanted and bank.meta.topic(wanted) else None
        candidates = [q.id for q in bank.in_topic(topic)] or list(bank.questions)
        history = {
            r["question_id"]: Seen(
                r["last_seen"], None if r["last_correct"] is None else bool(r["last_correct"])
            )
            for r in sql.history_rows(conn, user_id, bank.id)
        }
        qid = choose_next(candidates, history, rng)
        if qid is None:
            return None
        did = sql.insert_delivery(
            conn,
            chat_id=row.chat_id,
            user_id=user_id,
            bank_id=bank.id,
            question_id=qid,
            source="daily",
            now=now,
        )
        return did, bank.id, qid

    return pick
