"""Study policies compared on simulated learners: answers to ready, exam score, readiness error.

Targets: the engine needs >= 30% fewer answers than random order and >= 15% fewer than plain
FSRS to be ready (and still ready a week later), on both ground truths and on both banks;
readiness MAE <= 7 points and Brier <= 0.18. Seeded: the same figures on every run; the spread over
seeds (median [min-max]) shows how much of a difference is luck of the draw.

Every figure is of the first DAYS days, except answers to ready: a learner not ready by then
goes on practising, up to READY_WITHIN days, only to be counted. Stopping at DAYS would count
every learner not ready yet as the whole budget, which on the half-life ground truth is most
learners under some policies and squeezes every difference toward zero. A learner never ready
within READY_WITHIN days still counts as that budget ("reached" below 100%: a lower bound).
Runs go to two worker processes (the machines have two cores).
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bot.bank.loader import load_banks
from bot.learning.blueprint import Blueprint
from bot.learning.simulate.generated_bank import generate_bank
from bot.learning.simulate.policies import POLICIES
from bot.learning.simulate.report import table
from bot.learning.simulate.runner import PolicyReport, SimConfig, run_policy
from bot.learning.simulate.truth import TRUTHS

LEARNERS = 20
DAYS = 60
READY_WITHIN = 150
PER_DAY = 20
EXAM_IN = 30
SEEDS = (11, 12, 13)
BUNDLED = Path(__file__).resolve().parents[2] / "questions"


def _spread(values: list[float], fmt: str = "{:.0f}") -> str:
    lo, mid, hi = min(values), statistics.median(values), max(values)
    return f"{fmt.format(mid)} [{fmt.format(lo)}-{fmt.format(hi)}]"


def _verdicts(runs: dict[int, list[PolicyReport]]) -> list[str]:
    lines = []
    for truth in TRUTHS:
        by_seed = {
            seed: {r.policy: r for r in reports if r.truth == truth}
            for seed, reports in runs.items()
        }
        for base, target in (("random", 0.30), ("fsrs", 0.15)):
            savings = [
                1 - by["engine"].questions_to_ready / by[base].questions_to_ready
                for by in by_seed.values()
            ]
            ok = "met" if statistics.median(savings) >= target else "MISSED"
            lines.append(
                f"{truth}: engine vs {base}: median {statistics.median(savings):+.0%} fewer "
                f"answers [{min(savings):+.0%} to {max(savings):+.0%}] (target {target:.0%}) {ok}"
            )
        maes = [by["engine"].readiness_mae for by in by_seed.values()]
        briers = [by["engine"].readiness_brier for by in by_seed.values()]
        if all(m is not None for m in maes) and all(b is not None for b in briers):
            mae = statistics.median(m for m in maes if m is not None)
            brier = statistics.median(b for b in briers if b is not None)
            lines.append(
                f"{truth}: readiness under the engine: MAE median {mae:.1f} (target 7) "
                f"{'met' if mae <= 7 else 'MISSED'}, Brier median {brier:.3f} (target 0.18) "
                f"{'met' if brier <= 0.18 else 'MISSED'}"
            )
    return lines


def _spread_table(runs: dict[int, list[PolicyReport]]) -> str:
    lines = ["truth      policy   to ready: median [min-max] over seeds   MAE median"]
    first = next(iter(runs.values()))
    for r in first:
        same = [
            x
            for reports in runs.values()
            for x in reports
            if (x.truth, x.policy) == (r.truth, r.policy)
        ]
        maes = [x.readiness_mae for x in same if x.readiness_mae is not None]
        mae = f"{statistics.median(maes):.1f}" if maes else "-"
        lines.append(
            f"{r.truth:10s} {r.policy:8s} {_spread([x.questions_to_ready for x in same]):>20s}"
            f"{mae:>22s}"
        )
    return "\n".join(lines)


def main() -> None:
    """Run every policy on both ground truths, both banks and several seeds; print the spread."""
    banks = {
        "bundled": Blueprint.of(next(iter(load_banks([BUNDLED]).banks.values()))),
        "generated-300": Blueprint.of(generate_bank(300)),
    }
    for name, plan in banks.items():
        started = time.perf_counter()
        configs = [
            SimConfig(
                LEARNERS, DAYS, PER_DAY, EXAM_IN, policy, truth, seed, ready_within=READY_WITHIN
            )
            for seed in SEEDS
            for truth in TRUTHS
            for policy in POLICIES
        ]
        with ProcessPoolExecutor(2) as pool:
            reports = list(pool.map(run_policy, [plan] * len(configs), configs))
        runs: dict[int, list[PolicyReport]] = {seed: [] for seed in SEEDS}
        for cfg, report in zip(configs, reports, strict=True):
            runs[cfg.seed].append(report)
        print(
            f"bank {name} ({plan.meta.id}, {len(plan.questions)} questions): {LEARNERS} "
            f"learners, {DAYS} days x {PER_DAY} (answers to ready: up to {READY_WITHIN} days), "
            f"exam in {EXAM_IN} days, seeds {SEEDS} "
            f"({time.perf_counter() - started:.0f} s)"
        )
        print(f"seed {SEEDS[0]}:")
        print(table(runs[SEEDS[0]]))
        print(_spread_table(runs))
        print("\n".join(_verdicts(runs)) + "\n", flush=True)
