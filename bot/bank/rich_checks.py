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


def may_be_rich(question: Question) -> bool:
    """Whether any text field has a dollar sign (most questions have none: no closer look)."""
    return any("$" in text for _, text in text_fields(question))


def formula_problems(question: Question, path: Path, line: Lines) -> list[Problem]:
    """A problem for each formula mathtext cannot typeset. Checked when the file is parsed
    (a question with one is never cached), so an unchanged bank does not parse them again."""
    if not may_be_rich(question):
        return []
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
    return problems


def image_check(question: Question, path: Path, line: Lines) -> tuple[Problem | None, Path | None]:
    """A question's image file, checked at every load (it may change without its question):
    the problem with it, or its resolved path."""
    if question.image is None:
        return None, None
    candidate = path.parent / question.image
    resolved = candidate.resolve()
    found: str | None
    if not resolved.is_relative_to(path.parent.resolve()):
        # A link in the bank's folder may point anywhere (git keeps links): the bot sends
        # only what lives beside its questions.
        found = f"image {question.image!r} leads outside the bank's folder"
    elif resolved.exists() and not resolved.is_file():
        # Checked before anything opens it: reading a named pipe would wait for ever.
        found = f"image {question.image!r} is not a regular file"
    else:
        found = image_problem(candidate)
    if found is not None:
        return Problem(path, line(("image",)), question.id, "image", found), None
    return None, resolved
