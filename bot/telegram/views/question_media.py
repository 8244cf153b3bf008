"""The pictures that go with a question: its formulas typeset (stem and options, as shown) and
its image file. Each has a content key, so a picture Telegram already has is sent by file_id
and never drawn or read again."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path

from bot.bank.models import LETTERS, Bank, Question
from bot.bank.rich import formulas
from bot.charts.formula import formula_png, picture_key


@dataclass(frozen=True, slots=True)
class Picture:
    """One photo to send: its cache key, a file name for the upload, and how to make it."""

    key: str
    filename: str
    make: Callable[[], bytes]


def formula_lines(question: Question) -> list[str] | None:
    """What the formula picture shows: the stem, and the lettered options in the order shown
    when any of them holds a formula (a stem-only picture is the same for every order, so it
    is uploaded once); None without formulas."""
    in_options = any(formulas(o.text) for o in question.options)
    if not in_options and not formulas(question.stem):
        return None
    lines = [question.stem.strip()]
    if in_options:
        lines.append("")
        lines += [f"{LETTERS[i]}. {o.text.strip()}" for i, o in enumerate(question.options)]
    return lines


@lru_cache(maxsize=1024)
def _digest(path: Path, mtime_ns: int, size: int) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def image_key(path: Path) -> str:
    """An image file's content key, hashed once per version of the file (mtime and size)."""
    stat = os.stat(path)
    return f"image:{_digest(path, stat.st_mtime_ns, stat.st_size)}"


def explanation_picture(question: Question) -> Picture | None:
    """The explanation typeset, for after the verdict, when it holds a formula (the verdict
    text shows it as readable text)."""
    if not formulas(question.explanation):
        return None
    lines = [question.explanation.strip()]
    return Picture(picture_key(lines), "explanation.png", partial(formula_png, lines))


def pictures(bank: Bank, question: Question) -> list[Picture]:
    """The photos of a question, formulas first; none for most questions."""
    found: list[Picture] = []
    lines = formula_lines(question)
    if lines is not None:
        found.append(Picture(picture_key(lines), "formula.png", partial(formula_png, lines)))
    path = bank.images.get(question.id)
    if path is not None:
        try:
            key = image_key(path)
        except OSError:
            return found  # gone since the bank loaded: the question still goes, as text
        found.append(Picture(key, path.name, path.read_bytes))
    return found
