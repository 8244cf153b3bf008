"""Callback data of our buttons: short ASCII strings, each well under Telegram's 64 bytes.

`a:<delivery>:<token>:<position>` answer · `t:<delivery>:<token>:<position>` toggle (multiple
answer) · `s:<delivery>:<token>` submit · `c:<delivery>:<token>:<s|u>` sure / unsure ·
`cg:<delivery>:<token>` change the pick before that · `n:<delivery>` next question ·
`x:<delivery>:<token>` all options explained · `tp:<topic>` choose a topic (`*` for all) ·
`bk:<bank>` switch to another bank (exam) · `dl:<HHMM>|off` daily time · `rs:<bank>` confirm
/reset of that bank (`rs:-` cancels) · `ex:<days>` the exam-date offer (0: no date) · `pq:go`
back to normal practice.
Who may press which is in bot/telegram/handlers/permissions.py.

The token is random per delivery and stored with it: after a restore from backup, delivery
ids are handed out again, and a newer message's button must not answer an older question.
Buttons made before tokens (no token part) are still understood for deliveries without one.
Positions are as displayed (after the shuffle).
"""

from __future__ import annotations

import re

from bot.bank.limits import CALLBACK_DATA_BYTES

_TOKEN = r"(?::(?P<tok>[a-z0-9]{4}))?"
ANSWER = re.compile(rf"^a:(\d{{1,18}}){_TOKEN}:(\d{{1,2}})$")
TOGGLE = re.compile(rf"^t:(\d{{1,18}}){_TOKEN}:(\d{{1,2}})$")
SUBMIT = re.compile(rf"^s:(\d{{1,18}}){_TOKEN}$")
CONFIDENCE = re.compile(rf"^c:(\d{{1,18}}){_TOKEN}:(?P<sure>[su])$")
CHANGE = re.compile(rf"^cg:(\d{{1,18}}){_TOKEN}$")
NEXT = re.compile(r"^n:(\d{1,18})$")
EXPLAIN = re.compile(rf"^x:(\d{{1,18}}){_TOKEN}$")
EXAM_OFFER = re.compile(r"^ex:(\d{1,3})$")
PRACTICE = re.compile(r"^pq:go$")
TOPIC = re.compile(r"^tp:([a-z0-9*][a-z0-9._-]{0,47})$")
BANK = re.compile(r"^bk:([a-z0-9][a-z0-9._-]{0,47})$")
ALL_TOPICS = "*"


def _checked(data: str) -> str:
    if len(data.encode()) > CALLBACK_DATA_BYTES:
        raise ValueError(f"callback data over {CALLBACK_DATA_BYTES} bytes: {data!r}")
    return data


def _key(delivery_id: int, token: str | None) -> str:
    return f"{delivery_id}:{token}" if token else str(delivery_id)


def answer(delivery_id: int, option: int, token: str | None = None) -> str:
    return _checked(f"a:{_key(delivery_id, token)}:{option}")


def toggle(delivery_id: int, option: int, token: str | None = None) -> str:
    return _checked(f"t:{_key(delivery_id, token)}:{option}")


def submit(delivery_id: int, token: str | None = None) -> str:
    return _checked(f"s:{_key(delivery_id, token)}")


def confidence(delivery_id: int, token: str | None, sure: bool) -> str:
    return _checked(f"c:{_key(delivery_id, token)}:{'s' if sure else 'u'}")


def change(delivery_id: int, token: str | None) -> str:
    return _checked(f"cg:{_key(delivery_id, token)}")


def next_question(delivery_id: int) -> str:
    return _checked(f"n:{delivery_id}")


def explain(delivery_id: int, token: str | None = None) -> str:
    return _checked(f"x:{_key(delivery_id, token)}")


def exam_offer(days: int) -> str:
    return _checked(f"ex:{days}")


def practice() -> str:
    return _checked("pq:go")


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
