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
    """Each line of the text filled on its own (the author's line breaks, a table's rows,
    stay as Telegram shows them); runs of blank lines as one."""
    out: list[str] = []
    for line in text.strip().split("\n"):
        words = " ".join(line.split())
        if not words:
            if out and out[-1]:
                out.append("")
            continue
        indent = rest if out else first
        out.append(textwrap.fill(words, WIDTH, initial_indent=indent, subsequent_indent=rest))
    return "\n".join(out) if out else first.rstrip()
