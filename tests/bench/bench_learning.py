"""Study policies compared on simulated learners: answers to ready, exam score, readiness error.

Targets: the engine needs >= 30% fewer answers than random order and >= 15% fewer than plain
FSRS to be ready (and still ready a week later), on both ground truths and on both banks;
readiness MAE <= 7 points and Brier <= 0.18. Seeded: the same figures on every run.
"""

from __future__ import annotations

import time
from pathlib import Path

from bot.bank.loader import load_banks
from bot.learning.blueprint import Blueprint
from bot.learning.simulate.generated_bank import generate_bank
from bot.learning.simulate.policies import POLICIES
from bot.learning.simulate.report import table
from bot.learning.simulate.runner import PolicyReport, SimConfig, run_policy
from bot.learning.simulate.truth import TRUTHS

LEARNERS = 30
DAYS = 60
PER_DAY = 20
EXAM_IN = 30
SEED = 11
BUNDLED = Path(__file__).resolve().parents[2] / "questions"


def _verdicts(reports: list[PolicyReport]) -> list[str]:
    lines = []
    for truth in TRUTHS:
        by = {r.policy: r for r in reports if r.truth == truth}
        engine = by["engine"].questions_to_ready
        for base, target in (("random", 0.30), ("fsrs", 0.15)):
            saving = 1 - engine / by[base].questions_to_ready
            ok = "met" if saving >= target else "MISSED"
            lines.append(
                f"{truth}: engine vs {base}: {saving:+.0%} fewer answers "
                f"(target {target:.0%}) {ok}"
            )
        mae = by["engine"].readiness_mae
        brier = by["engine"].readiness_brier
        if mae is not None and brier is not None:
            lines.append(
                f"{truth}: readiness under the engine: MAE {mae:.1f} (target 7) "
                f"{'met' if mae <= 7 else 'MISSED'}, Brier {brier:.3f} (target 0.18) "
                f"{'met' if brier <= 0.18 else 'MISSED'}"
            )
    return lines


def main() -> None:
    """Run every policy on both ground truths and both banks; print tables and verdicts."""
    banks = {
        "bundled": Blueprint.of(next(iter(load_banks([BUNDLED]).banks.values()))),
        "generated-300": Blueprint.of(generate_bank(300)),
    }
    for name, plan in banks.items():
        started = time.perf_counter()
        reports = [
            run_policy(
                plan,
                SimConfig(LEARNERS, DAYS, PER_DAY, EXAM_IN, policy, truth, SEED),
            )
            for truth in TRUTHS
            for policy in POLICIES
        ]
        print(
            f"bank {name} ({plan.meta.id}, {len(plan.questions)} questions): {LEARNERS} "
            f"learners, {DAYS} days x {PER_DAY}, exam in {EXAM_IN} days, seed {SEED} "
            f"({time.perf_counter() - started:.0f} s)"
        )
        print(table(reports))
        print("\n".join(_verdicts(reports)) + "\n", flush=True)
