"""The panel the study queue is proven on: every ground-truth model and its sweep, daily
budgets, exam horizons and banks, each cell run for every policy on the same learners."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bot.learning.blueprint import Blueprint
from bot.learning.simulate.generated_bank import csv_bank, generate_bank
from bot.learning.simulate.panel_models import MODELS
from bot.learning.simulate.runner import PolicyReport, SimConfig, run_policy

VARIANTS = ("", "/fast", "/slow")
BUDGETS = (5, 20, 50)
HORIZONS = (14, 30, 90)
BANKS = ("bundled", "generated-300", "csv-240")
POLICIES = ("engine", "fsrs", "leitner", "random")
# Learners go on practising past the exam, only to count their answers to ready, until they
# have given this many (a learner never ready counts as this many).
ANSWER_CAP = 1200
BUNDLED = Path(__file__).resolve().parents[3] / "questions"


@cache
def bank(name: str) -> Blueprint:
    """One of the panel's banks, built once per process."""
    if name == "generated-300":
        return Blueprint.of(generate_bank(300))
    if name == "csv-240":
        return Blueprint.of(csv_bank(240))
    from bot.bank.loader import load_banks

    return Blueprint.of(next(iter(load_banks([BUNDLED]).banks.values())))


@dataclass(frozen=True)
class Cell:
    """One ground truth, bank, daily budget and days to the exam."""

    truth: str
    bank: str
    per_day: int
    horizon: int

    def config(self, policy: str, seed: int, learners: int) -> SimConfig:
        """The simulation of this cell for one policy and seed."""
        return SimConfig(
            learners=learners,
            days=self.horizon,
            per_day=self.per_day,
            exam_in=self.horizon,
            policy=policy,
            truth=self.truth,
            seed=seed,
            ready_within=max(self.horizon, math.ceil(ANSWER_CAP / self.per_day)),
            stop_when_ready=True,
        )


def design(
    full: bool = False, variants: tuple[str, ...] = VARIANTS, models: tuple[str, ...] = MODELS
) -> list[Cell]:
    """Every model x sweep variant meets every budget x horizon; the bank rotates so that each
    bank meets each budget, horizon and variant (`full`: every bank in every cell too)."""
    cells = []
    for m, model in enumerate(models):
        for v, variant in enumerate(VARIANTS):
            if variant not in variants:
                continue
            for b, per_day in enumerate(BUDGETS):
                for h, horizon in enumerate(HORIZONS):
                    banks = BANKS if full else (BANKS[(m + v + b + h) % len(BANKS)],)
                    cells += [Cell(model + variant, k, per_day, horizon) for k in banks]
    return cells


@dataclass(frozen=True)
class CellResult:
    """Every policy's mean answers to ready per seed, and the engine's readiness error."""

    cell: Cell
    to_ready: dict[str, list[float]]  # policy -> per seed
    mae: float | None
    brier: float | None

    def mean(self, policy: str) -> float:
        """Mean answers to ready over seeds."""
        return statistics.fmean(self.to_ready[policy])

    @property
    def best_baseline(self) -> str:
        """The better of plain FSRS and Leitner in this cell."""
        return min(("fsrs", "leitner"), key=self.mean)

    def ratio(self, policy: str) -> float:
        """Engine's answers to ready over `policy`'s."""
        return self.mean("engine") / self.mean(policy)

    @property
    def loses(self) -> bool:
        """The engine needs more answers than the better baseline, beyond seed noise: the
        paired difference over seeds above zero by more than two standard errors."""
        diffs = [
            e - b
            for e, b in zip(
                self.to_ready["engine"], self.to_ready[self.best_baseline], strict=True
            )
        ]
        mean = statistics.fmean(diffs)
        if len(diffs) < 2:
            return mean > 0
        se = statistics.stdev(diffs) / math.sqrt(len(diffs))
        return mean > 2 * se and mean > 0


def run_cell(
    cell: Cell, seeds: tuple[int, ...], learners: int, policies: tuple[str, ...] = POLICIES
) -> CellResult:
    """Every policy on the cell's learners (the same learners for every policy, per seed)."""
    plan = bank(cell.bank)
    reports: dict[str, list[PolicyReport]] = {
        p: [run_policy(plan, cell.config(p, s, learners)) for s in seeds] for p in policies
    }
    engine = reports.get("engine", [])
    maes = [r.readiness_mae for r in engine if r.readiness_mae is not None]
    briers = [r.readiness_brier for r in engine if r.readiness_brier is not None]
    return CellResult(
        cell,
        {p: [r.questions_to_ready for r in rs] for p, rs in reports.items()},
        statistics.fmean(maes) if maes else None,
        statistics.fmean(briers) if briers else None,
    )


def markdown(results: list[CellResult]) -> str:
    """The panel's table: one row per cell (a candidate rule run beside: a column each)."""
    extra = [p for p in (results[0].to_ready if results else {}) if p not in POLICIES]
    lines = [
        "| model | bank | per day | days | engine | FSRS | Leitner | random | vs best "
        "| MAE | Brier |" + "".join(f" {p} |" for p in extra),
        "|---|---|---|---|---|---|---|---|---|---|---|" + "---|" * len(extra),
    ]
    for r in results:
        c = r.cell
        best = min(r.mean("fsrs"), r.mean("leitner"))
        mark = " ✗" if r.loses else ""
        mae = "-" if r.mae is None else f"{r.mae:.1f}"
        brier = "-" if r.brier is None else f"{r.brier:.3f}"
        lines.append(
            f"| {c.truth} | {c.bank} | {c.per_day} | {c.horizon} | {r.mean('engine'):.0f} | "
            f"{r.mean('fsrs'):.0f} | {r.mean('leitner'):.0f} | {r.mean('random'):.0f} | "
            f"{r.mean('engine') / best:.2f}{mark} | {mae} | {brier} |"
            + "".join(f" {r.mean(p):.0f} |" for p in extra)
        )
    return "\n".join(lines)


def verdicts(results: list[CellResult]) -> list[str]:
    """The targets, each met or missed, with the figures."""
    lost = [r for r in results if r.loses]
    fsrs = statistics.median(r.ratio("fsrs") for r in results)
    rnd = statistics.median(r.ratio("random") for r in results)
    maes = [r.mae for r in results if r.mae is not None]
    briers = [r.brier for r in results if r.brier is not None]
    worst_mae, worst_brier = max(maes, default=0.0), max(briers, default=0.0)

    def ok(good: bool) -> str:
        return "met" if good else "MISSED"

    return [
        f"cells: {len(results)}; engine loses to the better of FSRS and Leitner (beyond seed "
        f"noise) in {len(lost)} {ok(not lost)}",
        f"median engine / plain FSRS: {fsrs:.2f} (target <= 0.85) {ok(fsrs <= 0.85)}",
        f"median engine / random: {rnd:.2f} (target <= 0.70) {ok(rnd <= 0.70)}",
        f"worst readiness MAE: {worst_mae:.1f} (target <= 7 in every cell) "
        f"{ok(worst_mae <= 7)}; cells over: {sum(m > 7 for m in maes)}",
        f"worst Brier: {worst_brier:.3f} (target <= 0.18 in every cell) "
        f"{ok(worst_brier <= 0.18)}; cells over: {sum(b > 0.18 for b in briers)}",
    ]
