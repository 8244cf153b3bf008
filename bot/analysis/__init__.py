"""Item analysis (classical test theory) of a bank from learners' first attempts.

Pure: imports only the standard library and `bot.bank`. Storage hands it first-attempt rows
(`bot.storage.item_sql`); renderers turn its `ItemReport` into text, JSON or one HTML file.
"""

from bot.analysis.model import (
    Flag,
    FlagKind,
    ItemReport,
    MisconceptionStats,
    OptionStats,
    QuestionStats,
    Status,
    TopicStats,
)
from bot.analysis.report import analyse, analyse_attempts, worst_flagged
from bot.analysis.responses import FirstAttempt, LearnerTotal, QuestionResponses

__all__ = [
    "FirstAttempt",
    "Flag",
    "FlagKind",
    "ItemReport",
    "LearnerTotal",
    "MisconceptionStats",
    "OptionStats",
    "QuestionResponses",
    "QuestionStats",
    "Status",
    "TopicStats",
    "analyse",
    "analyse_attempts",
    "worst_flagged",
]
