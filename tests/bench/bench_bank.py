"""Load a generated bank of 10,000 questions, and start `quizbot run` with it.

`python -m tests.bench bank`. Every measurement runs in a fresh process, so every rep pays
what a start pays (no warm import or allocator state), and the variants are interleaved
(A B C ..., A B C ...) against a noisy machine; figures are min / median / max over reps,
wall time and CPU time (user + system) of the loading process: on a quiet machine a cold
load's wall time is close to its CPU time.

1. Load and validate (`load_banks`): without the cache, the first start (parses, writes the
   cache), a warm start (cache in place), and a warm start after one file was edited.
2. Startup: `quizbot run` against the fake Bot API server until its first getUpdates (the
   database migrated beforehand, as on any restart): cold cache and warm cache.

Set QUIZBOT_BENCH_BASE to a checkout of an earlier revision (e.g. made with
`git archive <rev> | tar -x -C DIR`) to add it as variant A; QUIZBOT_BENCH_REPS sets the reps.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.fakes import TOKEN, FakeBotApiServer

QUESTIONS = 10_000
TARGET_SECONDS = 1.0
HERE = Path(__file__).resolve().parents[2]
TOPICS = ("fine-tuning", "data-preparation", "deployment", "evaluation", "safety", "prompting")

BANK_YAML = """\
id: bench
title: Benchmark bank
exam_code: BENCH-1
passing_score: 70
mock_exam: {questions: 60, minutes: 90}
topics:
""" + "".join(
    f"  - {{id: {t}, name: {t.title()}, weight: {100 / len(TOPICS)!r}}}\n" for t in TOPICS
)

# One load in a fresh process; prints its figures as JSON. An older checkout has no cache.
LOAD = """
import gc, json, resource, sys, time
from pathlib import Path
from bot.bank.loader import load_banks
bank, cache, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
gc.collect()
wall, main, helpers = time.perf_counter(), time.process_time(), children()
result = load_banks([bank], Path(cache)) if cache else load_banks([bank])
wall, main = time.perf_counter() - wall, time.process_time() - main
cpu = main + children() - helpers
assert not result.problems and len(result.banks["bench"].questions) == count, result.problems[:3]
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"wall": wall, "cpu": cpu, "main": main, "rss": rss}))
"""


def question_yaml(n: int) -> str:
    """A realistic question file: four options with rationales, explanation, trap, metadata."""
    multiple = n % 7 == 0
    correct = {n % 4, (n + 1) % 4} if multiple else {n % 4}
    options = "".join(
        f"""  - text: Option {i} of question {n}, phrased like a real answer choice would be.
    correct: {str(i in correct).lower()}
    rationale: >-
      Rationale {i} for question {n}: why learners pick this option and why it is or is not
      right here, long enough to look like the rationales written for the bundled bank.
"""
        for i in range(4)
    )
    return f"""# yaml-language-server: $schema=../../bot/bank/question.schema.json
id: bench-{n:05d}
topic: {TOPICS[n % len(TOPICS)]}
difficulty: {("easy", "medium", "hard")[n % 3]}
kind: {"multiple" if multiple else "single"}
stem: >-
  Question {n}: a team fine-tunes a model and sees something happen during training. Which
  change is most likely to help, given the constraints described in this stem?
options:
{options}explanation: >-
  The explanation of question {n}, a paragraph that says why the right answer is right and
  what the learner should remember for the exam.
trap: >-
  The common exam trap of question {n}.
tags: [bench, generated]
author: bench generator
reviewed: 2026-11-15
"""


def generate(folder: Path, count: int = QUESTIONS) -> Path:
    """Write a bank of `count` questions into `folder/bench`, 100 per sub-folder."""
    bank = folder / "bench"
    bank.mkdir(parents=True)
    (bank / "bank.yaml").write_text(BANK_YAML, encoding="utf-8")
    for n in range(count):
        sub = bank / f"part-{n // 100:03d}"
        if n % 100 == 0:
            sub.mkdir()
        (sub / f"q{n:05d}.yaml").write_text(question_yaml(n), encoding="utf-8")
    return bank


@dataclass
class Variant:
    """One way of loading or starting, and its figures over the reps."""

    name: str
    root: Path  # the checkout whose code runs
    cache: Path | None
    before: Callable[[], None] = lambda: None
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    main: list[float] = field(default_factory=list)  # CPU of the loading process alone
    rss: list[float] = field(default_factory=list)


def env_for(root: Path, **extra: str) -> dict[str, str]:
    """The environment of a child running `root`'s code (PYTHONPATH wins over the install)."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))}
    return {**keep, "PYTHONPATH": str(root), "PYTHONUNBUFFERED": "1", **extra}


def load_once(variant: Variant, bank: Path) -> None:
    variant.before()
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            LOAD,
            str(bank),
            str(variant.cache or ""),
            str(QUESTIONS),
        ],
        env=env_for(variant.root),
        cwd=bank.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    variant.wall.append(figures["wall"])
    variant.cpu.append(figures["cpu"])
    variant.main.append(figures["main"])
    variant.rss.append(figures["rss"])


def child_cpu(pid: int) -> float:
    """CPU seconds (user + system) a running child and its ended children have used so far
    (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def start_once(variant: Variant, questions: Path, db: Path) -> None:
    """`quizbot run` until its first getUpdates: wall seconds and CPU seconds to that point."""
    variant.before()
    with FakeBotApiServer() as server:
        env = env_for(
            variant.root,
            BOT_TOKEN=TOKEN,
            BOT_API_URL=server.url,
            QUIZBOT_DB=str(db),
            QUIZBOT_QUESTIONS=str(questions),
            QUIZBOT_LOG_LEVEL="WARNING",
        )
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "run"],
            env=env,
            cwd=db.parent,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            while not server.api.count("getUpdates"):
                if proc.poll() is not None:
                    raise SystemExit(f"{variant.name}: bot exited: {proc.stderr.read()!r}")  # type: ignore[union-attr]
                time.sleep(0.005)
            variant.wall.append(time.perf_counter() - started)
            variant.cpu.append(child_cpu(proc.pid))
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stderr.close()  # type: ignore[union-attr]


def migrate(root: Path, db: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "bot", "migrate"],
        env=env_for(root, QUIZBOT_DB=str(db)),
        cwd=db.parent,
        capture_output=True,
        check=True,
    )


def spread(values: list[float]) -> str:
    return f"{min(values):5.2f} / {statistics.median(values):5.2f} / {max(values):5.2f}"


def report(title: str, variants: list[Variant], with_rss: bool) -> None:
    print(f"   {title} (min / median / max over {len(variants[0].wall)} reps, seconds)")
    for v in variants:
        rss = f"   max RSS {max(v.rss):4.0f} MB" if with_rss else ""
        main = f"   loader cpu {spread(v.main)}" if v.main else ""
        print(f"   {v.name:<34} wall {spread(v.wall)}   cpu {spread(v.cpu)}{main}{rss}")


def main() -> None:
    """Generate the bank, then run the load and startup reps interleaved."""
    reps = int(os.environ.get("QUIZBOT_BENCH_REPS", "3"))
    base = os.environ.get("QUIZBOT_BENCH_BASE")
    with tempfile.TemporaryDirectory(prefix="quizbot-bench-") as tmp:
        folder = Path(tmp)
        bank = generate(folder / "banks")
        cache = folder / "load.sqlite3-banks"
        edited = bank / "part-042" / "q04242.yaml"
        edits = iter(range(1_000_000))

        def edit() -> None:
            with edited.open("a", encoding="utf-8") as out:
                out.write(f"# edit {next(edits)}\n")

        loads = [
            *([Variant("A base, parse", Path(base), None)] if base else []),
            Variant("B no cache, parse", HERE, None),
            Variant(
                "B first start: parse, write cache",
                HERE,
                cache,
                lambda: cache.unlink(missing_ok=True),
            ),
            Variant("B warm cache", HERE, cache),
            Variant("B warm cache, 1 file edited", HERE, cache, edit),
        ]
        for _ in range(reps):
            for variant in loads:
                load_once(variant, bank)
        report(f"load and validate {QUESTIONS:,} questions", loads, with_rss=True)
        # On a busy machine wall time is mostly waiting for a core: a quiet machine's wall
        # time is close to the CPU time, so the warm verdict is on the best CPU time. A cold
        # load has no target (one process parses every file): its figures are reported.
        best = min(loads[-2].cpu)
        verdict = "ok" if best <= TARGET_SECONDS else "MISSED"
        print(
            f"   warm load: min wall {min(loads[-2].wall):.2f} s, min cpu {best:.2f} s"
            f" (target <= {TARGET_SECONDS:g} s on a quiet machine, judged on CPU: {verdict})"
        )
        print(
            f"   cold load: min wall {min(loads[-4].wall):.2f} s,"
            f" min cpu {min(loads[-4].cpu):.2f} s"
        )

        dbs = {"A": folder / "a" / "bot.sqlite3", "B": folder / "b" / "bot.sqlite3"}
        b_cache = dbs["B"].with_name("bot.sqlite3-banks")
        starts = [
            *([Variant("A base", Path(base), None)] if base else []),
            Variant("B cold cache", HERE, b_cache, lambda: b_cache.unlink(missing_ok=True)),
            Variant("B warm cache", HERE, b_cache),
        ]
        for v in starts:
            db = dbs[v.name[0]]
            db.parent.mkdir(exist_ok=True)
            if not db.exists():
                migrate(v.root, db)
        for _ in range(reps):
            for v in starts:
                start_once(v, bank.parent, dbs[v.name[0]])
        report("startup to the first getUpdates", starts, with_rss=False)


if __name__ == "__main__":
    main()
