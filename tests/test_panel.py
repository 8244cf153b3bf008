"""The learner panel in a reduced form (one seed, a few cells of different memory models,
banks, budgets and horizons, and one held-out model): the engine must not need more answers to
ready than plain FSRS in any of them. The full panel is `python -m tests.bench learning`, the
held-out models' cells `python -m tests.bench holdout`."""

from __future__ import annotations

import pytest

from bot.learning.simulate.panel import Cell, run_cell

CELLS = (
    Cell("power-law", "csv-240", 20, 30),
    Cell("exponential", "generated-300", 50, 14),
    Cell("act-r/slow", "csv-240", 20, 14),
    # A strong spacing effect: relearning in the sitting once cost this cell a third more.
    Cell("two-component", "csv-240", 50, 30),
    # A model kept out of the panel: no rule of the queue was chosen on it.
    Cell("estes", "generated-300", 20, 30),
)


@pytest.mark.parametrize(
    "cell", CELLS, ids=lambda c: f"{c.truth}-{c.bank}-{c.per_day}x{c.horizon}"
)
def test_the_engine_needs_no_more_answers_to_ready_than_plain_fsrs(cell: Cell) -> None:
    result = run_cell(cell, seeds=(11,), learners=3, policies=("engine", "fsrs"))
    assert result.mean("engine") <= result.mean("fsrs"), result.to_ready
