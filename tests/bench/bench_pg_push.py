"""The daily push's bookkeeping on PostgreSQL against SQLite: `python -m tests.bench pg_push`.

Each run seeds SUBSCRIBERS learners due at one instant on a fresh database (a SQLite file, or
a new database on one throwaway PostgreSQL server: tests/pg_server.py, fsync and
synchronous_commit off, as SQLite's WAL with synchronous=NORMAL syncs no commit either), then
runs one unpaced push through the bot's own PushService and courier (claim, pick, send through
PTB to an instant Bot API, record), as the `push` bench's pacing-off part does. SQLite and
PostgreSQL alternate, A B A B, RUNS runs each; prints min/median/max deliveries/s, the CPU of
this process per delivery (the SQLite engine's threads and psycopg included) and, for
PostgreSQL, the server's CPU per delivery (its backends, read from /proc).

QUIZBOT_BENCH_SUBSCRIBERS (default 5,000) and QUIZBOT_BENCH_RUNS (default 3) set the size.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import tempfile
import time
from pathlib import Path

from bot.config import Settings
from bot.domain import due, zones
from bot.practice.clock import FakeClock
from bot.storage.factory import connect_blocking, prepare_database
from tests.bench.bench_pg_answers import line, new_pg_database, per_pair, server_cpu
from tests.bench.bench_push import PACED_RATE, START, started_app, stopped, unpaced_push
from tests.fakes import TOKEN
from tests.pg_server import PgServer, running
from tests.push_support import insert_private_subscriptions

SUBSCRIBERS = int(os.environ.get("QUIZBOT_BENCH_SUBSCRIBERS", "5000"))
RUNS = int(os.environ.get("QUIZBOT_BENCH_RUNS", "3"))
FIRST_CHAT = 1_000_000
LOCAL_TIME = "07:00"  # START is 06:00 UTC: due an hour after the subscriptions were made
WINDOW = 512  # sends in flight, as the `push` bench's unpaced part


def seed(target: str | Path, count: int) -> None:
    """`count` learners subscribed at LOCAL_TIME UTC, written in one transaction in bulk."""
    now = START.timestamp()
    tz = zones.zone("UTC")
    assert tz is not None
    occ = due.next_due(LOCAL_TIME, tz, now)
    chats = range(FIRST_CHAT, FIRST_CHAT + count)
    prepare_database(target)
    conn = connect_blocking(target)
    try:
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO users (id, first_name, started, created_at, seen_at)"
            " VALUES (?, 'L', 1, ?, ?)",
            [(chat, now, now) for chat in chats],
        )
        insert_private_subscriptions(
            conn, ((chat, LOCAL_TIME, "UTC", occ.local_date, occ.at) for chat in chats), now
        )
        conn.execute("COMMIT")
    finally:
        conn.close()


def sent_rows(target: str | Path) -> int:
    """push_log rows in state 'sent'."""
    conn = connect_blocking(target)
    try:
        row = conn.execute("SELECT COUNT(*) FROM push_log WHERE state = 'sent'").fetchone()
    finally:
        conn.close()
    return int(row[0])


async def one_run(target: str | Path, server: PgServer | None) -> tuple[float, float, float]:
    """Push to everyone seeded in `target`; (deliveries/s, process CPU s, server CPU s)."""
    clock = FakeClock(START + dt.timedelta(hours=1, minutes=1))
    settings = Settings(BOT_TOKEN=TOKEN, QUIZBOT_DB=target, push_rate=PACED_RATE)  # type: ignore[call-arg]
    app, request, services = await started_app(Path("."), clock, settings)
    try:
        push = await unpaced_push(app, services, clock, WINDOW)
        server_before = server_cpu(server) if server is not None else 0.0
        wall, cpu = time.perf_counter(), time.process_time()
        sent = await push.run_once()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        server_spent = server_cpu(server) - server_before if server is not None else 0.0
    finally:
        await stopped(app)
    assert sent == SUBSCRIBERS == len(request.sends), (sent, len(request.sends))
    assert sent_rows(target) == SUBSCRIBERS
    return sent / wall, cpu, server_spent


def main() -> None:
    print(f"   {SUBSCRIBERS:,} subscribers due at once per run, one unpaced push")
    print(f"   ({WINDOW} sends in flight) to an instant Bot API; SQLite (file, WAL) and")
    print(f"   PostgreSQL (local server) alternate, {RUNS} runs each")
    figures: dict[str, list[float]] = {}
    with running() as server, tempfile.TemporaryDirectory() as tmp:
        for rep in range(RUNS):
            for backend in ("sqlite", "postgres"):
                target: str | Path
                if backend == "sqlite":
                    target = Path(tmp) / f"push_{rep}.sqlite3"
                    seed(target, SUBSCRIBERS)
                    rate, cpu, _ = asyncio.run(one_run(target, None))
                else:
                    target = new_pg_database(server, f"push_{rep}")
                    seed(target, SUBSCRIBERS)
                    rate, cpu, spent = asyncio.run(one_run(target, server))
                    figures.setdefault("postgres server CPU µs/delivery", []).append(
                        spent / SUBSCRIBERS * 1e6
                    )
                figures.setdefault(f"{backend} deliveries/s", []).append(rate)
                figures.setdefault(f"{backend} process CPU µs/delivery", []).append(
                    cpu / SUBSCRIBERS * 1e6
                )
                print(
                    f"   run {rep + 1} {backend:<8} {rate:7.0f} deliveries/s,"
                    f" {cpu / SUBSCRIBERS * 1e6:5.0f} µs CPU each",
                    flush=True,
                )
    for name in sorted(figures):
        print(line(name, figures[name], lambda x: f"{x:7.0f}"))
    print(per_pair(figures, "deliveries/s"))


if __name__ == "__main__":
    main()
