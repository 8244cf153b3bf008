"""A multiple-choice question as the exchange formats hold it, turned into an import draft."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.bank.importers.common import SLUG, Draft, ImportIssue, Locator, slugify, strip, tag_slug


@dataclass
class Choice:
    """One answer option as read, with the line it starts on."""

    text: str
    correct: bool
    rationale: str = ""
    line: int | None = None


@dataclass
class Read:
    """A question as read from Moodle XML, GIFT, Aiken or an Anki note, before validation.

    `where` replaces the line for sources without lines (an Anki note: "note 1234").
    `issues` refuse the import; `warnings` are printed, and refuse it only with --strict.
    """

    file: Path
    line: int | None
    stem: str
    choices: list[Choice]
    explanation: str = ""
    topic_name: str = ""
    topic_id: str = ""
    qid: str = ""
    multiple: bool | None = None
    shuffle: bool | None = None
    tags: list[str] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)
    where: str | None = None
    issues: list[ImportIssue] = field(default_factory=list)
    warnings: list[ImportIssue] = field(default_factory=list)


@dataclass
class Defaults:
    """What the command line adds to every question: a topic for files naming none, the
    difficulty, and the text for rationales and explanations the source does not hold."""

    topic: str = ""
    difficulty: str = "medium"
    fill_missing: str | None = None


@dataclass
class Filled:
    """How many missing texts `Defaults.fill_missing` stood in for."""

    rationales: int = 0
    explanations: int = 0


def _field_name(loc: tuple[str | int, ...]) -> str:
    return ".".join(str(p) for p in loc) or "-"


def _locator(read: Read) -> Locator:
    def locate(loc: tuple[str | int, ...]) -> tuple[int | None, str | None]:
        name = _field_name(loc)
        if read.where is not None:
            return None, f"{read.where}: {name}" if loc else read.where
        if loc[:1] == ("options",) and len(loc) > 1 and isinstance(loc[1], int):
            index = loc[1]
            if 0 <= index < len(read.choices) and read.choices[index].line is not None:
                return read.choices[index].line, name
        return read.lines.get(str(loc[0]) if loc else "", read.line), name

    return locate


def draft_of(read: Read, defaults: Defaults, filled: Filled) -> Draft:
    """The draft the writer validates; missing texts filled only when the author asked."""
    options: list[dict[str, Any]] = []
    for choice in read.choices:
        option: dict[str, Any] = {"text": strip(choice.text), "correct": choice.correct}
        rationale = strip(choice.rationale)
        if not rationale and defaults.fill_missing:
            rationale = defaults.fill_missing
            filled.rationales += 1
        if rationale:
            option["rationale"] = rationale
        options.append(option)
    data: dict[str, Any] = {"difficulty": defaults.difficulty, "stem": strip(read.stem)}
    if read.qid and SLUG.match(read.qid):
        data["id"] = read.qid
    topic_name = strip(read.topic_name) or strip(defaults.topic)
    topic_id = read.topic_id if SLUG.match(read.topic_id) else slugify(topic_name)
    if topic_id:
        data["topic"] = topic_id
    if read.multiple or (read.multiple is None and sum(c.correct for c in read.choices) > 1):
        data["kind"] = "multiple"
    if read.shuffle is False:
        data["shuffle"] = False
    data["options"] = options
    explanation = strip(read.explanation)
    if not explanation and defaults.fill_missing:
        explanation = defaults.fill_missing
        filled.explanations += 1
    if explanation:
        data["explanation"] = explanation
    tags = [t for t in dict.fromkeys(tag_slug(strip(t)) for t in read.tags) if t]
    if tags:
        data["tags"] = tags
    return Draft(
        read.file,
        read.line,
        data,
        topic_name or topic_id,
        _locator(read),
        extra_issues=list(read.issues),
    )
