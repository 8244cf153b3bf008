"""Two webhook processes against one, on one PostgreSQL (`python -m tests.bench multiproc`).

LEARNERS learners answer ROUNDS questions each (/quiz, then a tap), the posts spread over the
processes; runs interleaved (1, 2, 1, 2, ...). Reported: answers a second (wall, from the
first post to the last verdict) and the bots' CPU milliseconds per answer. The learners, the
fake Bot API and PostgreSQL share the machine with the bots: on a small machine the figures
say as much about it as about the bots.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

import psycopg

from bot.storage.postgres.database import prepare
from tests.multiproc_support import webhook_load
from tests.pg_fixtures import TEMPLATE
from tests.pg_server import running

REPS = 2
LEARNERS = 200
ROUNDS = 5


def summary(values: list[float]) -> str:
    return f"min {min(values):.1f}  median {statistics.median(values):.1f}  max {max(values):.1f}"


def main() -> None:
    figures: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    with running() as server, tempfile.TemporaryDirectory() as tmp:
        with psycopg.connect(server.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {TEMPLATE}")
        prepare(server.url(TEMPLATE))
        for rep in range(REPS):
            for processes in (1, 2):
                name = f"bench_{rep}_{processes}"
                with psycopg.connect(server.url(), autocommit=True) as conn:
                    conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
                folder = Path(tmp) / name
                folder.mkdir()
                load = webhook_load(
                    folder,
                    server.url(name),
                    processes=processes,
                    learners=LEARNERS,
                    rounds=ROUNDS,
                    env={"QUIZBOT_LOG_LEVEL": "WARNING"},
                )
                n = len(load.tapped)
                figures[processes].append((n / load.seconds, 1000 * load.cpu_s / n))
                print(
                    f"   {processes} process(es): {n} answers in {load.seconds:.1f} s", flush=True
                )
    for processes, runs in figures.items():
        print(f"{processes} process(es), {LEARNERS} learners x {ROUNDS} answers:")
        print(f"   answers/s       {summary([r for r, _ in runs])}")
        print(f"   CPU ms/answer   {summary([c for _, c in runs])}")
