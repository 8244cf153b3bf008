"""What the writer thread does per answer: `python -m tests.bench answer_write`.

The answer transaction of the bot (`PracticeService.answer`'s function, as the writer thread
runs it) over a real file database in WAL mode, 5,000 private answers by 500 learners, without
PTB or asyncio: (1) one answer per transaction, each statement timed; (2) groups of 32 answers
in one transaction, a savepoint each (`run_batch`, as group commit runs them). Prints µs per
statement (median over the answers that ran it), the Python between them, and per answer in
all, as CPU time of the thread (a busy machine's waits for a core left out); min/median/max
over REPS reps. QUIZBOT_BENCH_DROP=name,name drops those indexes first (what one costs).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS
from bot.domain.models import Learner
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.service import PracticeService
from bot.storage import practice_sql as sql
from bot.storage.sqlite.database import (
    Database,
    configure_writer,
    connect_sync,
    run_batch,
    run_transaction,
)
from bot.storage.sqlite.migrations import apply_migrations
from tests.bench.bench_answers import TOKEN4, shown

N = 5_000
USERS = 500
GROUP = 32
REPS = 5
NOW = 1_780_000_000.0


class Timed:
    """A connection that times each statement (execute through its first row) by its SQL."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self.spent: dict[str, list[float]] = defaultdict(list)

    def execute(self, sql: str, params: Any = ()) -> Any:
        t0 = time.thread_time()
        cur = self._conn.execute(sql, params)
        self.spent[sql].append(time.thread_time() - t0)
        return cur

    def executemany(self, sql: str, params: Iterable[Any]) -> Any:
        t0 = time.thread_time()
        cur = self._conn.executemany(sql, params)
        self.spent[sql].append(time.thread_time() - t0)
        return cur

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def setup(path: Path) -> tuple[Any, PracticeService, list[tuple[int, Learner, int]]]:
    catalog = Catalog(load_banks([BUNDLED_QUESTIONS]).banks)
    bank = catalog.bank(None)
    conn = connect_sync(path)
    apply_migrations(conn)
    configure_writer(conn)
    service = PracticeService(Database(path), catalog, clock=FakeClock(NOW), rng=random.Random(1))
    questions = [q for q in bank.questions.values() if q.kind.value == "single"]

    def seed(c: Any) -> list[tuple[int, Learner, int]]:
        out = []
        for i in range(N):
            learner = Learner(1 + i % USERS, f"U{1 + i % USERS}")
            if i < USERS:
                sql.upsert_user(c, learner, NOW - 100)
            q = questions[i % len(questions)]
            did = sql.insert_delivery(
                c, chat_id=learner.id, user_id=learner.id, bank_id=bank.id, question_id=q.id,
                source="quiz", now=NOW - 60, **shown(q, i),
            )  # fmt: skip
            sql.set_delivery_message(c, did, i + 1)
            out.append((did, learner, i % len(q.options)))
        return out

    return conn, service, run_transaction(conn, seed)


def answer_fn(
    service: PracticeService, did: int, learner: Learner, option: int, i: int
) -> Callable[[Any], Any]:
    def record(c: Any) -> Any:
        return service._record(c, did, learner, learner.id, frozenset({option}), NOW + i, TOKEN4)

    return record


def one_rep(tmp: Path, rep: int) -> dict[str, float]:
    conn, service, seeded = setup(tmp / f"w{rep}.sqlite3")
    for name in filter(None, os.environ.get("QUIZBOT_BENCH_DROP", "").split(",")):
        conn.execute(f'DROP INDEX "{name}"')
    timed = Timed(conn)
    half = N // 2
    t0 = time.thread_time()
    for i, (did, learner, option) in enumerate(seeded[:half]):
        run_transaction(timed, answer_fn(service, did, learner, option, i))  # type: ignore[arg-type]
    single = (time.thread_time() - t0) / half
    rest = seeded[half:]
    t0 = time.thread_time()
    for start in range(0, len(rest), GROUP):
        fns = [
            answer_fn(service, did, learner, option, half + start + k)
            for k, (did, learner, option) in enumerate(rest[start : start + GROUP])
        ]
        run_batch(conn, fns)
    grouped = (time.thread_time() - t0) / len(rest)
    assert conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == N
    conn.close()
    out = {
        "per answer, one per transaction": single,
        f"per answer, {GROUP} a transaction": grouped,
    }
    in_sql = 0.0
    for statement, times in timed.spent.items():
        in_sql += sum(times)
        out[" ".join(statement.split())[:70]] = statistics.median(times) * len(times) / half
    out["Python between statements (one per transaction)"] = single - in_sql / half
    return out


def main() -> None:
    print(f"   {N} private answers by {USERS} learners on a file database (WAL), {REPS} reps;")
    print("   µs per answer (a statement's median × how often an answer runs it)")
    figures: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(REPS):
            for name, value in one_rep(Path(tmp), rep).items():
                figures[name].append(value * 1e6)
    for name, xs in sorted(figures.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"   {min(xs):7.1f} {statistics.median(xs):7.1f} {max(xs):7.1f}  {name}", flush=True)


if __name__ == "__main__":
    main()
