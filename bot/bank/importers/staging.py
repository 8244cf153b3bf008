"""Check an import as `quizbot validate` would check the bank after it, before writing it.

The bank folder is copied to a temporary one and the planned files are written there; the
copy is loaded and linted, and every problem is reported against the real folder's paths.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bot.bank.lint import lint_bank
from bot.bank.loader import load_banks
from bot.bank.problems import Problem


def _hidden(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n.startswith(".")]


def check_plan(
    out_dir: Path, plan: Sequence[tuple[Path, str]], *, lint: bool = True
) -> tuple[list[Problem], list[Problem]]:
    """(problems, item-writing warnings) of the bank as it would be after writing `plan`; no
    warnings unless `lint` (linting costs more than loading, for a caller that drops them)."""
    with tempfile.TemporaryDirectory(prefix="quizbot-import-") as tmp:
        stage = Path(tmp) / (out_dir.name or "bank")
        if out_dir.is_dir():
            shutil.copytree(out_dir, stage, ignore=_hidden)
        stage.mkdir(exist_ok=True)
        for path, text in plan:
            target = stage / path.relative_to(out_dir)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
        result = load_banks([stage])
        warnings = [
            w
            for bank_id, bank in (result.banks.items() if lint else ())
            for w in lint_bank(bank, result.folders[bank_id], result.files[bank_id])
        ]

        def real(problem: Problem) -> Problem:
            try:
                return dataclasses.replace(problem, file=out_dir / problem.file.relative_to(stage))
            except ValueError:
                return problem

        return [real(p) for p in result.problems], [real(w) for w in warnings]
