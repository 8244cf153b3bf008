"""The learner panel: every policy on every cell of `bot.learning.simulate.panel`.

Targets: in every cell the engine needs no more answers to ready than the better of plain FSRS
and Leitner (beyond seed noise); over the cells, median <= 0.85x plain FSRS and <= 0.70x random;
readiness MAE <= 7 points and Brier <= 0.18 in every cell. Seeded and paired: every policy meets
the same learners. Runs go to two worker processes (the machines have two cores).

PANEL_VARIANTS=base runs the models at their default parameters only (a third of the cells);
PANEL_FULL=1 runs every bank in every cell (three times the cells). PANEL_CELLS=0,4,12 runs
only those cells of the design (by index).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from bot.learning.simulate.panel import VARIANTS, Cell, design, markdown, run_cell, verdicts
from bot.learning.simulate.panel_models import MODELS

SEEDS = (11, 12, 13)
LEARNERS = 3  # per seed


def main() -> None:
    """Run the panel and print its table and verdicts."""
    run(cells_chosen())


def cells_chosen(models: tuple[str, ...] = MODELS) -> list[Cell]:
    """The design's cells for `models`, as PANEL_VARIANTS, PANEL_FULL and PANEL_CELLS choose."""
    variants = ("",) if os.environ.get("PANEL_VARIANTS") == "base" else VARIANTS
    cells = design(os.environ.get("PANEL_FULL") == "1", variants, models)
    if picked := os.environ.get("PANEL_CELLS"):
        cells = [cells[int(i)] for i in picked.split(",")]
    return cells


def run(cells: list[Cell]) -> None:
    """Every policy on `cells`, rows as they finish."""
    started = time.perf_counter()
    results = []
    with ProcessPoolExecutor(2) as pool:
        # Each row as its cell is done: a long run cut short still leaves its figures.
        for result in pool.map(partial(run_cell, seeds=SEEDS, learners=LEARNERS), cells):
            results.append(result)
            print(markdown([result]).splitlines()[-1], flush=True)
    print(
        f"{len(cells)} cells, seeds {SEEDS}, {LEARNERS} learners a seed "
        f"({time.perf_counter() - started:.0f} s)"
    )
    print(markdown(results))
    print("\n".join(verdicts(results)), flush=True)
