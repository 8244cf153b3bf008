"""How far the study queue is from the best possible: an oracle that sees true memory.

Per bank, ground truth and seed (the learning bench's learners, days and budget): mean answers
to "ready and still ready a week later" for random order, plain FSRS and the engine, for the
bench-only oracle (tests/bench/oracle_bound.py; greedy on the true score a week ahead, one
answer at a time and in bursts of up to three), and under half-life memory a provable floor no
policy can beat. The oracle is an achievable figure for a policy that knows the truth, not an
optimum: where it meets a target, the target is reachable in principle; the floor shows how much
room is left beyond it. Slow (about 14 CPU minutes a seed): run it on its own,
`python -m tests.bench oracle`.
"""

from __future__ import annotations

import statistics
import time

from bot.bank.loader import load_banks
from bot.learning.blueprint import Blueprint
from bot.learning.simulate.generated_bank import generate_bank
from bot.learning.simulate.runner import SimConfig, run_policy
from bot.learning.simulate.truth import TRUTHS
from tests.bench.bench_learning import BUNDLED, DAYS, EXAM_IN, LEARNERS, PER_DAY
from tests.bench.oracle_bound import half_life_floor, oracle_to_ready, week_ahead

SEEDS = (11, 21)
BASELINES = ("random", "fsrs", "engine")
BURSTS = (1, 3)


def _mean(values: list[int | None], budget: int) -> float:
    # As the runner counts it: a learner never ready counts as the whole budget.
    return statistics.fmean(v if v is not None else budget for v in values)


def _cell(plan: Blueprint, truth: str, seed: int) -> dict[str, float]:
    budget = DAYS * PER_DAY
    found: dict[str, float] = {}
    for policy in BASELINES:
        cfg = SimConfig(LEARNERS, DAYS, PER_DAY, EXAM_IN, policy, truth, seed)
        found[policy] = run_policy(plan, cfg).questions_to_ready
    cfg = SimConfig(LEARNERS, DAYS, PER_DAY, EXAM_IN, "oracle", truth, seed)
    for burst in BURSTS:
        runs = [oracle_to_ready(plan, cfg, n, week_ahead, burst) for n in range(LEARNERS)]
        found[f"oracle-{burst}"] = _mean(runs, budget)
    if truth == "half-life":
        found["floor"] = _mean([half_life_floor(plan, cfg, n) for n in range(LEARNERS)], budget)
    return found


def main() -> None:
    """Every bank, truth and seed: baselines, engine, oracle and floor side by side."""
    print(
        f"{LEARNERS} learners, {DAYS} days x {PER_DAY}; mean answers to ready (never: "
        f"{DAYS * PER_DAY}); best oracle vs random (target -30%) and vs FSRS (target -15%)"
    )
    print(
        "bank           truth      seed  random   fsrs  engine oracle-1 oracle-3  floor"
        "   best vs random / fsrs   engine vs random / fsrs"
    )
    banks = {
        "bundled": Blueprint.of(next(iter(load_banks([BUNDLED]).banks.values()))),
        "generated-300": Blueprint.of(generate_bank(300)),
    }
    for name, plan in banks.items():
        for truth in TRUTHS:
            for seed in SEEDS:
                started = time.process_time()
                f = _cell(plan, truth, seed)
                best = min(f[f"oracle-{b}"] for b in BURSTS)
                floor = f"{f['floor']:7.0f}" if "floor" in f else "      -"
                print(
                    f"{name:14s} {truth:10s} {seed:4d} {f['random']:7.0f} {f['fsrs']:6.0f} "
                    f"{f['engine']:7.0f} {f['oracle-1']:8.0f} {f['oracle-3']:8.0f}{floor}"
                    f"   {best / f['random'] - 1:+6.0%} / {best / f['fsrs'] - 1:+4.0%}"
                    f"          {f['engine'] / f['random'] - 1:+6.0%} / "
                    f"{f['engine'] / f['fsrs'] - 1:+4.0%}"
                    f"   ({time.process_time() - started:.0f} s CPU)",
                    flush=True,
                )
