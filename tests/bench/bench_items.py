"""`quizbot report` over 1,000 questions and 1,000,000 answers: time and peak RSS per run.

The database (the project's migrations, answers from the known model in tests/item_model.py)
is generated once and cached under the temp folder; each run is a fresh `quizbot report`
process, so its peak RSS is the report's own.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.item_model import Item, Model, make_bank, new_database, question, write_bank

QUESTIONS = 1_000
LEARNERS = 10_000
PER_LEARNER = 90
REPEATS = 0.111  # about 1,000,000 answers, 900,000 of them first attempts
TOPICS = ("fine-tuning", "data-preparation", "deployment", "evaluation", "safety", "prompting")
REPS = 5
TARGET_SECONDS = 10.0
TARGET_RSS_MB = 300.0
CACHE = Path(tempfile.gettempdir()) / "quizbot-bench-items-v1"


def build(folder: Path) -> tuple[Path, Path]:
    """The bank folder and database, generated unless already cached."""
    bank_dir = folder / "bank"
    db = folder / "answers.sqlite3"
    if db.is_file() and (bank_dir / "bank.yaml").is_file():
        return bank_dir, db
    folder.mkdir(parents=True, exist_ok=True)
    questions = [
        question(
            f"q{i:04d}",
            TOPICS[i % len(TOPICS)],
            key=((i % 4, (i + 1) % 4) if i % 9 == 0 else (i % 4,)),
        )
        for i in range(QUESTIONS)
    ]
    bank = make_bank(questions, bank_id="bench")
    items = {
        q.id: Item(a=0.3 + (i % 10) / 4, b=(i % 13) / 4 - 1.5) for i, q in enumerate(questions)
    }
    model = Model(bank, items)
    started = time.perf_counter()
    tmp = db.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    conn = new_database(tmp)
    from tests.item_model import insert_rows

    count = insert_rows(conn, bank.id, model.rows(LEARNERS, PER_LEARNER, REPEATS))
    conn.close()
    write_bank(bank, bank_dir)
    tmp.rename(db)
    print(f"   generated {count:,} answers in {time.perf_counter() - started:.1f} s: {db}")
    return bank_dir, db


def run_once(bank_dir: Path, db: Path, out: Path) -> tuple[float, float, float]:
    """One `quizbot report --format html` process: (wall s, CPU s, peak RSS in MB)."""
    cmd = [
        sys.executable,
        "-m",
        "bot",
        "report",
        "--bank",
        "bench",
        "--format",
        "html",
        "--out",
        str(out),
        "--db",
        str(db),
        "--questions",
        str(bank_dir),
    ]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"quizbot report failed: exit {status}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    """Print min/median/max time and peak RSS over several runs."""
    bank_dir, db = build(CACHE)
    out = CACHE / "report.html"
    times: list[float] = []
    cpu: list[float] = []
    rss: list[float] = []
    for _ in range(REPS):
        seconds, cpu_s, peak = run_once(bank_dir, db, out)
        times.append(seconds)
        cpu.append(cpu_s)
        rss.append(peak)
    print(f"   {QUESTIONS:,} questions, ~1,000,000 answers, {REPS} runs of quizbot report (html)")
    print(
        f"   time s:  min {min(times):.2f}  median {statistics.median(times):.2f}  "
        f"max {max(times):.2f}   (target < {TARGET_SECONDS:.0f})"
    )
    print(
        f"   CPU s:   min {min(cpu):.2f}  median {statistics.median(cpu):.2f}  "
        f"max {max(cpu):.2f}   (wall minus CPU is waiting: I/O or a busy machine)"
    )
    print(
        f"   RSS MB:  min {min(rss):.0f}  median {statistics.median(rss):.0f}  "
        f"max {max(rss):.0f}   (target < {TARGET_RSS_MB:.0f})"
    )
    print(f"   report: {out} ({out.stat().st_size / 1e6:.1f} MB)")
