"""`quizbot play --jsonl` throughput: next + answer request/reply pairs per second.

Each rep starts from a fresh SQLite file with the bundled bank. (a) the program as a process,
driven by a client that waits for each reply before it sends the next request (what a front end
or test rig sees: pipes, JSON both ways, the engine, a durable write per request); (b) the same
session in process (no pipes, no process start); (c) with 100 users, the program driven by a
client that pipelines: it sends the next request of every user, then reads the 100 replies, then
sends the 100 answers (a notebook or test rig that plays many learners at once; the program
serves what arrived together in one transaction); (floor) client (a) against a program that
only writes what the real one writes for each request, durably, and replies
(tests/bench/jsonl_floor.py): what no program on this schema, in Python, can beat. Users
answer in turn, each question answered as its first `select` options. Each mode prints pairs
per wall second and per CPU second of the program (the second depends less on what else runs
on the machine). Target: (a) ≥ 2,000 pairs/s.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.bank.loader import load_banks
from bot.commands.jsonl_io import new_session
from bot.config import BUNDLED_QUESTIONS
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.storage.inline_db import InlineDatabase

PAIRS = 2_000
REPS = 3
START = "2027-01-04T08:00:00Z"


def requests(user: int) -> str:
    return json.dumps({"cmd": "next", "user": user})


def answer(question: dict[str, object], user: int) -> str:
    chosen = list(range(int(str(question["select"]))))
    return json.dumps(
        {"cmd": "answer", "user": user, "delivery": question["delivery"], "chosen": chosen}
    )


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Rate = tuple[float, float]  # pairs per wall second, pairs per CPU second of the program


PROGRAM = ["-m", "bot", "play", "--jsonl", "--seed", "1", "--clock", START]
FLOOR = ["-m", "tests.bench.jsonl_floor", "bench.sqlite3"]


def as_process(users: int, pipelined: bool = False, program: list[str] = PROGRAM) -> Rate:
    """Pairs per second through the real program's stdin and stdout (with `pipelined`, the
    requests of all users sent before their replies are read; `program`: another program's
    arguments to Python, run in the temporary directory)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "QUIZBOT_DB": str(Path(tmp) / "bench.sqlite3")}
        # The floor program is a module of this repository's tests, run from the temporary
        # directory.
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        env.pop("QUIZBOT_QUESTIONS", None)
        proc = subprocess.Popen(
            [sys.executable, *program],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp,
        )
        assert proc.stdin is not None and proc.stdout is not None
        send, receive = proc.stdin, proc.stdout

        def ask(line: str) -> dict[str, object]:
            send.write(line + "\n")
            send.flush()
            reply: dict[str, object] = json.loads(receive.readline())
            return reply

        def ask_all(lines: list[str]) -> list[dict[str, object]]:
            send.write("".join(line + "\n" for line in lines))
            send.flush()
            return [json.loads(receive.readline()) for _ in lines]

        ask(json.dumps({"cmd": "stats"}))  # started, database migrated: the clock starts now
        cpu = cpu_seconds(proc.pid)
        started = time.perf_counter()
        if pipelined:
            for _ in range(PAIRS // users):
                questions = ask_all([requests(1 + u) for u in range(users)])
                answers = [answer(q, 1 + u) for u, q in enumerate(questions)]
                assert all(v["type"] == "verdict" for v in ask_all(answers))
        else:
            for i in range(PAIRS):
                user = 1 + i % users
                question = ask(requests(user))
                verdict = ask(answer(question, user))
                assert verdict["type"] == "verdict", verdict
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(proc.pid) - cpu
        send.close()
        assert proc.wait(timeout=60) == 0
    return PAIRS / elapsed, PAIRS / cpu


async def in_process(users: int, catalog: Catalog) -> Rate:
    """Pairs per second through the program's session (JsonlSession.handle), in process."""
    with tempfile.TemporaryDirectory() as tmp:
        db = InlineDatabase(Path(tmp) / "bench.sqlite3")
        async with db:
            clock = FakeClock(dt.datetime.fromisoformat(START))
            session = new_session(db, catalog, None, 1, clock)
            started, cpu = time.perf_counter(), time.process_time()
            for i in range(PAIRS):
                user = 1 + i % users
                question = await session.handle(requests(user))
                verdict = await session.handle(answer(question, user))
                assert verdict["type"] == "verdict", verdict
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
            return PAIRS / elapsed, PAIRS / cpu


def spread(label: str, rates: list[Rate]) -> None:
    for unit, values in (("/s", [r[0] for r in rates]), ("/CPU-s", [r[1] for r in rates])):
        print(
            f"   {label}: min {min(values):6,.0f}  median {statistics.median(values):6,.0f}"
            f"  max {max(values):6,.0f} pairs{unit}",
            flush=True,
        )


def main() -> None:
    """Interleave the modes, one user and 100 users, REPS times each."""
    load = os.getloadavg()[0]
    catalog = Catalog(load_banks([BUNDLED_QUESTIONS]).banks)
    print(f"   {PAIRS:,} next+answer pairs per rep, fresh SQLite file, {REPS} reps", flush=True)
    for users in (1, 100):
        process: list[Rate] = []
        inside: list[Rate] = []
        piped: list[Rate] = []
        floor: list[Rate] = []
        for _ in range(REPS):
            process.append(as_process(users))
            floor.append(as_process(users, program=FLOOR))
            inside.append(asyncio.run(in_process(users, catalog)))
            if users > 1:
                piped.append(as_process(users, pipelined=True))
        spread(f"process, {users} user(s)   ", process)
        spread(f"floor, {users} user(s)     ", floor)
        spread(f"in process, {users} user(s)", inside)
        if piped:
            spread(f"pipelined, {users} users    ", piped)
    print(f"   load average {load:.1f} before, {os.getloadavg()[0]:.1f} after", flush=True)


if __name__ == "__main__":
    main()
