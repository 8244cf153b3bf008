"""What the terminal players (`quizbot play`, `quizbot play --mock`) share: who plays, and how
text is laid out on a terminal."""

from __future__ import annotations

import textwrap

from bot.bank import rich
from bot.domain.models import Learner

TERMINAL_USER = Learner(id=0, first_name="terminal")
WIDTH = 88


def wrap(text: str, first: str = "", rest: str = "") -> str:
    """Fill text to the terminal width, first line after a label, later ones indented; a
    formula as readable text, fenced code kept line for line, monospaced and indented."""
    if not rich.has_rich(text):
        return _fill(text.replace("\\$", "$"), first, rest)
    out: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        words = "".join(prose)
        if words.strip():
            out.append(_fill(words, first if not out else rest, rest))
        prose.clear()

    for piece in rich.pieces(text):
        if piece.kind == "code":
            flush()
            if not out:
                out.append(first.rstrip())
            out.append("\n".join(f"{rest}    {line}".rstrip() for line in piece.text.split("\n")))
        elif piece.kind == "math":
            prose.append(rich.plain_formula(piece.text))
        else:
            prose.append(piece.text.replace("\\$", "$"))
    flush()
    return "\n".join(line for line in out if line or len(out) == 1)


def _fill(text: str, first: str, rest: str) -> str:
    return textwrap.fill(
        " ".join(text.split()), WIDTH, initial_indent=first, subsequent_indent=rest
    )
