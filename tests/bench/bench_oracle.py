"""How far any study queue could go on the learner panel: an oracle that sees true memory.

Per panel cell (`bot.learning.simulate.panel`), seed 11's three learners: answers to ready
for plain FSRS, Leitner, random order and the bench-only oracle (tests/bench/oracle_bound.py;
greedy on the true score a week ahead, ORACLE_BURST answers ahead, 1 by default), and under
half-life memory a provable floor no policy can beat. The oracle is an achievable figure for a
policy that knows the truth, not an optimum: where it reaches a target the target is reachable
in principle; where it does not, the target may still be. A cell where every policy, the oracle
included, leaves the learners short of ready counts 1.00 in every ratio, as in the panel.

PANEL_VARIANTS, PANEL_FULL and PANEL_CELLS as for `python -m tests.bench learning`. The 216
cells at one answer ahead take about 40 minutes on two cores (DASH's and MCM's cells are the
slowest); three answers ahead takes several times that.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from bot.learning.simulate.panel import Cell, bank
from bot.learning.simulate.runner import run_policy
from tests.bench.bench_learning import cells_chosen
from tests.bench.oracle_bound import half_life_floor, oracle_to_ready, week_ahead

SEED = 11
LEARNERS = 3
BASELINES = ("fsrs", "leitner", "random")


def _mean(values: list[int | None], cap: int) -> float:
    # As the runner counts it: a learner never ready counts as the cap.
    return statistics.fmean(v if v is not None else cap for v in values)


def run_cell(cell: Cell, burst: int = 1) -> dict[str, float]:
    """Mean answers to ready per policy, the oracle and (half-life memory) the floor."""
    plan = bank(cell.bank)
    found = {
        p: run_policy(plan, cell.config(p, SEED, LEARNERS)).questions_to_ready for p in BASELINES
    }
    cfg = cell.config("oracle", SEED, LEARNERS)
    # The oracle walks day by day to the same cap the runner counts to.
    cfg = dataclasses.replace(cfg, days=max(cfg.days, cfg.ready_within))
    cap = cfg.days * cfg.per_day
    runs = [oracle_to_ready(plan, cfg, n, week_ahead, burst) for n in range(LEARNERS)]
    found["oracle"] = _mean(runs, cap)
    if cell.truth.startswith("half-life"):
        found["floor"] = _mean([half_life_floor(plan, cfg, n) for n in range(LEARNERS)], cap)
    return found


def _ratio(results: list[dict[str, float]], policy: str, to: str) -> float:
    return statistics.median(r[policy] / r[to] for r in results)


def main() -> None:
    """Every cell's figures as they come, then the medians the panel's targets are set on."""
    cells = cells_chosen()
    burst = int(os.environ.get("ORACLE_BURST", "1"))
    started = time.perf_counter()
    print("| model | bank | per day | days | oracle | FSRS | Leitner | random | floor |")
    print("|---|---|---|---|---|---|---|---|---|")
    results = []
    with ProcessPoolExecutor(2) as pool:
        for cell, found in zip(
            cells, pool.map(run_cell, cells, [burst] * len(cells)), strict=True
        ):
            results.append(found)
            floor = f"{found['floor']:.0f}" if "floor" in found else "-"
            print(
                f"| {cell.truth} | {cell.bank} | {cell.per_day} | {cell.horizon} | "
                f"{found['oracle']:.0f} | {found['fsrs']:.0f} | {found['leitner']:.0f} | "
                f"{found['random']:.0f} | {floor} |",
                flush=True,
            )
    never = sum(r["oracle"] >= max(r[p] for p in BASELINES) for r in results)
    print(
        f"{len(cells)} cells, seed {SEED}, {LEARNERS} learners, oracle {burst} answer(s) ahead "
        f"({time.perf_counter() - started:.0f} s): median oracle / plain FSRS "
        f"{_ratio(results, 'oracle', 'fsrs'):.2f}, / random "
        f"{_ratio(results, 'oracle', 'random'):.2f}; "
        f"cells where the oracle does no better than every baseline: {never}"
    )
