"""`quizbot simulate`: simulated learners practise a bank under each policy; figures out."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bot.learning.blueprint import Blueprint
from bot.learning.simulate.panel_models import TRUTH_NAMES
from bot.learning.simulate.policies import POLICIES
from bot.learning.simulate.report import parameters_text, table
from bot.learning.simulate.runner import SimConfig, run_policy
from bot.learning.simulate.truth import TRUTHS

GENERATED = "generated-"

DESCRIPTION = """\
Simulated learners practise a bank day by day on a simulated clock, with the same study queue,
memory model and readiness estimate as the bot. Each learner has an ability per topic (Rasch),
each question a difficulty, memory that decays between answers and grows with feedback, blind
guessing when recall fails (1/options, 1/C(options, k) for select-k), and some hold
misconceptions that pull them to the tagged distractor. The ground-truth memory models are
those of the learner panel (docs/panel.md): power-law, half-life, act-r, dash, mcm,
two-component, exponential and strong-spacing, each also at a /fast and a /slow end, and the
held-out ppe, atkinson and estes, which the study queue's rules were never chosen on.
Reported per policy: answers until the learner's true expected exam score reaches the passing
score and is still there a week later without study (a learner never ready counts as the whole
budget), true score and pass rate on exam day, blueprint coverage, and the readiness
estimate's MAE and Brier score. Learners practise side by side, day by day: the engine's
nightly fit pools their answers, as it pools a bank's learners in the bot.
"""


def register(sub: Any) -> None:
    """Add `quizbot simulate`."""
    p = sub.add_parser(
        "simulate",
        help="simulate learners to compare study policies and check readiness",
        description=DESCRIPTION,
        epilog="Model parameters:\n" + parameters_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--bank", help=f"bank id, or {GENERATED}N for a synthetic bank of N questions")
    p.add_argument("--learners", type=int, default=200, help="simulated learners (200)")
    p.add_argument("--days", type=int, default=30, help="days of practice (30)")
    p.add_argument("--per-day", type=int, default=20, help="answers per day (20)")
    p.add_argument("--exam-in", type=int, default=30, help="days until the exam (30)")
    p.add_argument(
        "--ready-within",
        type=int,
        default=0,
        metavar="DAYS",
        help="learners not ready after --days go on practising up to DAYS days in all, only to "
        "count their answers to ready (default: stop at --days; a learner never ready counts "
        "as the whole budget)",
    )
    p.add_argument(
        "--policy",
        action="append",
        choices=[*POLICIES, "all"],
        help="policy to run, repeatable (default: all)",
    )
    p.add_argument(
        "--truth",
        choices=[*TRUTH_NAMES, "both"],
        default="both",
        metavar="MODEL",
        help="ground-truth memory model: one of the panel's or the held-out models, e.g. "
        "act-r, act-r/fast, ppe (docs/panel.md), or both: power-law and half-life (both)",
    )
    p.add_argument("--seed", type=int, default=1, help="random seed (1)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=cmd_simulate)


def _blueprint(bank_id: str | None) -> Blueprint | str:
    if bank_id and bank_id.startswith(GENERATED):
        from bot.learning.simulate.generated_bank import generate_bank

        size = bank_id.removeprefix(GENERATED)
        # isdecimal, not isdigit: "²" is a digit that int() refuses.
        if not size.isdecimal() or not 10 <= int(size) <= 5000:
            return f"{bank_id}: expected {GENERATED}N with N from 10 to 5000"
        return Blueprint.of(generate_bank(int(size)))
    from bot.bank.loader import load_banks
    from bot.config import ConfigError, load_settings

    try:
        paths = load_settings().questions
    except ConfigError as err:
        return str(err)
    result = load_banks(paths)
    if not result.banks:
        return "no valid question bank found"
    if bank_id is None:
        return Blueprint.of(next(iter(result.banks.values())))
    if bank_id not in result.banks:
        return f"unknown bank {bank_id!r}; known: {', '.join(result.banks)}"
    return Blueprint.of(result.banks[bank_id])


def cmd_simulate(args: argparse.Namespace) -> int:
    """Run the simulation and print a table (or JSON)."""
    plan = _blueprint(args.bank)
    if isinstance(plan, str):
        print(f"quizbot: {plan}", file=sys.stderr)
        return 2
    if min(args.learners, args.days, args.per_day, args.exam_in) < 1:
        print(
            "quizbot: --learners, --days, --per-day and --exam-in must be at least 1",
            file=sys.stderr,
        )
        return 2
    if args.ready_within < 0 or args.ready_within > 3650:
        print("quizbot: --ready-within must be from 0 to 3650 days", file=sys.stderr)
        return 2
    policies = [p for p in POLICIES if not args.policy or "all" in args.policy or p in args.policy]
    truths = TRUTHS if args.truth == "both" else (args.truth,)
    reports = [
        run_policy(
            plan,
            SimConfig(
                learners=args.learners,
                days=args.days,
                per_day=args.per_day,
                exam_in=args.exam_in,
                policy=policy,
                truth=truth,
                seed=args.seed,
                ready_within=args.ready_within,
            ),
        )
        for truth in truths
        for policy in policies
    ]
    if args.json:
        print(
            json.dumps(
                {
                    "bank": plan.meta.id,
                    "questions": len(plan.questions),
                    "passing_score": plan.passing_score,
                    "reports": [r.as_dict() for r in reports],
                }
            )
        )
    else:
        print(
            f"bank {plan.meta.id}: {len(plan.questions)} questions, passing score "
            f"{plan.passing_score:g}%, {args.learners} learners, {args.days} days x "
            f"{args.per_day}, exam in {args.exam_in} days, seed {args.seed}"
            + (f", answers to ready up to {args.ready_within} days" if args.ready_within else "")
        )
        print(table(reports))
    return 0
