"""`quizbot play --jsonl` as a simulation rig uses it: 16 learners x 40 days x 50 answers a day.

The program runs as a process on a fresh SQLite file with the bundled bank, driven by a client
that waits for each reply before it sends the next request (next, then answer, one learner after
another; one `advance` of a day between days). Each answer is a durable write, as in the bot.
Floor: the whole run finishes in under 2 minutes. Prints wall seconds and next+answer pairs per
second, min/median/max over the reps.

Run: `python -m tests.bench jsonl` (`JSONL_REPS`, `JSONL_DAYS` to change the size).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LEARNERS = 16
DAYS = int(os.environ.get("JSONL_DAYS", "40"))
PER_DAY = 50
REPS = int(os.environ.get("JSONL_REPS", "3"))
FLOOR_SECONDS = 120.0


def run_once(folder: Path) -> tuple[float, int]:
    """One simulation: its wall seconds and the next+answer pairs it served."""
    cmd = [sys.executable, "-m", "bot", "play", "--jsonl", "--seed", "1"]
    cmd += ["--clock", "2027-01-04T08:00:00Z", "--db", str(folder / "bench.sqlite3")]
    env = {k: v for k, v in os.environ.items() if k != "QUIZBOT_TOKEN"}
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, bufsize=1
    )
    assert proc.stdin is not None and proc.stdout is not None
    send, read = proc.stdin, proc.stdout
    rng = random.Random(2)

    def ask(request: dict[str, object]) -> dict[str, object]:
        send.write(json.dumps(request) + "\n")
        send.flush()
        reply: dict[str, object] = json.loads(read.readline())
        return reply

    pairs = 0
    started = time.perf_counter()
    for _day in range(DAYS):
        for user in range(1, LEARNERS + 1):
            for _ in range(PER_DAY):
                question = ask({"cmd": "next", "user": user})
                if question["type"] != "question":
                    break
                options = question["options"]
                select = question["select"]
                assert isinstance(options, list) and isinstance(select, int)
                chosen = sorted(rng.sample(range(len(options)), select))
                ask({"cmd": "answer", "user": user, "delivery": question["delivery"],
                     "chosen": chosen})  # fmt: skip
                pairs += 1
        ask({"cmd": "advance", "seconds": 86400})
    send.close()
    proc.wait()
    return time.perf_counter() - started, pairs


def main() -> None:
    """Run the simulation REPS times and print the figures."""
    walls: list[float] = []
    rates: list[float] = []
    for _ in range(REPS):
        with tempfile.TemporaryDirectory() as tmp:
            wall, pairs = run_once(Path(tmp))
        walls.append(wall)
        rates.append(pairs / wall)
        print(f"   run: {pairs} pairs in {wall:.1f} s ({pairs / wall:.0f} pairs/s)", flush=True)
    print(
        f"   {LEARNERS} learners x {DAYS} days x {PER_DAY} a day: wall s min/median/max "
        f"{min(walls):.1f} / {statistics.median(walls):.1f} / {max(walls):.1f} "
        f"(floor {FLOOR_SECONDS:.0f} s); pairs/s {min(rates):.0f} / "
        f"{statistics.median(rates):.0f} / {max(rates):.0f}"
    )


if __name__ == "__main__":
    main()
