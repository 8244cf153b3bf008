"""The bundled bank's move from seven topics to the ten NCP-GENL domains (migration 0018): a
learner's history on the old layout reads the same on the new one. The banks here are fixtures
written by the test, with ids the migration moves; the bundled bank itself is not read."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from bot.bank.loader import load_bank
from bot.bank.models import Bank
from bot.learning.ability import topic_abilities
from bot.learning.blueprint import Blueprint
from bot.learning.memory import Answer, MemoryState, review
from bot.storage import learning_sql, practice_sql
from bot.storage.port import Connection
from bot.storage.sqlite.database import connect_sync
from bot.storage.sqlite.migrations import apply_migrations, available
from tests.bench.gen_history import migrate_up_to
from tests.sample_bank import NCP_GENL_WEIGHTS

T0 = 1_780_000_000.0


def old_schema(conn: Connection) -> None:
    """The schema the old layout was served with, and the per-day summary the answers of
    today's code write beside it (a table no topic is stored in)."""
    migrate_up_to(conn, "0017_forgetting_probe")
    [sql] = [sql for name, sql in available() if name == "0023_bank_days"]
    conn.executescript(
        f"BEGIN;\n{sql}\nINSERT INTO schema_migrations(name) VALUES ('0023_bank_days');\nCOMMIT;"
    )


OLD_TOPICS = {
    "rag-agents": 18,
    "fine-tuning": 16,
    "optimization-deployment": 16,
    "evaluation": 14,
    "safety-guardrails": 12,
    "data-preparation": 12,
    "prompt-engineering": 12,
}
NEW_TOPICS = NCP_GENL_WEIGHTS
# question id: (old topic, new topic), as the re-base moved them.
QUESTIONS = {
    "rag-hybrid-exact-identifiers": ("rag-agents", "model-deployment"),
    "rag-context-ordering": ("rag-agents", "prompt-engineering"),
    "rag-diagnose-retrieval-vs-generation": ("rag-agents", "evaluation"),
    "rag-mcp-tool-poisoning": ("rag-agents", "safety-ethics-compliance"),
    "deploy-kv-cache-sizing": ("optimization-deployment", "llm-architecture"),
    "deploy-awq-vs-gptq": ("optimization-deployment", "model-optimization"),
    "deploy-paged-kv-cache": ("optimization-deployment", "model-optimization"),
    "deploy-autoscaling-cold-start": ("optimization-deployment", "model-deployment"),
    "safety-trace-llm-calls": ("safety-guardrails", "production-monitoring"),
    "safety-release-eval-gate": ("safety-guardrails", "safety-ethics-compliance"),
    "ft-dpo-reference-model": ("fine-tuning", "fine-tuning"),
    "eval-judge-position-swap": ("evaluation", "evaluation"),
}
BANK_ID = "genai-llm"
ALICE, BOB = 1, 2


def write_bank(folder: Path, topics: dict[str, int], layout: int) -> Bank:
    """A bank folder in the bundled bank's shape: topics, then one file per question."""
    folder.mkdir(parents=True)
    lines = [
        f"id: {BANK_ID}",
        "title: Fixture",
        "exam_code: FIXTURE",
        "passing_score: 70",
        "mock_exam: {questions: 4, minutes: 8}",
        "topics:",
    ]
    for tid, weight in topics.items():
        name = tid.replace("-", " ").title()
        lines += [f"  - id: {tid}", f"    name: {name}", f"    weight: {weight}"]
    (folder / "bank.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for qid, pair in QUESTIONS.items():
        body = {
            "id": qid,
            "topic": pair[layout],
            "stem": f"Which option of {qid} is right?",
            "options": [
                {"text": f"First {qid}", "correct": True, "rationale": "It is."},
                {"text": f"Second {qid}", "rationale": "It is not."},
            ],
            "explanation": "Because.",
        }
        (folder / f"{qid}.yaml").write_text(json.dumps(body), encoding="utf-8")
    return load_bank(folder)


def answer(conn: Connection, bank: Bank, user: int, qid: str, correct: bool, at: float) -> None:
    """An answer as the bot records it: the row, the summaries, the memory state."""
    did = practice_sql.insert_delivery(
        conn, chat_id=user, user_id=user, bank_id=BANK_ID, question_id=qid, source="quiz",
        now=at - 5,
    )  # fmt: skip
    delivery = practice_sql.delivery_record(conn, did)
    assert delivery is not None
    assert practice_sql.insert_answer(
        conn, delivery=delivery, user_id=user, topic=bank.questions[qid].topic,
        chosen="0" if correct else "1", correct=correct, now=at,
    )  # fmt: skip
    when = dt.datetime.fromtimestamp(at, dt.UTC)
    # The memory state as the code of that schema stored it: its columns only.
    present = {r[1] for r in conn.execute("PRAGMA table_info(memory_states)")}
    columns = tuple(c for c in learning_sql.MEMORY_COLUMNS if c in present)
    before = conn.execute(
        f"SELECT {', '.join(columns)} FROM memory_states"
        " WHERE user_id = ? AND bank_id = ? AND question_id = ?",
        (user, BANK_ID, qid),
    ).fetchone()
    state = (
        None if before is None else MemoryState.from_row(dict(zip(columns, before, strict=True)))
    )
    row = review(state, Answer(qid, when, correct)).to_row()
    conn.execute(
        learning_sql.upsert_sql(columns), (user, BANK_ID, qid, *(row[c] for c in columns))
    )


# The memory columns every revision of the schema since the learning engine has.
MEMORY = (
    "SELECT user_id, bank_id, question_id, stability, difficulty, due, last_review, reps,"
    " lapses, spaced_reviews FROM memory_states"
)


def rows(conn: Connection, sql: str, *args: object) -> list[tuple[object, ...]]:
    return sorted(tuple(r) for r in conn.execute(sql, args).fetchall())


@pytest.fixture
def banks(tmp_path: Path) -> tuple[Bank, Bank]:
    return (
        write_bank(tmp_path / "old" / BANK_ID, OLD_TOPICS, 0),
        write_bank(tmp_path / "new" / BANK_ID, NEW_TOPICS, 1),
    )


def test_history_on_the_old_topics_reads_the_same_on_the_ten_domains(
    tmp_path: Path, banks: tuple[Bank, Bank]
) -> None:
    old, new = banks
    conn = connect_sync(tmp_path / "db.sqlite3")
    conn.row_factory = None
    old_schema(conn)
    for uid, topic in ((ALICE, "rag-agents"), (BOB, "safety-guardrails")):
        conn.execute(
            "INSERT INTO users (id, first_name, bank_id, topic, created_at, seen_at)"
            " VALUES (?, 'U', ?, ?, 0, 0)",
            (uid, BANK_ID if uid == ALICE else None, topic),
        )
    conn.execute(
        "INSERT INTO subscriptions (chat_id, user_id, local_time, timezone, topic, created_at,"
        " updated_at) VALUES (?, ?, '08:00', 'UTC', 'optimization-deployment', 0, 0)",
        (ALICE, ALICE),
    )
    conn.execute("BEGIN")
    at = T0
    for round_ in range(3):
        for i, qid in enumerate(QUESTIONS):
            at += 600
            answer(conn, old, ALICE, qid, (i + round_) % 3 != 0, at)
            if i % 2:
                answer(conn, old, BOB, qid, round_ > 0, at + 1)
    conn.execute("COMMIT")
    # Retention pruned Bob's first answer: /stats still counts it, no answer row says which
    # question it was.
    first = conn.execute("SELECT MIN(id) FROM answers WHERE user_id = ?", (BOB,)).fetchone()[0]
    pruned_topic = conn.execute("SELECT topic FROM answers WHERE id = ?", (first,)).fetchone()[0]
    assert pruned_topic in ("optimization-deployment", "rag-agents", "safety-guardrails")
    conn.execute("DELETE FROM answers WHERE id = ?", (first,))

    memory_before = rows(conn, MEMORY)
    totals_before = {u: practice_sql.bank_totals(conn, u)[0] for u in (ALICE, BOB)}
    answers_before = rows(conn, "SELECT id, question_id, correct, answered_at FROM answers")

    assert apply_migrations(conn)[0] == "0018_ncp_genl_domains"  # and any after it

    # Memory (keyed on question ids) and the answers themselves are untouched.
    assert rows(conn, MEMORY) == memory_before
    assert rows(conn, "SELECT id, question_id, correct, answered_at FROM answers") == (
        answers_before
    )
    # Every answer is filed under its question's domain.
    for qid, topic in conn.execute("SELECT question_id, topic FROM answers"):
        assert topic == new.questions[qid].topic
    for uid in (ALICE, BOB):
        totals = practice_sql.topic_totals(conn, uid, BANK_ID)
        assert {t.topic for t in totals} <= set(NEW_TOPICS), totals
        # Same answered and right overall as before.
        assert practice_sql.bank_totals(conn, uid)[0] == totals_before[uid]
        # Per domain: what the kept answers say, plus the pruned one in its receiving domain.
        expect: dict[str, list[int]] = {}
        for topic, correct in conn.execute(
            "SELECT topic, correct FROM answers WHERE user_id = ?", (uid,)
        ):
            expect.setdefault(topic, [0, 0])
            expect[topic][0] += 1
            expect[topic][1] += correct
        if uid == BOB:
            residue = {
                "rag-agents": "model-deployment",
                "optimization-deployment": "model-deployment",
                "safety-guardrails": "safety-ethics-compliance",
            }[pruned_topic]
            expect.setdefault(residue, [0, 0])
            expect[residue][0] += 1  # Bob's first round was wrong
        assert {t.topic: [t.answered, t.correct] for t in totals} == expect
    # Abilities read memory through today's bank: every question counts in its new domain.
    memory = learning_sql.memory_states(conn, ALICE, BANK_ID)
    abilities = topic_abilities(Blueprint.of(new), memory)
    assert sum(a.met for a in abilities.values()) == len(QUESTIONS)
    assert abilities["model-deployment"].met == 2
    assert abilities["model-optimization"].met == 2
    # A chosen topic that no longer exists: all topics when it split, its heir when it did not.
    assert rows(conn, "SELECT id, topic FROM users") == [
        (ALICE, None),
        (BOB, "safety-ethics-compliance"),
    ]
    assert rows(conn, "SELECT topic FROM subscriptions") == [(None,)]


def test_a_database_that_never_served_the_old_layout_is_unchanged(tmp_path: Path) -> None:
    conn = connect_sync(tmp_path / "db.sqlite3")
    conn.row_factory = None
    old_schema(conn)
    conn.execute("BEGIN")
    did = practice_sql.insert_delivery(
        conn, chat_id=ALICE, user_id=ALICE, bank_id="other", question_id="rag-context-ordering",
        source="quiz", now=T0,
    )  # fmt: skip
    delivery = practice_sql.delivery_record(conn, did)
    assert delivery is not None
    practice_sql.insert_answer(
        conn, delivery=delivery, user_id=ALICE, topic="rag-agents", chosen="0", correct=True,
        now=T0 + 1,
    )  # fmt: skip
    conn.execute("COMMIT")
    before = rows(conn, "SELECT * FROM learner_topics"), rows(conn, "SELECT * FROM answers")
    apply_migrations(conn)
    assert (rows(conn, "SELECT * FROM learner_topics"), rows(conn, "SELECT * FROM answers")) == (
        before
    )
