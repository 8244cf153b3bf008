"""The one place that sorts Telegram errors into what the bot does about them.

Senders (replies, edits, group rounds, the push courier, the error handler) ask `sort_error`
and act on the answer, so a new error text or class is taught to the bot here, once.
"""

from __future__ import annotations

from datetime import timedelta
from enum import Enum, auto

from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

NOT_MODIFIED = "message is not modified"
CANNOT_EDIT = ("message can't be edited", "message to edit not found", "message is too old")
# BadRequest texts that mean "you may not post or edit here": not worth retrying, not a bug.
NO_RIGHTS = (
    "not enough rights",
    "have no rights",
    "chat_write_forbidden",
    "chat_admin_required",
    "chat not found",
    "need administrator rights",
)

# BadRequest texts for a forum topic the bot may not post in: deleted, or closed to it.
TOPIC_GONE = ("message thread not found", "topic_closed", "topic_deleted")

# BadRequest texts for a file_id this bot cannot send (another bot's, or expired): upload anew.
BAD_FILE_ID = ("wrong file identifier", "wrong remote file identifier", "file reference expired")
# Telegram's refusals of an uploaded photo itself (PHOTO_INVALID_DIMENSIONS, IMAGE_PROCESS_FAILED,
# PHOTO_SAVE_FILE_INVALID, PHOTO_EXT_INVALID ...), not of the chat or the caption.
BAD_PHOTO = ("photo_", "image_process_failed")


class Failure(Enum):
    """What a Telegram error means for the bot."""

    FLOOD = auto()  # 429: wait retry_after, then try again
    FORBIDDEN = auto()  # blocked, kicked or removed: the chat is inactive
    MIGRATED = auto()  # a group became a supergroup: its rows follow the new id
    NOT_MODIFIED = auto()  # a repeated edit: nothing to do
    CANNOT_EDIT = auto()  # the message is gone or too old: send a new one instead
    NO_RIGHTS = auto()  # may not post or edit in this chat
    TOPIC_GONE = auto()  # the forum topic is deleted or closed: post in General instead
    REFUSED = auto()  # another 400: sending again cannot help
    TIMED_OUT = auto()  # maybe delivered: the Bot API cannot tell (also a reply not JSON)
    NETWORK = auto()  # a 5xx or a connection error: may work later
    OTHER = auto()  # any other TelegramError


def sort_error(err: TelegramError) -> Failure:
    """What to do about err (BadRequest and TimedOut are NetworkErrors: checked first)."""
    if isinstance(err, RetryAfter):
        return Failure.FLOOD
    if isinstance(err, Forbidden):
        return Failure.FORBIDDEN
    if isinstance(err, ChatMigrated):
        return Failure.MIGRATED
    if isinstance(err, BadRequest):
        reason = str(err).lower()
        if NOT_MODIFIED in reason:
            return Failure.NOT_MODIFIED
        if any(r in reason for r in CANNOT_EDIT):
            return Failure.CANNOT_EDIT
        if any(r in reason for r in NO_RIGHTS):
            return Failure.NO_RIGHTS
        if any(r in reason for r in TOPIC_GONE):
            return Failure.TOPIC_GONE
        return Failure.REFUSED
    if isinstance(err, TimedOut) or _garbled(err):
        return Failure.TIMED_OUT
    if isinstance(err, NetworkError):
        return Failure.NETWORK
    return Failure.OTHER


def _garbled(err: TelegramError) -> bool:
    """A reply that is not JSON (cut off by a proxy, an HTML error page with status 200): the
    request may have been carried out, exactly as after a timeout. PTB raises a bare
    TelegramError for it, recognisable only by its text."""
    return type(err) is TelegramError and "invalid server response" in str(err).lower()


def retry_seconds(err: RetryAfter) -> float:
    """RetryAfter.retry_after is an int or, since PTB 22.2, may be a timedelta."""
    value = err.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def refused_photo(err: TelegramError) -> bool:
    """Whether Telegram refused an uploaded picture itself (its size or contents)."""
    return isinstance(err, BadRequest) and any(r in str(err).lower() for r in BAD_PHOTO)


def refused_file_id(err: TelegramError) -> bool:
    """Whether Telegram refused a file_id we sent (the picture must be uploaded again)."""
    return isinstance(err, BadRequest) and any(r in str(err).lower() for r in BAD_FILE_ID)
