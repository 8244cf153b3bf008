"""Problems found in a bank, and how a pydantic error or a YAML error becomes one with a line."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from bot.bank.yaml_load import DuplicateKey, InvalidScalar

# A model validator reports "dotted.path: message"; several of them joined by newlines.
_PATH_PREFIX = re.compile(r"^([A-Za-z_][\w]*(?:\.\w+)*): (.*)$", re.DOTALL)
_PYDANTIC_PREFIXES = ("Value error, ", "Assertion failed, ")
# libyaml's composer when PyYAML has it: node marks are the same, several times faster.
_COMPOSER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a bank, attributed as precisely as we can."""

    file: Path
    line: int | None
    question_id: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        line = "-" if self.line is None else str(self.line)
        return (
            f"{self.file}:{line}: {self.question_id or '-'}: {self.field or '-'}: {self.message}"
        )


class BankError(Exception):
    """A bank could not be loaded; `problems` says every reason."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def field_errors(error: ValidationError) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Each pydantic error as (field path, message), splitting multi-problem model errors."""
    for item in error.errors(include_url=False, include_context=False, include_input=False):
        loc = tuple(item["loc"])
        message = str(item["msg"])
        for prefix in _PYDANTIC_PREFIXES:
            message = message.removeprefix(prefix)
        for part in message.split("\n"):
            match = _PATH_PREFIX.match(part)
            if match:
                sub = tuple(int(p) if p.isdigit() else p for p in match.group(1).split("."))
                yield loc + sub, match.group(2)
            else:
                yield loc, part


def dotted(loc: Iterable[str | int]) -> str | None:
    """`('options', 2, 'rationale')` as `options.2.rationale`; None for the whole document."""
    text = ".".join(str(p) for p in loc)
    return text or None


def yaml_error_line(error: yaml.YAMLError) -> int | None:
    """The 1-based line a YAML error points at, if it says."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    context = getattr(error, "context", None) or ""
    if context.startswith("while scanning a quoted scalar"):
        # libyaml notices the missing quote at the end of the file; the author needs its start.
        mark = getattr(error, "context_mark", None) or mark
    return None if mark is None else int(mark.line) + 1


def not_utf8(source: bytes) -> tuple[int, str] | None:
    """(line, message) when `source` is not UTF-8 text, naming the first bad byte."""
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = source.count(b"\n", 0, exc.start) + 1
        column = exc.start - (source.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = source[exc.start]
        return line, (
            f"not UTF-8: byte 0x{byte:02x} at offset {exc.start} (line {line}, column "
            f"{column}); save the file as UTF-8"
        )
    return None


def yaml_error_message(error: yaml.YAMLError) -> str:
    """A one-line description of a YAML syntax error."""
    problem = getattr(error, "problem", None)
    context = getattr(error, "context", None)
    if isinstance(error, (InvalidScalar, DuplicateKey)):
        return str(problem)
    if (context or "").startswith("while scanning a quoted scalar") and "end of stream" in str(
        problem
    ):
        return "YAML syntax: the quoted text that starts on this line is never closed"
    if problem:
        return f"YAML syntax: {context + ', ' if context else ''}{problem}"
    return f"YAML: {str(error).splitlines()[0]}"


class LineFinder:
    """Maps field paths to lines of one YAML file; composes the node tree only when first asked."""

    def __init__(self, source: bytes | str) -> None:
        self._source = source
        self._root: yaml.Node | None = None
        self._composed = False

    def line(self, loc: Iterable[str | int]) -> int | None:
        """Line of the key (or list item) at `loc`, else of its closest existing parent."""
        if not self._composed:
            self._composed = True
            try:
                self._root = yaml.compose(self._source, Loader=_COMPOSER)
            except yaml.YAMLError:
                self._root = None
        node = self._root
        if node is None:
            return None
        line = int(node.start_mark.line) + 1
        for part in loc:
            found: yaml.Node | None = None
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                        line, found = int(key.start_mark.line) + 1, value
                        break
            elif (
                isinstance(node, yaml.SequenceNode)
                and isinstance(part, int)
                and 0 <= part < len(node.value)
            ):
                found = node.value[part]
                line = int(found.start_mark.line) + 1
            if found is None:
                break
            node = found
        return line
