"""What to ask next and the delivery that records it: the one implementation behind /quiz,
Next question, the daily push (private and group) and /quiz in a group.

Plain sync functions on a connection, so a caller's transaction (an answer, a batch of push
claims) picks without another round trip.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping

from bot.bank.models import Bank, Question
from bot.domain.kinds import Source
from bot.domain.models import Delivery
from bot.domain.selection import Seen, choose_next
from bot.practice.catalog import Catalog
from bot.storage import practice_sql as sql
from bot.storage.practice_sql import DeliveryRecord


def pick_and_record(
    conn: sqlite3.Connection,
    bank: Bank,
    topic: str | None,
    history: Mapping[str, Seen],
    rng: random.Random,
    *,
    chat_id: int,
    user_id: int | None,
    source: Source,
    now: float,
    closes_at: float | None = None,
) -> Delivery | None:
    """Choose among the topic's questions (all of the bank's if the topic is gone or empty)
    by the `choose_next` rule and record the delivery; None if the bank has no question."""
    topic = topic if topic and bank.meta.topic(topic) else None
    candidates = [q.id for q in bank.in_topic(topic)] or list(bank.questions)
    qid = choose_next(candidates, history, rng)
    if qid is None:
        return None
    did = sql.insert_delivery(
        conn,
        chat_id=chat_id,
        user_id=user_id,
        bank_id=bank.id,
        question_id=qid,
        source=source,
        now=now,
        closes_at=closes_at,
    )
    record = DeliveryRecord(
        did, chat_id, None, user_id, bank.id, qid, source, now, closes_at, None, None
    )
    return delivery_from(record, bank.questions[qid])


def delivery_of(catalog: Catalog, record: DeliveryRecord) -> Delivery | None:
    """The delivery of a stored row, or None when its question left the bank."""
    question = catalog.question(record.bank_id, record.question_id)
    return None if question is None else delivery_from(record, question)


def delivery_from(record: DeliveryRecord, question: Question) -> Delivery:
    """A stored row with its question: the one place a Delivery is built."""
    return Delivery(
        id=record.id,
        chat_id=record.chat_id,
        bank_id=record.bank_id,
        question=question,
        source=record.source,
        audience=record.audience,
        sent_at=record.sent_at,
        message_id=record.message_id,
        closes_at=record.closes_at,
    )
