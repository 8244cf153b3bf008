"""Question files to validated questions, or to problems naming file, line, question and field."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from bot.bank import yaml_load
from bot.bank.models import Question
from bot.bank.problems import (
    LineFinder,
    Problem,
    dotted,
    field_errors,
    not_utf8,
    yaml_error_line,
    yaml_error_message,
)
from bot.bank.rich_checks import formula_problems


@dataclass
class Parsed:
    """One YAML file read and parsed, with what is needed to point at its lines later."""

    path: Path
    source: bytes
    data: Any

    def line(self, loc: Sequence[str | int]) -> int | None:
        return LineFinder(self.source).line(loc)


@dataclass(frozen=True)
class FileResult:
    """What one question file gave: its question, or the problems that keep it out."""

    question: Question | None
    problems: list[Problem]
    # The SHA-256 of the bytes parsed, when the caller asked for it (for the bank cache).
    sha256: str | None = None


@cache
def _questions() -> TypeAdapter[list[Question]]:
    return TypeAdapter(list[Question])


def read_bytes(path: Path) -> bytes:
    """The file's bytes: `Path.read_bytes` without its buffered file object (half the time)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        size = os.fstat(fd).st_size
        data = os.read(fd, size + 1)
        if len(data) == size:
            return data
        # The file changed size since fstat (or a read came back short): read to its end.
        parts = [data]
        while part := os.read(fd, 1 << 16):
            parts.append(part)
        return b"".join(parts)
    finally:
        os.close(fd)


def read_yaml(path: Path, problems: list[Problem]) -> Parsed | None:
    """The file parsed, or None with a problem (unreadable, not UTF-8, bad YAML) appended."""
    try:
        source = read_bytes(path)
    except OSError as exc:
        problems.append(Problem(path, None, None, None, f"cannot read: {exc.strerror or exc}"))
        return None
    try:
        # libyaml without line bookkeeping; lines are found only on failure (see LineFinder).
        # Looked up on the module at each call so that tests can count the files parsed.
        data = yaml_load.load(source)
    except yaml.YAMLError as exc:
        # Decoding is checked only on failure, to keep the common path at libyaml's speed.
        bad = not_utf8(source)
        line, message = bad or (yaml_error_line(exc), yaml_error_message(exc))
        problems.append(Problem(path, line, None, None, message))
        return None
    return Parsed(path, source, data)


def validation_problems(
    parsed: Parsed, error: ValidationError, question_id: str | None
) -> list[Problem]:
    """Each error of `error` as a problem pointing at the line of its field."""
    finder = LineFinder(parsed.source)
    return [
        Problem(
            parsed.path, finder.line(loc), question_id, dotted(loc), _hint(parsed, loc, message)
        )
        for loc, message in field_errors(error)
    ]


def _raw(data: Any, loc: Sequence[str | int]) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _hint(parsed: Parsed, loc: Sequence[str | int], message: str) -> str:
    """The message, with what to do when YAML turned the author's text into a boolean."""
    if isinstance(_raw(parsed.data, loc), bool) and "string" in message:
        return (
            f"{message}: YAML reads an unquoted yes, no, on, off, true or false as a "
            'boolean; quote it, e.g. text: "Yes"'
        )
    return message


def _document_id(data: Any) -> str | None:
    value = data.get("id") if isinstance(data, dict) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def _one(parsed: Parsed) -> Question | list[Problem]:
    try:
        return Question.model_validate(parsed.data)
    except ValidationError as exc:
        return validation_problems(parsed, exc, _document_id(parsed.data))


def parse_questions(paths: Sequence[Path], digests: Sequence[bool] = ()) -> list[FileResult]:
    """Each file read, parsed and validated, in order; `digests[i]` asks for file i's SHA-256."""
    results: list[FileResult | None] = [None] * len(paths)
    good: list[tuple[int, Parsed]] = []
    for i, path in enumerate(paths):
        problems: list[Problem] = []
        parsed = read_yaml(path, problems)
        if parsed is None:
            results[i] = FileResult(None, problems)
        elif not isinstance(parsed.data, dict):
            data = parsed.data
            what = "empty" if data is None else f"a {type(data).__name__}, not a mapping"
            problem = Problem(path, 1, None, None, f"question file is {what}")
            results[i] = FileResult(None, [problem])
        else:
            good.append((i, parsed))
    try:
        # One call for the batch: per question, pydantic's Python entry costs a quarter more.
        checked: Sequence[Question | list[Problem]] = _questions().validate_python(
            [parsed.data for _, parsed in good]
        )
    except ValidationError:
        # Some file is wrong: each one on its own, so every error is told with its file.
        checked = [_one(parsed) for _, parsed in good]
    for (i, parsed), outcome in zip(good, checked, strict=True):
        sha = file_sha256(parsed.source) if i < len(digests) and digests[i] else None
        if isinstance(outcome, Question):
            found = formula_problems(outcome, parsed.path, parsed.line)
            results[i] = FileResult(None, found, sha) if found else FileResult(outcome, [], sha)
        else:
            results[i] = FileResult(None, outcome, sha)
    return [r for r in results if r is not None]


def file_sha256(source: bytes) -> str:
    """The content digest stored for files changed just before the cache was written."""
    return hashlib.sha256(source).hexdigest()
