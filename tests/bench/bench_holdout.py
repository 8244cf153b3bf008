"""The learner models kept out of the panel (`bot.learning.simulate.holdout_models`): the same
cells, targets and policies as `bench_learning`, on three models the study queue's rules were
never chosen on. PANEL_VARIANTS, PANEL_FULL and PANEL_CELLS work as there.
"""

from __future__ import annotations

from bot.learning.simulate.holdout_models import HOLDOUT_MODELS
from tests.bench.bench_learning import cells_chosen, run


def main() -> None:
    """Run the held-out cells and print their table and verdicts."""
    run(cells_chosen(HOLDOUT_MODELS))
