"""Named kinds instead of bare strings: where a delivery came from, who it is for, and so on.

StrEnums: each member equals the text stored in SQLite, so rows and values compare directly.
"""

from __future__ import annotations

from enum import StrEnum


class Source(StrEnum):
    """What asked for a delivery (the `deliveries.source` column)."""

    QUIZ = "quiz"  # /quiz, Next question, a topic chosen (private)
    MISTAKES = "mistakes"  # /mistakes and its Next question: only questions last answered wrong
    DAILY = "daily"  # the daily push (private chats, groups and channels)
    GROUP = "group"  # /quiz in a group or channel
    TERMINAL = "terminal"  # `quizbot play`
    MOCK = "mock"  # an answer given in a mock exam, recorded when the exam is submitted


class Audience(StrEnum):
    """Who answers a delivery: one learner, or every member of a group or channel."""

    PRIVATE = "private"
    GROUP = "group"


class ChatKind(StrEnum):
    """Where a daily push goes (the `subscriptions.kind` column); it picks the composer."""

    PRIVATE = "private"
    GROUP = "group"
    CHANNEL = "channel"


class PollMode(StrEnum):
    """How a group question is posted (the `chats.poll_mode` column)."""

    BUTTONS = "buttons"
    QUIZ_POLL = "quiz_poll"


class PushState(StrEnum):
    """A push log row's state; RETRY is an outcome only (back to pending, after a backoff)."""

    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"
    BLOCKED = "blocked"
    SKIPPED = "skipped"
    RETRY = "retry"
