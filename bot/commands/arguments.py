"""Argument types shared by the operators' commands."""

from __future__ import annotations

import argparse

# Telegram's user and chat ids are signed 64-bit integers; so are the columns that hold them.
_ID_LIMIT = 2**63


def telegram_id(value: str) -> int:
    """A Telegram user or chat id: a whole number that a 64-bit column holds."""
    text = value.strip()
    digits = text.removeprefix("-")
    if not digits.isdecimal() or len(digits) > 19 or not -_ID_LIMIT <= int(text) < _ID_LIMIT:
        raise argparse.ArgumentTypeError(f"{value[:40]!r} is not a Telegram id")
    return int(text)
