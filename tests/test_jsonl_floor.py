"""The jsonl benchmark's floor program writes the rows the real program writes for next and
answer (else the floor it measures would be beneath the real work, or above it)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Rows only some answers write: a misconception held (the real program's picks meet tagged
# distractors; the floor answers no real question).
SOMETIMES = {"misconception_states"}


def drive(args: list[str], env: dict[str, str]) -> list[dict[str, Any]]:
    """Two learners, ten next+answer pairs each, each question answered by its first options."""
    replies: list[dict[str, Any]] = []
    with subprocess.Popen(
        [sys.executable, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        send, receive = proc.stdin, proc.stdout

        def ask(request: dict[str, Any]) -> dict[str, Any]:
            send.write(json.dumps(request) + "\n")
            send.flush()
            reply: dict[str, Any] = json.loads(receive.readline())
            replies.append(reply)
            return reply

        for _ in range(10):
            for user in (1, 2):
                question = ask({"cmd": "next", "user": user})
                chosen = list(range(question["select"]))
                delivery = question["delivery"]
                ask({"cmd": "answer", "user": user, "delivery": delivery, "chosen": chosen})
        send.close()
        assert proc.wait(timeout=60) == 0
    return replies


def written(path: Path) -> dict[str, int]:
    """Rows per table, for the tables that hold any."""
    conn = sqlite3.connect(path)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        counts = {n: conn.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        conn.close()
    return {name: count for name, count in counts.items() if count}


def test_the_floor_writes_the_rows_of_the_real_program(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QUIZBOT_DB": str(tmp_path / "real.sqlite3")}
    env.pop("QUIZBOT_QUESTIONS", None)
    real = drive(
        ["-m", "bot", "play", "--jsonl", "--seed", "1", "--clock", "2027-01-04T08:00:00Z"], env
    )
    floor = drive(["-m", "tests.bench.jsonl_floor", str(tmp_path / "floor.sqlite3")], env)
    # The same reply shapes, in the same order.
    assert [(r["type"], sorted(r)) for r in floor] == [(r["type"], sorted(r)) for r in real]
    real_rows, floor_rows = written(tmp_path / "real.sqlite3"), written(tmp_path / "floor.sqlite3")
    assert set(real_rows) - SOMETIMES == set(floor_rows)
    for table in ("users", "deliveries", "answers", "memory_states", "learner_days"):
        assert floor_rows[table] == real_rows[table], table
