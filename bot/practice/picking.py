"""What to ask next and the delivery that records it: the one implementation behind /quiz,
Next question, /mistakes, the daily push, `quizbot play` (the learning engine's study queue)
and /quiz in a group (the chat's own rotation: a group has no single learner).

Plain sync functions on a connection, so a caller's transaction (an answer, a batch of push
claims) picks without another round trip.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import secrets
import string
from collections.abc import Mapping
from functools import lru_cache
from zoneinfo import ZoneInfo

from bot.bank.models import Bank, Question
from bot.domain import display
from bot.domain.kinds import Source
from bot.domain.models import Delivery
from bot.domain.selection import Seen, choose_next
from bot.learning import queue
from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import mode_for
from bot.learning.memory import from_timestamp
from bot.learning.mistakes import next_mistake
from bot.practice.catalog import Catalog
from bot.storage import fit_sql
from bot.storage import learning_sql as lsql
from bot.storage import practice_sql as sql
from bot.storage.port import Connection
from bot.storage.practice_sql import DeliveryRecord

TOKEN_CHARS = string.ascii_lowercase + string.digits
TOKEN_LENGTH = 4


# Random bytes from the OS, drawn a few hundred at a time: secrets.choice reads the OS's
# randomness once per character, a system call each (most of a pick's own Python). A byte
# below 252 (7 × 36) picks a character uniformly; the rest are skipped.
_RANDOM_BYTES = bytearray()
_UNIFORM_BELOW = 256 - 256 % len(TOKEN_CHARS)
# A forked child (the bank loader's parse helper) must not hand out the parent's next tokens.
os.register_at_fork(after_in_child=_RANDOM_BYTES.clear)


def new_token() -> str:
    """A delivery's button token: random per delivery, so a restored copy of the database
    (which hands the same delivery ids out again) cannot match a newer message's buttons."""
    chars: list[str] = []
    while len(chars) < TOKEN_LENGTH:
        if not _RANDOM_BYTES:
            _RANDOM_BYTES.extend(secrets.token_bytes(256))
        byte = _RANDOM_BYTES.pop()
        if byte < _UNIFORM_BELOW:
            chars.append(TOKEN_CHARS[byte % len(TOKEN_CHARS)])
    return "".join(chars)


def record(
    conn: Connection,
    bank: Bank,
    question: Question,
    rng: random.Random,
    *,
    chat_id: int,
    user_id: int | None,
    source: Source,
    now: float,
    closes_at: float | None = None,
) -> Delivery:
    """Record a delivery of `question` with its own option order, version and token."""
    order = display.shuffled_order(question, rng)
    option_order, version = display.encode_order(order), display.question_version(question)
    token = new_token()
    did = sql.insert_delivery(
        conn,
        chat_id=chat_id,
        user_id=user_id,
        bank_id=bank.id,
        question_id=question.id,
        source=source,
        now=now,
        closes_at=closes_at,
        option_order=option_order,
        version=version,
        token=token,
    )
    row = DeliveryRecord(
        did, chat_id, None, user_id, bank.id, question.id, source, now, closes_at, None, None,
        option_order, version, token,
    )  # fmt: skip
    return delivery_from(row, question)


def pick_and_record(
    conn: Connection,
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
    """A group's rotation: among the topic's questions (all of the bank's if the topic is gone
    or empty) by the `choose_next` rule, recorded; None if the bank has no question."""
    topic = topic if topic and bank.meta.topic(topic) else None
    candidates = [q.id for q in bank.in_topic(topic)] or list(bank.questions)
    qid = choose_next(candidates, history, rng)
    if qid is None:
        return None
    return record(
        conn, bank, bank.questions[qid], rng,
        chat_id=chat_id, user_id=user_id, source=source, now=now, closes_at=closes_at,
    )  # fmt: skip


# A pure function of the time and zone: a simulated clock picks many times at one time.
@lru_cache(maxsize=1024)
def learner_today(now: float, timezone: str) -> tuple[dt.date, dt.datetime]:
    """The learner's local date and its start in UTC."""
    zone = ZoneInfo(timezone)
    local = dt.datetime.fromtimestamp(now, zone)
    start = dt.datetime.combine(local.date(), dt.time(), zone).astimezone(dt.UTC)
    return local.date(), start


def pick_for_learner(
    conn: Connection,
    catalog: Catalog,
    bank: Bank,
    rng: random.Random,
    *,
    user_id: int,
    chat_id: int,
    topic: str | None,
    source: Source,
    now: float,
    timezone: str,
    mistakes: bool = False,
    outside: frozenset[str] = frozenset(),
) -> Delivery | None:
    """The learner's next question by the study queue (`bot.learning.queue.choose_next`), or
    with `mistakes` the most forgotten question whose last answer was wrong; recorded.
    None when the topic has no question (or, with `mistakes`, no mistake is left).
    `outside`: questions never to pick (those of a mock exam the learner is sitting)."""
    topic = topic if topic and bank.meta.topic(topic) else None
    plan = catalog.blueprint(bank) if not outside else _plan_without(bank, outside)
    memory = lsql.memory_states(conn, user_id, bank.id)
    if outside:
        # The queue sees a bank without those questions, and their states with them.
        memory = {q: s for q, s in memory.items() if q not in outside}
    last = lsql.last_question(conn, user_id, bank.id)
    at = from_timestamp(now)
    if mistakes:
        qid = next_mistake(plan, memory, at, last_question_id=last, topic=topic)
    else:
        date, start = learner_today(now, timezone)
        learner = queue.Learner(
            memory=memory,
            today=queue.today_from_memory(memory, date, start),
            exam_date=lsql.exam_date(conn, user_id, bank.id),
            topic=topic if topic and plan.by_topic.get(topic) else None,
            misconceptions=lsql.misconception_states(conn, user_id, bank.id),
            last_question_id=last,
        )
        # The memory model the learner is on (their fit, the bank's, or FSRS-6's defaults).
        mode = mode_for(fit_sql.weights_for(conn, user_id, bank.id))
        pick = queue.choose_next(plan, learner, at, rng, mode=mode)
        qid = None if pick is None else pick.question_id
    if qid is None:
        return None
    delivery = record(
        conn, bank, bank.questions[qid], rng,
        chat_id=chat_id, user_id=user_id, source=source, now=now,
    )  # fmt: skip
    return delivery


# A mock exam is sat over an hour or two and practised beside a few times: one plan per bank
# and exam is kept while it runs.
_plans_without: dict[tuple[int, frozenset[str]], tuple[Bank, Blueprint]] = {}
PLANS_WITHOUT_KEPT = 64


def _plan_without(bank: Bank, outside: frozenset[str]) -> Blueprint:
    """The study queue's view of the bank without some of its questions."""
    found = _plans_without.get((id(bank), outside))
    if found is None or found[0] is not bank:
        if len(_plans_without) >= PLANS_WITHOUT_KEPT:
            _plans_without.clear()
        kept = {q: v for q, v in bank.questions.items() if q not in outside}
        plan = Blueprint.of(Bank(meta=bank.meta, questions=kept))
        found = _plans_without[(id(bank), outside)] = (bank, plan)
    return found[1]


def delivery_of(catalog: Catalog, record: DeliveryRecord) -> Delivery | None:
    """The delivery of a stored row (the current question), or None when it left the bank."""
    question = catalog.question(record.bank_id, record.question_id)
    return None if question is None else delivery_from(record, question)


def delivery_from(record: DeliveryRecord, question: Question) -> Delivery:
    """A stored row with its question (file order): the one place a Delivery is built. The
    Delivery carries the question as shown, in the row's option order."""
    order = display.decode_order(record.option_order, len(question.options))
    return Delivery(
        id=record.id,
        chat_id=record.chat_id,
        bank_id=record.bank_id,
        question=display.displayed(question, order),
        source=record.source,
        audience=record.audience,
        sent_at=record.sent_at,
        message_id=record.message_id,
        closes_at=record.closes_at,
        order=order,
        token=record.token,
    )
