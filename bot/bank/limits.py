"""Telegram limits that a question must respect, checked when a bank is loaded."""

from __future__ import annotations

from collections.abc import Sequence

TELEGRAM_MESSAGE_CHARS = 4096
TELEGRAM_CAPTION_CHARS = 1024  # a photo's or document's caption, after entity parsing
CALLBACK_ANSWER_CHARS = 200
CALLBACK_DATA_BYTES = 64
MIN_OPTIONS = 2
MAX_OPTIONS = 12
# An option is shown in the message body and its button carries only its letter, so the text
# may be long; this cap keeps one option from eating the whole message.
MAX_OPTION_CHARS = 600
# Room kept for the header line (bank, topic, difficulty, "select two") and the footer hint.
MESSAGE_OVERHEAD_CHARS = 196
MAX_QUESTION_MESSAGE_CHARS = TELEGRAM_MESSAGE_CHARS - MESSAGE_OVERHEAD_CHARS


def question_message_length(stem: str, options: Sequence[str]) -> int:
    """Visible length of the stem and its lettered options as the question message lays them out.

    Telegram counts the limit after entity parsing, so HTML escapes and tags do not count.
    """
    # "A. " before each option, a newline after each, a blank line between stem and options.
    return len(stem.strip()) + 2 + sum(len(o.strip()) + 4 for o in options)
