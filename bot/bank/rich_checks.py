"""Load-time checks of a question's rich content: every formula typesets, its image is a photo
Telegram takes. Each problem names the file, the question and the field."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from bot.bank.formula_check import formula_error
from bot.bank.images import image_problem
from bot.bank.models import Question
from bot.bank.problems import Problem
from bot.bank.rich import formulas

Lines = Callable[[Sequence[str | int]], int | None]


def text_fields(question: Question) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(field path, text) of every field that may hold a formula or code."""
    yield ("stem",), question.stem
    for i, option in enumerate(question.options):
        yield ("options", i, "text"), option.text
        yield ("options", i, "rationale"), option.rationale
    yield ("explanation",), question.explanation
    if question.trap:
        yield ("trap",), question.trap


def rich_problems(
    question: Question, path: Path, line: Lines
) -> tuple[list[Problem], Path | None]:
    """The problems of a question's formulas and image, and the image file when it is fine."""
    problems: list[Problem] = []
    for loc, text in text_fields(question):
        for source in formulas(text):
            error = formula_error(source)
            if error is not None:
                problems.append(
                    Problem(
                        path,
                        line(loc),
                        question.id,
                        ".".join(str(p) for p in loc),
                        f"formula ${source}$ cannot be typeset: {error}",
                    )
                )
    image: Path | None = None
    if question.image is not None:
        candidate = path.parent / question.image
        found = image_problem(candidate)
        if found is None:
            image = candidate.resolve()
        else:
            problems.append(Problem(path, line(("image",)), question.id, "image", found))
    return problems, image
