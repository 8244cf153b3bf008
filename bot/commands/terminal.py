"""What the terminal players (`quizbot play`, `quizbot play --mock`) share: who plays, and how
text is laid out on a terminal."""

from __future__ import annotations

import textwrap

from bot.domain.models import Learner

TERMINAL_USER = Learner(id=0, first_name="terminal")
WIDTH = 88
AGAIN_NOTE = "Again, to make it stick: three right answers in a row."


def wrap(text: str, first: str = "", rest: str = "") -> str:
    """Fill text to the terminal width, first line after a label, later ones indented."""
    return textwrap.fill(
        " ".join(text.split()), WIDTH, initial_indent=first, subsequent_indent=rest
    )
