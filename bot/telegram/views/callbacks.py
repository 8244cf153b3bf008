"""Callback data of our buttons: short ASCII strings, each well under Telegram's 64 bytes.

`a:<delivery>:<option>` answer · `t:<delivery>:<option>` toggle (multiple answer) ·
`s:<delivery>` submit · `n:<delivery>` next question · `x:<delivery>` all options explained ·
`tp:<topic>` choose a topic (`*` for all) · `bk:<bank>` switch to another bank (exam) ·
`dl:<HHMM>|off` daily time · `rs:<bank>` confirm /reset of that bank (`rs:-` cancels).
Who may press which is in bot/telegram/handlers/permissions.py.
"""

from __future__ import annotations

import re

from bot.bank.limits import CALLBACK_DATA_BYTES

ANSWER = re.compile(r"^a:(\d{1,18}):(\d{1,2})$")
TOGGLE = re.compile(r"^t:(\d{1,18}):(\d{1,2})$")
SUBMIT = re.compile(r"^s:(\d{1,18})$")
NEXT = re.compile(r"^n:(\d{1,18})$")
EXPLAIN = re.compile(r"^x:(\d{1,18})$")
TOPIC = re.compile(r"^tp:([a-z0-9*][a-z0-9._-]{0,47})$")
BANK = re.compile(r"^bk:([a-z0-9][a-z0-9._-]{0,47})$")
ALL_TOPICS = "*"


def _checked(data: str) -> str:
    if len(data.encode()) > CALLBACK_DATA_BYTES:
        raise ValueError(f"callback data over {CALLBACK_DATA_BYTES} bytes: {data!r}")
    return data


def answer(delivery_id: int, option: int) -> str:
    return _checked(f"a:{delivery_id}:{option}")


def toggle(delivery_id: int, option: int) -> str:
    return _checked(f"t:{delivery_id}:{option}")


def submit(delivery_id: int) -> str:
    return _checked(f"s:{delivery_id}")


def next_question(delivery_id: int) -> str:
    return _checked(f"n:{delivery_id}")


def explain(delivery_id: int) -> str:
    return _checked(f"x:{delivery_id}")


def topic(topic_id: str | None) -> str:
    return _checked(f"tp:{topic_id or ALL_TOPICS}")


DAILY = re.compile(r"^dl:(\d{4}|off)$")  # daily-time buttons: `dl:0730` or `dl:off`


def daily(hhmm: str | None) -> str:
    """A daily-time button ('07:30'), or Off for None."""
    return _checked(f"dl:{hhmm.replace(':', '') if hhmm else 'off'}")


def bank(bank_id: str) -> str:
    return _checked(f"bk:{bank_id}")


RESET = re.compile(r"^rs:([a-z0-9][a-z0-9._-]{0,47}|-)$")
RESET_CANCEL = "-"


def reset(bank_id: str | None) -> str:
    """Confirm /reset of a bank's history, or cancel it (None)."""
    return _checked(f"rs:{bank_id or RESET_CANCEL}")
