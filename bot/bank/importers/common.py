"""What every importer shares: issues with file and line, drafts, ids and slugs, validation."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bot.bank.models import Question
from bot.bank.problems import field_errors

# Where a field of a draft came from in its source: (line, column name or None).
Locator = Callable[[tuple[str | int, ...]], tuple[int | None, str | None]]
SLUG_MAX = 48
# Unicode White_Space, what the models strip; str.strip() would also eat U+001C..U+001F, so a
# cell ending in one would import differently from the same text in a YAML file.
WHITE_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
WHITE_SPACE += "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
# Words that make an id longer without telling questions apart.
_STOP_WORDS = frozenset(
    (
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "is",
        "are",
        "was",
        "be",
        "by",
        "with",
        "which",
        "what",
        "when",
        "why",
        "how",
        "that",
        "this",
        "it",
        "its",
        "as",
        "at",
        "from",
        "most",
        "best",
        "likely",
        "should",
        "does",
        "do",
        "would",
        "can",
        "your",
        "you",
        "we",
    )
)


@dataclass(frozen=True)
class ImportIssue:
    """Something an importer could not turn into a question, where it was in the source."""

    file: Path
    line: int | None
    column: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else str(self.file)
        column = f" {self.column}:" if self.column else ""
        return f"{where}:{column} {self.message}"


@dataclass
class Draft:
    """A question as read from a source, before topic resolution and validation."""

    file: Path
    line: int | None
    data: dict[str, Any]
    topic_name: str
    locate: Locator
    exam_code: str | None = None
    title: str | None = None
    extra_issues: list[ImportIssue] = field(default_factory=list)

    @property
    def where(self) -> str:
        """Where the draft starts in its source: file:line, or the file and the field."""
        if self.line is not None:
            return f"{self.file}:{self.line}"
        return f"{self.file}: {self.locate(())[1]}"

    def issue(self, loc: tuple[str | int, ...], message: str) -> ImportIssue:
        """An issue about one field of this draft, placed where the field came from."""
        line, column = self.locate(loc)
        return ImportIssue(self.file, line if line is not None else self.line, column, message)


def strip(text: str) -> str:
    """Text without the leading and trailing white space the models would remove."""
    return text.strip(WHITE_SPACE)


def slugify(text: str, limit: int = SLUG_MAX) -> str:
    """Lower-case ASCII words joined by hyphens: "Fine-Tuning" -> "fine-tuning"."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:limit].rstrip("-")


# What the bank accepts as an id, a topic or a tag as it stands.
SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]{0,47}$")


def tag_slug(tag: str) -> str:
    """A source's free-text tag as a bank tag: "Fine tuning" -> "fine-tuning"."""
    return tag if SLUG.match(tag) else slugify(tag)


def _normalized(text: str) -> str:
    return " ".join(text.casefold().split())


def _words_within(slug: str, limit: int) -> str:
    """Leading whole words of a slug that fit in `limit` characters (cut only a lone word)."""
    kept = ""
    for word in slug.split("-"):
        candidate = f"{kept}-{word}" if kept else word
        if len(candidate) > limit:
            break
        kept = candidate
    return kept or slug[:limit]


def question_id(topic: str, stem: str) -> str:
    """A stable id: topic, a few words of the stem and a short hash of the stem."""
    digest = hashlib.sha1(_normalized(stem).encode()).hexdigest()[:6]
    words = [w for w in slugify(stem, 400).split("-") if w not in _STOP_WORDS and not w.isdigit()]
    prefix = _words_within(slugify(topic), 20)
    room = SLUG_MAX - len(prefix) - len(digest) - 2
    middle = _words_within("-".join(words), min(room, 24)) if words else ""
    return "-".join(part for part in (prefix, middle, digest) if part)


def validate(draft: Draft) -> Question | list[ImportIssue]:
    """The draft as a Question, or every issue pydantic found, placed in the source."""
    try:
        return Question.model_validate(draft.data)
    except ValidationError as exc:
        return [draft.issue(loc, message) for loc, message in field_errors(exc)]
