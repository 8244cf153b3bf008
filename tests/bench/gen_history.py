"""A year of history for the history benchmark: ≥ 2M answers over ≥ 10k learners.

Generated through the project's own migrations (whatever the branch ships), rows written in
time order as the bot writes them: the learners' answers are interleaved, deliveries come
before their answers, ids grow with time. One heavy learner (20,000 answers, every day), one
light learner (200 answers over the last 100 days), and one group with 600,000 answers (2,000
questions, 300 members answering each). The file is cached in the temp dir (keyed by the
generator's version, not by the migrations: a newer branch migrates a copy at open).

`python -m tests.bench.gen_history` builds it and prints where it is.
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS
from bot.learning.memory import Answer, from_timestamp, replay_all
from bot.storage.sqlite.migrations import applied, available

VERSION = 2  # 2: the measured learners' memory states backfilled, a fresh learner
END = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC).timestamp()  # the bench's "now"
DAYS = 400
LEARNERS = 10_000  # ids 1..LEARNERS
HEAVY = 20_001  # 20,000 answers, 50 a day
LIGHT = 20_002  # 200 answers, 2 a day over the last 100 days
FRESH = 20_003  # registered, no answer yet
GROUP = -1_001_234_567_890  # 600,000 answers
GROUP_MEMBERS = 3_000  # learners 1..3000 are also members of the group
GROUP_PER_DAY = 5  # questions a day, 300 members answering each
GROUP_ANSWERS_EACH = 300
PRIVATE_PER_DAY = 4_000  # other learners' deliveries a day (~1.44M answers in all)
UNANSWERED = 0.1  # share of private deliveries never answered
# The history is written on the schema of this migration; the bench opens a copy with the
# branch's Database, which applies the newer migrations (their backfills included), as an
# upgrade of a bot that ran for a year would.
SCHEMA_UP_TO = "0007_mock"
ZONES = ("Europe/Berlin", "America/New_York", "Asia/Kolkata", None, None)


def cache_path() -> Path:
    """Where the generated database lives between runs."""
    return Path(tempfile.gettempdir()) / f"quizbot-bench-history-v{VERSION}.sqlite3"


def ensure() -> Path:
    """The cached database, generated first if missing."""
    path = cache_path()
    if not path.exists():
        generate(path)
    return path


def generate(path: Path) -> dict[str, int]:
    """Write the history database at path (atomically: a .partial file renamed at the end)."""
    started = time.perf_counter()
    bank = load_banks([BUNDLED_QUESTIONS]).banks["genai-llm"]
    questions = [(q.id, q.topic, q.select_count, len(q.options)) for q in bank.questions.values()]
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    conn = sqlite3.connect(partial, isolation_level=None)
    migrate_up_to(conn, SCHEMA_UP_TO)
    # A scratch build: no journal, no fsync. The bench opens a copy in WAL mode.
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA cache_size=-262144")
    rng = random.Random(13)
    first = END - DAYS * 86400
    users = [
        (uid, f"L{uid}", rng.choice(ZONES), first, END)
        for uid in (*range(1, LEARNERS + 1), HEAVY, LIGHT, FRESH)
    ]
    # Indexes are built once after the bulk insert (much faster than row by row).
    indexes = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    ).fetchall()
    for name, _ in indexes:
        conn.execute(f'DROP INDEX "{name}"')
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO users (id, first_name, timezone, started, created_at, seen_at)"
        " VALUES (?, ?, ?, 1, ?, ?)",
        users,
    )
    conn.execute(
        "INSERT INTO chats (id, type, title, tz, created_at, updated_at)"
        " VALUES (?, 'supergroup', 'Bench group', 'Europe/Berlin', ?, ?)",
        (GROUP, first, END),
    )
    # Learners are not equally busy: weights spread their totals from a few to several hundred.
    learner_ids = list(range(1, LEARNERS + 1))
    weights = [rng.paretovariate(1.5) for _ in learner_ids]
    next_delivery = 1
    answers_total = 0
    for day in range(DAYS):
        day_start = first + day * 86400
        events: list[tuple[float, int, int | None, int]] = []  # (time, user, chat, private?)
        for uid in rng.choices(learner_ids, weights, k=PRIVATE_PER_DAY):
            events.append((day_start + rng.random() * 86400, uid, uid, 1))
        for _ in range(50):
            events.append((day_start + rng.random() * 86400, HEAVY, HEAVY, 1))
        if day >= DAYS - 100:
            for _ in range(2):
                events.append((day_start + rng.random() * 86400, LIGHT, LIGHT, 1))
        for _ in range(GROUP_PER_DAY):
            events.append((day_start + rng.random() * 85000, 0, GROUP, 0))
        events.sort()
        deliveries: list[tuple[object, ...]] = []
        answers: list[tuple[object, ...]] = []
        for t, uid, chat, private in events:
            qid, topic, select, n_opts = questions[rng.randrange(len(questions))]
            did = next_delivery
            next_delivery += 1
            if private:
                sent = t - 5 - rng.random() * 60
                deliveries.append(
                    (did, chat, did, uid, bank.meta.id, qid, "quiz", sent, None, None, None)
                )
                # The two measured learners answer everything: their totals are exact.
                if uid in (HEAVY, LIGHT) or rng.random() >= UNANSWERED:
                    answers.append(
                        _answer(rng, did, uid, chat, qid, topic, select, n_opts, t, sent)
                    )
            else:
                closes = t + 600
                deliveries.append(
                    (did, chat, did, None, bank.meta.id, qid, "group", t, closes, closes, closes)
                )
                for member in rng.sample(range(1, GROUP_MEMBERS + 1), GROUP_ANSWERS_EACH):
                    at = t + rng.random() * 600
                    answers.append(
                        _answer(rng, did, member, chat, qid, topic, select, n_opts, at, t)
                    )
        answers.sort(key=lambda a: a[8])  # type: ignore[arg-type, return-value]
        conn.executemany(
            "INSERT INTO deliveries (id, chat_id, message_id, user_id, bank_id, question_id,"
            " source, sent_at, closes_at, closed_at, revealed_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            deliveries,
        )
        conn.executemany(
            "INSERT INTO answers (delivery_id, user_id, chat_id, bank_id, question_id, topic,"
            " chosen, correct, answered_at, time_to_answer_ms)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(*a[:8], a[8], a[9]) for a in answers],
        )
        answers_total += len(answers)
    for _, sql in indexes:
        conn.execute(sql)
    backfill_measured(conn)
    conn.execute("COMMIT")
    conn.close()
    partial.replace(path)
    print(
        f"   generated {answers_total:,} answers, {next_delivery - 1:,} deliveries in "
        f"{time.perf_counter() - started:.0f} s: {path} ({path.stat().st_size >> 20} MiB)",
        flush=True,
    )
    return {"answers": answers_total, "deliveries": next_delivery - 1}


def backfill_measured(conn: sqlite3.Connection) -> None:
    """The measured learners' memory states, replayed from their answers as the memory
    model's migration does (the others keep none: that would take longer than the history),
    so their picks and /ready read the states a bot that ran for a year holds."""
    columns = {r[1] for r in conn.execute("PRAGMA table_info(memory_states)")}
    by_learner: dict[tuple[int, str], list[Answer]] = {}
    rows = conn.execute(
        "SELECT user_id, bank_id, question_id, answered_at, correct FROM answers"
        " WHERE user_id IN (?, ?) ORDER BY user_id, bank_id, answered_at, id",
        (HEAVY, LIGHT),
    )
    for uid, bank_id, qid, at, correct in rows:
        by_learner.setdefault((uid, bank_id), []).append(
            Answer(qid, from_timestamp(at), bool(correct))
        )
    for (uid, bank_id), answers in by_learner.items():
        for qid, state in replay_all(answers).items():
            row = {c: v for c, v in state.to_row().items() if c in columns}
            conn.execute(
                f"INSERT INTO memory_states (user_id, bank_id, question_id, {', '.join(row)})"
                f" VALUES (?, ?, ?, {', '.join('?' * len(row))})",
                (uid, bank_id, qid, *row.values()),
            )


def migrate_up_to(conn: sqlite3.Connection, last: str) -> None:
    """Apply the SQL of the migrations up to `last` only (no Python steps): an older schema."""
    done = applied(conn)
    for name, sql in available():
        if name <= last and name not in done:
            conn.executescript(
                f"BEGIN;\n{sql}\nINSERT INTO schema_migrations(name) VALUES ('{name}');\nCOMMIT;"
            )


def _answer(
    rng: random.Random,
    did: int,
    uid: int,
    chat: int,
    qid: str,
    topic: str,
    select: int,
    n_opts: int,
    at: float,
    sent: float,
) -> tuple[object, ...]:
    chosen = ",".join(str(i) for i in sorted(rng.sample(range(n_opts), select)))
    correct = int(rng.random() < 0.65)
    return (did, uid, chat, "genai-llm", qid, topic, chosen, correct, at, round((at - sent) * 1e3))


if __name__ == "__main__":
    generate(cache_path())
