"""Plain-text table and JSON of simulation reports, and the model's parameters for --help."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from bot.learning.simulate.learner import LearnerParams
from bot.learning.simulate.runner import PolicyReport
from bot.learning.simulate.truth import HalfLifeParams, PowerLawParams

COLUMNS = (
    ("truth", "truth", "{}"),
    ("policy", "policy", "{}"),
    ("to ready", "questions_to_ready", "{:.0f}"),
    ("median", "median_to_ready", "{:.0f}"),
    ("reached", "reached_ready", "{:.0%}"),
    ("exam score", "exam_score", "{:.1f}"),
    ("pass", "pass_rate", "{:.0%}"),
    ("coverage", "coverage", "{:.0%}"),
    ("MAE", "readiness_mae", "{:.1f}"),
    ("Brier", "readiness_brier", "{:.3f}"),
)


def table(reports: Sequence[PolicyReport]) -> str:
    """One row per policy and ground truth, aligned columns."""
    rows = [[head for head, _, _ in COLUMNS]]
    for r in reports:
        cells = []
        for _, attr, fmt in COLUMNS:
            value = getattr(r, attr)
            cells.append("-" if value is None else fmt.format(value))
        rows.append(cells)
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    return "\n".join(
        "  ".join(
            c.rjust(w) if i > 1 else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    )


def parameters_text() -> str:
    """Every parameter of the simulated learner, for --help and the docs."""
    lines = []
    for title, params in (
        ("learner population", LearnerParams()),
        ("power-law memory", PowerLawParams()),
        ("half-life memory", HalfLifeParams()),
    ):
        values = ", ".join(
            f"{f.name}={getattr(params, f.name)}" for f in dataclasses.fields(params)
        )
        lines.append(f"{title}: {values}")
    return "\n".join(lines)
