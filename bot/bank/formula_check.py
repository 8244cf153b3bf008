"""Whether matplotlib's mathtext (no TeX) can typeset a formula: checked when a bank loads, so
a formula the bot could not draw is an author's problem, not a learner's."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.mathtext import MathTextParser, VectorParse

MAX_MESSAGE = 160  # mathtext lists every construct it expected: the start says enough


@lru_cache(maxsize=1)
def _parser() -> MathTextParser[VectorParse]:
    # Imported here: only banks that hold formulas pay for loading matplotlib.
    from matplotlib.mathtext import MathTextParser

    return MathTextParser("path")


@lru_cache(maxsize=4096)
def formula_error(source: str) -> str | None:
    """Why mathtext cannot parse `$source$` (the last line of its message), or None."""
    try:
        _parser().parse(f"${source}$")
    except RecursionError:
        # mathtext's parser recurses once per level of nesting.
        return "nested too deeply to typeset"
    except ValueError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        message = lines[-1] if lines else "mathtext cannot parse it"
        message = re.sub(r"^\w+Exception: ", "", message)
        message = re.sub(r",\s*\(line:\d+, col:\d+\)", "", message)
        return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"
    return None
