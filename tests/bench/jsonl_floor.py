"""The floor under `quizbot play --jsonl`'s throughput: a program that does only the writes.

It speaks the same lines as the real program for `next` and `answer` (a question reply with a
delivery id, a verdict) and writes what the real program writes for them, durably, one
transaction per request, through the same SQL on the same migrated schema and settings: the
delivery row (with its indexes and AUTOINCREMENT counter); the answer row with its indexes and
two summaries, and the question's memory state. Nothing else: no pick, no shuffle, no grading,
no FSRS, no reads. What a client that waits for each reply gets from it bounds what any
program keeping a durable record of each request, in Python on this schema, can give.

Run: `python -m tests.bench.jsonl_floor DB` (stdin/stdout as the real program).
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import sys
from functools import partial

from bot.domain.kinds import Source
from bot.domain.models import Learner
from bot.learning.memory import MemoryState
from bot.storage import learning_sql as lsql
from bot.storage import practice_sql as sql
from bot.storage.checkpoints import WalPolicy, configure_writer
from bot.storage.db import connect_sync
from bot.storage.migrations import apply_migrations
from bot.storage.transactions import run_transaction

BANK = "genai-llm"
QUESTIONS = 160
ORDER = "2,0,3,1"
TOKEN = "t" * 12
START = dt.datetime(2027, 1, 4, 8, tzinfo=dt.UTC)
STATE = MemoryState(
    stability=2.3, difficulty=5.1, due=START, last_review=START, reps=1, lapses=0,
    last_correct=True,
)  # fmt: skip


def deliver(conn: sqlite3.Connection, user: int, question: str, now: float) -> int:
    """The delivery row of a `next`."""
    return sql.insert_delivery(
        conn, chat_id=user, user_id=user, bank_id=BANK, question_id=question,
        source=Source.TERMINAL, now=now, option_order=ORDER, version="v1", token=TOKEN,
    )  # fmt: skip


def record(conn: sqlite3.Connection, row: sql.DeliveryRecord, user: int, now: float) -> None:
    """The rows of an `answer`: the answer with its summaries, and the memory state."""
    sql.insert_answer(
        conn, delivery=row, user_id=user, topic="t", chosen="0", correct=True, now=now,
        timezone="UTC",
    )  # fmt: skip
    lsql.save_memory(conn, user, BANK, row.question_id, STATE)


def main() -> int:
    """Serve `next` and `answer` lines from stdin until EOF."""
    conn = connect_sync(sys.argv[1])
    apply_migrations(conn)
    configure_writer(conn, policy=WalPolicy())
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    deliveries: dict[int, sql.DeliveryRecord] = {}
    users: set[int] = set()
    now = START.timestamp()
    for n, line in enumerate(sys.stdin):
        request = json.loads(line)
        user = int(request.get("user", 1))
        question = f"q{n % QUESTIONS}"
        if user not in users:
            users.add(user)
            learner = Learner(user, f"learner {user}")
            run_transaction(conn, partial(sql.upsert_user_settings, user=learner, now=now))
        reply: dict[str, object] = {"type": "ok", "user": user}  # the warm-up request
        if request["cmd"] == "next":
            did = run_transaction(conn, partial(deliver, user=user, question=question, now=now))
            deliveries[did] = sql.DeliveryRecord(
                did, user, None, user, BANK, question, Source.TERMINAL, now, None, None, None,
                ORDER, "v1", TOKEN,
            )  # fmt: skip
            reply = {
                "type": "question", "user": user, "delivery": did, "question_id": question,
                "topic": "t", "stem": "?", "kind": "single", "select": 1,
                "options": ["a", "b", "c", "d"],
            }  # fmt: skip
        elif request["cmd"] == "answer":
            row = deliveries.pop(int(request["delivery"]))
            run_transaction(conn, partial(record, row=row, user=user, now=now))
            reply = {
                "type": "verdict", "user": user, "delivery": row.id, "correct": True,
                "correct_options": [0], "chosen": request["chosen"],
            }  # fmt: skip
        now += 1.0
        sys.stdout.write(encode(reply) + "\n")
        sys.stdout.flush()
    conn.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
