"""`quizbot db copy` over a year of history: `python -m tests.bench db_copy`.

The history benchmark's database (tests/bench/gen_history.py: ≥ 2M answers, ≥ 10k learners),
migrated, copied to a fresh database on a throwaway PostgreSQL server and back to a new SQLite
file. Prints rows, seconds and rows/s of each direction (verification included) and the
slowest tables. One run each way: the copy is an operator's one-off, minutes long.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import psycopg

from bot.storage.db_copy import CopyReport, copy_database
from bot.storage.factory import prepare_database
from tests.bench import gen_history
from tests.pg_server import running


class TableClock:
    """Seconds per table, from the copy's progress calls."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._began: dict[str, float] = {}

    def __call__(self, table: str, done: int, total: int) -> None:
        now = time.perf_counter()
        self._began.setdefault(table, now)
        self.seconds[table] = now - self._began[table]


def show(label: str, report: CopyReport, tables: TableClock) -> None:
    print(
        f"   {label:<20} {report.rows:>9} rows  {report.seconds:6.1f} s"
        f"  {report.rows / report.seconds:7.0f} rows/s (verification included)",
        flush=True,
    )
    slowest = sorted(tables.seconds.items(), key=lambda kv: -kv[1])[:4]
    rows = {t.name: t.rows for t in report.tables}
    print("     slowest: " + ", ".join(f"{t} {rows[t]} in {s:.1f} s" for t, s in slowest))


def main() -> None:
    source = gen_history.ensure()
    with running() as server, tempfile.TemporaryDirectory() as tmp:
        lite = Path(tmp) / "history.sqlite3"
        shutil.copyfile(source, lite)
        prepare_database(lite)  # the generator's schema may be older than the branch's
        with psycopg.connect(server.url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE moved")
        clock = TableClock()
        there = copy_database(f"sqlite:///{lite}", server.url("moved"), progress=clock)
        show("SQLite → PostgreSQL", there, clock)
        clock = TableClock()
        back = copy_database(
            server.url("moved"), f"sqlite:///{Path(tmp) / 'back.sqlite3'}", progress=clock
        )
        show("PostgreSQL → SQLite", back, clock)


if __name__ == "__main__":
    main()
