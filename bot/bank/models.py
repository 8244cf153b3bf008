"""Pydantic models of a question bank: `bank.yaml` and one file per question."""

from __future__ import annotations

import datetime as dt
import unicodedata
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StringConstraints,
    ValidationInfo,
    model_validator,
)

from bot.bank.limits import (
    MAX_OPTION_CHARS,
    MAX_OPTIONS,
    MAX_QUESTION_MESSAGE_CHARS,
    MIN_OPTIONS,
    question_message_length,
)

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Slug = Annotated[
    str,
    StringConstraints(strip_whitespace=True, pattern=r"^[a-z0-9][a-z0-9._-]{0,47}$"),
]
# A picture beside the question file (or in a folder under it): each part of the path starts
# with a letter, digit or underscore, so it is never absolute and never climbs out with `..`.
ImageName = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, max_length=200, pattern=r"^\w[\w. -]*(/\w[\w. -]*)*$"
    ),
]
LETTERS = "ABCDEFGHIJKL"
# Validation context for questions read back from the bank cache: each passed the cross-field
# checks below when its file was parsed, and the cache is thrown away when this code changes.
FROM_CACHE = {"from_cache": True}


def _option_key(text: str) -> str:
    """What two options must not share: the text without invisible format characters
    (Unicode Cf: zero-width space, soft hyphen, joiners, BOM), case and runs of white space
    ignored: "Paris" with a zero-width space inside shows as "Paris" to a learner."""
    if not text.isascii():  # no Cf character is ASCII: most options skip the scan
        text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(text.casefold().split())


class Strict(BaseModel):
    """Base for bank models: unknown keys are errors, so a typo never goes unnoticed."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Difficulty(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Kind(StrEnum):
    SINGLE = "single"
    MULTIPLE = "multiple"


class Option(Strict):
    text: Annotated[str, StringConstraints(min_length=1, max_length=MAX_OPTION_CHARS)]
    # Strict: YAML's own true/false only, so `correct: "yes"` or `correct: 1` is an error.
    correct: StrictBool = False
    rationale: Text = Field(
        description="Why learners pick this option and why it is or isn't right."
    )
    pin: StrictBool = Field(
        default=False,
        description="Keep this option last when options are shuffled (All/None of the above).",
    )
    misconception: Slug | None = Field(
        default=None,
        description="Id of the misconception (declared in bank.yaml) this wrong option embodies.",
    )


class Reference(Strict):
    title: Text
    url: str | None = None


class Question(Strict):
    id: Slug
    topic: Slug
    difficulty: Difficulty = Difficulty.MEDIUM
    kind: Kind = Kind.SINGLE
    shuffle: StrictBool = Field(
        default=True, description="Shuffle the options per delivery (false: keep file order)."
    )
    stem: Text
    options: list[Option] = Field(min_length=MIN_OPTIONS, max_length=MAX_OPTIONS)
    explanation: Text
    trap: Text | None = Field(default=None, description="The common exam trap.")
    tags: list[Slug] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    author: Text | None = None
    reviewed: dt.date | None = Field(default=None, description="Date of the last review.")
    image: ImageName | None = Field(
        default=None,
        description=(
            "A PNG, JPEG or WebP file beside this question file, sent with the question "
            "(at most 10 MB, width + height at most 10000 px)."
        ),
    )

    @model_validator(mode="after")
    def _check_options(self, info: ValidationInfo) -> Self:
        if info.context is FROM_CACHE:
            return self
        # Every problem goes into one error, one "path: message" per line, so the loader can
        # report them all with their fields instead of stopping at the first. One pass over
        # the options: this runs for every question of every bank at each parse.
        problems: list[str] = []
        seen: dict[str, int] = {}
        pinned: list[int] = []
        n_correct = 0
        for i, option in enumerate(self.options):
            key = _option_key(option.text)
            if not key:
                problems.append(f"options.{i}.text: option text is empty")
            elif key in seen:
                problems.append(
                    f"options.{i}.text: duplicates option {LETTERS[seen[key]]} ({option.text!r})"
                )
            else:
                seen[key] = i
            if option.correct:
                n_correct += 1
                if option.misconception is not None:
                    problems.append(
                        f"options.{i}.misconception: a correct option cannot carry a misconception"
                    )
            if option.pin:
                pinned.append(i)
        if len(pinned) > 1:
            problems.append("options: at most one option can be pinned last")
        elif pinned and pinned[0] != len(self.options) - 1:
            problems.append(f"options.{pinned[0]}.pin: a pinned option must be the last one")
        if self.kind is Kind.SINGLE and n_correct != 1:
            problems.append(
                "options: a single-answer question needs exactly 1 correct option, "
                f"has {n_correct}"
            )
        if self.kind is Kind.MULTIPLE and not 2 <= n_correct < len(self.options):
            problems.append(
                "options: a multiple-answer question needs at least 2 correct options and "
                f"at least one wrong one, has {n_correct} of {len(self.options)}"
            )
        length = question_message_length(self.stem, [o.text for o in self.options])
        if length > MAX_QUESTION_MESSAGE_CHARS:
            problems.append(
                f"stem: the question with its options is {length} chars, over the "
                f"{MAX_QUESTION_MESSAGE_CHARS} that fit one Telegram message"
            )
        if problems:
            raise ValueError("\n".join(problems))
        return self

    @property
    def correct_indices(self) -> frozenset[int]:
        """Indices of the correct options."""
        found = _KEYS.get(id(self))
        if found is not None and found[0] is self:
            return found[1]
        if len(_KEYS) >= KEYS_KEPT:
            _KEYS.clear()
        key = frozenset(i for i, o in enumerate(self.options) if o.correct)
        _KEYS[id(self)] = (self, key)
        return key

    @property
    def select_count(self) -> int:
        """How many options a learner must pick."""
        return len(self.correct_indices)


# Every answer grades against its question's key and every reply states how many options to
# pick: computed once per question object (immutable; a shuffled copy is an object of its own).
_KEYS: dict[int, tuple[Question, frozenset[int]]] = {}
KEYS_KEPT = 16_384


class Topic(Strict):
    id: Slug
    name: Text
    weight: Annotated[float, Field(gt=0, le=100, description="Blueprint weight in percent.")]


class Misconception(Strict):
    id: Slug
    name: Text
    description: Text = Field(description="One line on the wrong idea, for learners' /stats.")


class MockExam(Strict):
    """The full mock exam: `questions` in `minutes`. A short mock is a quarter of it at the same
    pace. An exam that asks a range of questions (NCP-GENL: 60-70 in 120 minutes) is mocked at
    its upper end, the tightest pace, with `min_questions` recording the lower one."""

    questions: Annotated[int, Field(ge=1, le=500)]
    minutes: Annotated[int, Field(ge=1, le=600)]
    min_questions: Annotated[
        int | None,
        Field(
            default=None,
            ge=1,
            le=500,
            description=(
                "The fewest questions the real exam may ask (it asks this to `questions`)."
            ),
        ),
    ] = None

    @model_validator(mode="after")
    def _check_range(self) -> Self:
        if self.min_questions is not None and self.min_questions > self.questions:
            raise ValueError(
                f"min_questions ({self.min_questions}) is above questions ({self.questions})"
            )
        return self


class BankMeta(Strict):
    id: Slug
    title: Text
    exam_code: Text
    language: Annotated[str, StringConstraints(pattern=r"^[a-z]{2}(-[A-Z]{2})?$")] = "en"
    passing_score: Annotated[float, Field(gt=0, le=100)]
    mock_exam: MockExam
    topics: list[Topic] = Field(min_length=1)
    misconceptions: list[Misconception] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check_topics(self) -> Self:
        ids = [t.id for t in self.topics]
        dupes = sorted({t for t in ids if ids.count(t) > 1})
        if dupes:
            raise ValueError(f"topics: duplicate topic ids {', '.join(dupes)}")
        mids = [m.id for m in self.misconceptions]
        mdupes = sorted({m for m in mids if mids.count(m) > 1})
        if mdupes:
            raise ValueError(f"misconceptions: duplicate ids {', '.join(mdupes)}")
        total = sum(t.weight for t in self.topics)
        if abs(total - 100) > 0.01:
            raise ValueError(f"topics: blueprint weights add up to {total:g}%, not 100%")
        return self

    def topic(self, topic_id: str) -> Topic | None:
        """The topic with this id, if declared."""
        return next((t for t in self.topics if t.id == topic_id), None)

    def misconception(self, misconception_id: str) -> Misconception | None:
        """The misconception with this id, if declared."""
        return next((m for m in self.misconceptions if m.id == misconception_id), None)


class Bank(BaseModel):
    """A loaded, validated bank: its metadata and its questions by id."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    meta: BankMeta
    questions: dict[str, Question]
    # The file of each question's `image`, resolved and checked when the bank was loaded.
    images: dict[str, Path] = Field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.meta.id

    def topics_with_questions(self) -> list[Topic]:
        """Declared topics that have at least one question, in bank.yaml order (for menus)."""
        used = {q.topic for q in self.questions.values()}
        return [t for t in self.meta.topics if t.id in used]

    def in_topic(self, topic: str | None) -> list[Question]:
        """Questions of one topic, or all when topic is None."""
        return [q for q in self.questions.values() if topic is None or q.topic == topic]
