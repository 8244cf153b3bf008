"""The answer path on PostgreSQL against SQLite: `python -m tests.bench pg_answers`.

One process, one throwaway PostgreSQL server (tests/pg_server.py: fsync and synchronous_commit
off, as SQLite's WAL with synchronous=NORMAL syncs no commit either). Each run seeds N
deliveries for USERS learners on a fresh database, then records N answers through
`PracticeService.answer` (grade, record, memory and summaries in one write transaction; no PTB),
one at a time and 32 in flight. SQLite and PostgreSQL alternate, A B A B, REPS runs each;
prints min/median/max answers/s, the CPU of this process per answer (the SQLite engine's
threads included) and, for PostgreSQL, the server's CPU per answer as well (its backends, read
from /proc).
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS
from bot.domain.models import Learner
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.service import PracticeService
from bot.storage import practice_sql as sql
from bot.storage.factory import open_database
from bot.storage.port import DatabaseBusy
from tests.bench.bench_answers import TOKEN4, shown
from tests.pg_server import PgServer, running

N = int(os.environ.get("QUIZBOT_BENCH_ANSWERS", "2000"))
USERS = 200
REPS = 5
NOW = 1_780_000_000.0
TICK = os.sysconf("SC_CLK_TCK")


def server_cpu(server: PgServer) -> float:
    """CPU seconds of the server's processes so far: its live children and the ones it reaped."""
    pid = int((server.data / "postmaster.pid").read_text().split()[0])
    ticks = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        # After the ")" of the command: state, ppid, ... utime (12th), stime, cutime, cstime.
        if int(entry) == pid:
            ticks += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
        elif int(fields[1]) == pid:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / TICK


async def one_run(url: str, catalog: Catalog, in_flight: int, server: PgServer | None) -> Any:
    """Seed and answer N deliveries on `url`; (answers/s, process CPU s, server CPU s, answers
    refused as busy: conflicts that outlasted the store's retries)."""
    bank = catalog.bank(None)
    questions = [q for q in bank.questions.values() if q.kind.value == "single"]
    async with open_database(url) as db:
        service = PracticeService(db, catalog, clock=FakeClock(NOW), rng=random.Random(1))

        def seed(conn: Any) -> list[tuple[int, Learner, int]]:
            out = []
            for i in range(N):
                learner = Learner(1 + i % USERS, f"U{1 + i % USERS}")
                if i < USERS:
                    sql.upsert_user(conn, learner, NOW - 100)
                q = questions[i % len(questions)]
                did = sql.insert_delivery(
                    conn, chat_id=learner.id, user_id=learner.id, bank_id=bank.id,
                    question_id=q.id, source="quiz", now=NOW - 60, **shown(q, i),
                )  # fmt: skip
                sql.set_delivery_message(conn, did, i + 1)
                out.append((did, learner, i % len(q.options)))
            return out

        seeded = await db.write(seed)
        gate = asyncio.Semaphore(in_flight)
        busy = 0

        async def answer(did: int, learner: Learner, option: int) -> None:
            nonlocal busy
            async with gate:
                try:
                    await service.answer(
                        did, learner, learner.id, frozenset({option}), token=TOKEN4
                    )
                except DatabaseBusy:  # what a learner would be told: try again
                    busy += 1

        server_before = server_cpu(server) if server is not None else 0.0
        wall, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(answer(*s) for s in seeded))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        server_spent = server_cpu(server) - server_before if server is not None else 0.0
        count = await db.fetchone("SELECT COUNT(*) FROM answers")
    assert count[0] == N - busy, f"answers recorded: {count[0]}/{N}, {busy} busy"
    return N / wall, cpu, server_spent, busy


def new_pg_database(server: PgServer, name: str) -> str:
    """A fresh empty database on the server (migrated when the store opens it)."""
    with psycopg.connect(server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server.url(name)


def line(name: str, xs: list[float], fmt: Callable[[float], str]) -> str:
    mid = statistics.median(xs)
    return f"   {name:<38} min {fmt(min(xs))}  median {fmt(mid)}  max {fmt(max(xs))}"


def per_pair(figures: dict[str, list[float]], measure: str) -> str:
    """The line of PostgreSQL's figure over SQLite's, pair by pair (run n of each)."""
    ratio = [
        b / a
        for a, b in zip(figures[f"sqlite {measure}"], figures[f"postgres {measure}"], strict=True)
    ]
    return line(f"postgres/sqlite {measure}, per pair", ratio, lambda x: f"{x:7.2f}")


def main() -> None:
    catalog = Catalog(load_banks([BUNDLED_QUESTIONS]).banks)
    print(f"   {N} answers by {USERS} learners per run through PracticeService.answer;")
    print(f"   SQLite (file, WAL) and PostgreSQL (local server) alternate, {REPS} runs each")
    with running() as server, tempfile.TemporaryDirectory() as tmp:
        for in_flight, label in ((1, "one at a time"), (32, "32 in flight, as the bot runs")):
            print(f"   -- {label}")
            figures: dict[str, list[float]] = {}
            for rep in range(REPS):
                for backend in ("sqlite", "postgres"):
                    if backend == "sqlite":
                        url = f"sqlite:///{Path(tmp) / f'a{in_flight}_{rep}.sqlite3'}"
                        rate, cpu, _, busy = asyncio.run(one_run(url, catalog, in_flight, None))
                    else:
                        url = new_pg_database(server, f"b{in_flight}_{rep}")
                        rate, cpu, spent, busy = asyncio.run(
                            one_run(url, catalog, in_flight, server)
                        )
                        figures.setdefault("postgres server CPU µs/answer", []).append(
                            spent / N * 1e6
                        )
                    figures.setdefault(f"{backend} answers/s", []).append(rate)
                    figures.setdefault(f"{backend} answers refused busy", []).append(busy)
                    figures.setdefault(f"{backend} process CPU µs/answer", []).append(
                        cpu / N * 1e6
                    )
            for name, xs in figures.items():
                print(line(name, xs, lambda x: f"{x:7.0f}"), flush=True)
            print(per_pair(figures, "answers/s"))


if __name__ == "__main__":
    main()
