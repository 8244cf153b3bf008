"""The item-analysis report: per question, option, topic and misconception (frozen data)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.analysis.learner_reports import ReportedQuestion

# Thresholds of the flags and of the sample-size labels; the README explains each one.
TOO_EASY_P = 0.90
TOO_HARD_P = 0.20
WEAK_R = 0.20
NON_FUNCTIONING_SHARE = 0.05
GROUP_SHARE = 0.27
PROVISIONAL_BELOW = 50
FIRM_FROM = 100
DEFAULT_MIN_N = 10


class Status(StrEnum):
    """How far a question's figures can be trusted, from its number of first attempts."""

    TOO_FEW = "too few"  # below --min-n: figures shown, no flags
    PROVISIONAL = "provisional"  # below 50
    TENTATIVE = "tentative"  # 50 to 99
    FIRM = "firm"  # 100 and more

    @property
    def rank(self) -> int:
        """Higher is more trustworthy (used to order questions of equal severity)."""
        return list(Status).index(self)


class FlagKind(StrEnum):
    """Kinds of flag, each with its severity (higher is worse) and rule in words."""

    MIS_KEYED = "likely mis-keyed"
    NEGATIVE = "check the key"
    WEAK = "weak discrimination"
    TOO_HARD = "too hard"
    TOO_EASY = "too easy"
    NEVER_PICKED = "never picked"
    NON_FUNCTIONING = "non-functioning distractor"

    @property
    def severity(self) -> int:
        """6 (a wrong key teaches learners the wrong answer) down to 1 (a dead distractor)."""
        return _SEVERITY[self]

    @property
    def rule(self) -> str:
        """The rule that raises this flag, in words."""
        return _RULES[self]


_SEVERITY = {
    FlagKind.MIS_KEYED: 6,
    FlagKind.NEGATIVE: 5,
    FlagKind.WEAK: 4,
    FlagKind.TOO_HARD: 3,
    FlagKind.TOO_EASY: 2,
    FlagKind.NEVER_PICKED: 2,
    FlagKind.NON_FUNCTIONING: 1,
}

_RULES = {
    FlagKind.MIS_KEYED: "a wrong option is picked by more of the upper group than the key",
    FlagKind.NEGATIVE: "corrected point-biserial r < 0: weaker learners get it right more "
    "often than stronger ones",
    FlagKind.WEAK: f"corrected point-biserial 0 <= r < {WEAK_R:.2f}",
    FlagKind.TOO_HARD: f"p < {TOO_HARD_P:.2f}",
    FlagKind.TOO_EASY: f"p > {TOO_EASY_P:.2f}",
    FlagKind.NEVER_PICKED: "an option no learner picked on a first attempt",
    FlagKind.NON_FUNCTIONING: f"a wrong option picked by fewer than "
    f"{NON_FUNCTIONING_SHARE:.0%} of learners",
}


@dataclass(frozen=True, slots=True)
class Flag:
    kind: FlagKind
    message: str  # the rule applied to this question, with its figures
    option: int | None = None  # file-order index of the option concerned, if any


@dataclass(frozen=True, slots=True)
class OptionStats:
    index: int  # file order
    letter: str
    text: str
    correct: bool
    misconception: str | None
    picked: int
    share: float  # of all first attempts
    upper_share: float | None  # of the upper 27% (None: no groups)
    lower_share: float | None

    @property
    def discrimination(self) -> float | None:
        """Share among the upper group minus share among the lower group."""
        if self.upper_share is None or self.lower_share is None:
            return None
        return self.upper_share - self.lower_share


@dataclass(frozen=True, slots=True)
class QuestionStats:
    question_id: str
    topic: str
    stem: str
    multiple: bool
    n: int  # first attempts
    p: float | None  # share correct
    r: float | None  # corrected point-biserial
    d: float | None  # upper-lower index (27% groups)
    n_scored: int  # learners with a rest score (met another question): basis of r and D
    group_size: int  # learners in each of the upper and lower groups
    mean_time_ms: float | None
    status: Status
    options: tuple[OptionStats, ...]
    flags: tuple[Flag, ...]

    @property
    def severity(self) -> int:
        """The worst flag's severity (0: no flag)."""
        return max((f.kind.severity for f in self.flags), default=0)

    def sort_key(self) -> tuple[int, int, int, int, str]:
        """Worst first: worst flag, then firmer figures, then more flags, then more data."""
        total = sum(f.kind.severity for f in self.flags)
        return (-self.severity, -self.status.rank, -total, -self.n, self.question_id)


@dataclass(frozen=True, slots=True)
class TopicStats:
    topic: str
    name: str
    questions: int  # questions of the topic in the bank
    analysed: int  # of which with at least --min-n first attempts
    mean_p: float | None
    mean_r: float | None
    flagged: int


@dataclass(frozen=True, slots=True)
class MisconceptionStats:
    id: str
    name: str
    options: int  # wrong options tagged with it
    exposed: int  # first attempts at questions carrying such an option
    picked: int  # of which picked a tagged option
    share: float | None  # picked / exposed
    upper_share: float | None  # same among the upper groups
    lower_share: float | None


@dataclass(frozen=True, slots=True)
class ItemReport:
    bank_id: str
    bank_title: str
    min_n: int
    learners: int
    first_attempts: int
    unknown_questions: int  # answered questions no longer in the bank (left out)
    questions: tuple[QuestionStats, ...]  # worst first
    topics: tuple[TopicStats, ...]
    misconceptions: tuple[MisconceptionStats, ...]
    # Learners' reports per question (bot/analysis/learner_reports.py), reviewed first.
    reported: tuple[ReportedQuestion, ...] = ()

    @property
    def flagged(self) -> tuple[QuestionStats, ...]:
        """Questions with at least one flag, worst first."""
        return tuple(q for q in self.questions if q.flags)
