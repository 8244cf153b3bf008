"""Callback data of every button, declared once: a prefix, then parts separated by ':'.

A declaration is the keyboard's encoder (`ANSWER(delivery, token, position)`), the route's
pattern and the handler's parser at once, so the three cannot drift; the encoder refuses data
its own pattern would not take or over Telegram's 64 bytes, and a test builds every
declaration's longest data. Who may press each button, and what it does, is declared beside
its handler (`@BUTTONS.on(callbacks.ANSWER, Who.ANYONE)`, see handlers/buttons.py).

The token is random per delivery and stored with it: after a restore from backup, delivery
ids are handed out again, and a newer message's button must not answer an older question.
Buttons made before tokens (no token part) are still understood for deliveries without one.
Positions are as displayed (after the shuffle).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.bank.limits import CALLBACK_DATA_BYTES


@dataclass(frozen=True, slots=True)
class Part:
    """One part of callback data: the text it matches, its longest value, how it is read."""

    regex: str
    longest: str
    read: Callable[[str], Any] = str
    optional: bool = False  # may be left out, and is then read as ""

    def __or__(self, other: Part) -> Part:
        return Part(f"{self.regex}|{other.regex}", max(self.longest, other.longest, key=len))


def number(digits: int) -> Part:
    return Part(rf"\d{{1,{digits}}}", "9" * digits, int)


def word(*words: str) -> Part:
    return Part("|".join(map(re.escape, words)), max(words, key=len))


class CallbackData:
    """The data of one kind of button: `prefix:part:part...`."""

    def __init__(self, prefix: str, *parts: Part) -> None:
        self.prefix, self.parts = prefix, parts
        body = "".join(f"(?::({p.regex}))?" if p.optional else f":({p.regex})" for p in parts)
        self.pattern = re.compile(f"^{prefix}{body}$")

    def __call__(self, *values: object) -> str:
        """The data for one value per part (None or "" leaves an optional part out)."""
        data = ":".join([self.prefix, *(str(v) for v in values if v is not None and v != "")])
        if len(data.encode()) > CALLBACK_DATA_BYTES or not self.pattern.match(data):
            raise ValueError(f"not the data of a {self.prefix!r} button: {data!r}")
        return data

    def parse(self, data: str) -> tuple[Any, ...] | None:
        """The parts of a press's data, read; None when it is not this button's."""
        m = self.pattern.match(data)
        if m is None:
            return None
        return tuple(p.read(v or "") for p, v in zip(self.parts, m.groups(), strict=True))

    def longest(self) -> str:
        """The longest data this button can carry."""
        return self(*(p.longest for p in self.parts))


ID = number(18)  # a delivery's or a mock exam's
TOKEN = Part("[a-z0-9]{4}", "zzzz", optional=True)
POSITION = number(2)  # an option as displayed
SLUG = Part("[a-z0-9][a-z0-9._-]{0,47}", "a" * 48)  # a bank's or topic's id, as banks allow
ALL_TOPICS = "*"
RESET_CANCEL = "-"

ANSWER = CallbackData("a", ID, TOKEN, POSITION)
TOGGLE = CallbackData("t", ID, TOKEN, POSITION)  # an option of a multiple-answer question
SUBMIT = CallbackData("s", ID, TOKEN)
CONFIDENCE = CallbackData("c", ID, TOKEN, word("s", "u"))  # sure / unsure
CHANGE = CallbackData("cg", ID, TOKEN)  # change the pick before sure / unsure
NEXT = CallbackData("n", ID)
EXPLAIN = CallbackData("x", ID, TOKEN)  # all options explained
REPORT = CallbackData("rp", ID, TOKEN)  # flag the question: asks why
# Why it is flagged: wrong answer key, unclear, typo, outdated, other (the token last: it is
# optional, and a reason could look like one).
REPORT_WHY = CallbackData("rw", ID, word("key", "unclear", "typo", "outdated", "other"), TOKEN)
EXAM_OFFER = CallbackData("ex", number(3))  # /start's exam date in days (0: no date)
PRACTICE = CallbackData("pq", word("go"))  # back to normal practice
TOPIC = CallbackData("tp", SLUG | word(ALL_TOPICS))
BANK = CallbackData("bk", SLUG)  # switch to another bank (exam)
DAILY = CallbackData("dl", Part(r"\d{4}", "9999") | word("off"))  # daily time HHMM, or off
RESET = CallbackData("rs", SLUG | word(RESET_CANCEL))  # confirm /reset of that bank, or cancel
# On a mock exam's message, `<exam>:<position>:<action><number>:<token>`: it names the exam and
# question it was made for, so a button of an old exam, of an exam whose id was handed out again
# after a restore (the token), or of a question since left, is told apart.
MOCK_MOVE = CallbackData("m", ID, number(4), Part(r"[a-z]\d{0,4}", "z9999"), TOKEN)
MOCK_OFFER = CallbackData("mo", word("full", "short") | number(4))  # start the exam offered
MOCK_REVIEW = CallbackData("mr", ID, number(4))  # send mistake i for review
MOCK_REVIEW_SHOWN = CallbackData("mv", ID, number(4))  # show mistake i in the review message
BACK_TO_EXAM = "exam"
# Beside a running mock exam: back to it, or practice (`quiz` or `mistakes`) outside it.
BESIDE_MOCK = CallbackData("pm", word(BACK_TO_EXAM, "quiz", "mistakes"))
# The same, "Pause the exam" then practice: `<exam>:<practice>:<token>` names the exam it
# would pause, so the button of an exam that is over since changes nothing.
PAUSE_MOCK = CallbackData("mp", ID, word("quiz", "mistakes"), TOKEN)
