"""Callback data of mock-exam buttons: short ASCII strings, well under Telegram's 64 bytes.

`m:<exam>:<position>:<action><number>` acts on the exam shown at that question, so a button of
an old exam, or of a question since left, names what it was made for:
`a<d>` choose the option shown at display position d · `r<d>` unselect it (select-k) ·
`p`/`n` previous/next question · `f`/`u` flag/unflag · `g<q>` jump to question q ·
`v<page>` show another page of the jump grid · `e` finish · `y` finish, confirmed ·
`b` back to the question · `x` abandon, confirmed · `c` keep the exam going.
`mo:<full|short|N>` start the exam offered · `mr:<exam>:<i>` send mistake i for review ·
`mv:<exam>:<i>` show mistake i in the review message.
`pm:<exam|quiz|mistakes>` beside a running exam: back to it, or practice outside it.
"""

from __future__ import annotations

import re

from bot.bank.limits import CALLBACK_DATA_BYTES

MOVE = re.compile(r"^m:(\d{1,18}):(\d{1,4}):([a-z])(\d{0,4})$")
OFFER = re.compile(r"^mo:(full|short|\d{1,4})$")
REVIEW = re.compile(r"^m([rv]):(\d{1,18}):(\d{1,4})$")
BESIDE = re.compile(r"^pm:(exam|quiz|mistakes)$")
BACK_TO_EXAM = "exam"


def _checked(data: str) -> str:
    if len(data.encode()) > CALLBACK_DATA_BYTES:
        raise ValueError(f"callback data over {CALLBACK_DATA_BYTES} bytes: {data!r}")
    return data


def move(exam_id: int, position: int, action: str, number: int | None = None) -> str:
    """A button acting on an exam at a question position."""
    return _checked(f"m:{exam_id}:{position}:{action}{'' if number is None else number}")


def offer(what: str | int) -> str:
    """Start the full, short or an N-question exam."""
    return _checked(f"mo:{what}")


def beside(choice: str) -> str:
    """Beside a running exam: `exam` (back to it), `quiz` or `mistakes` (practice outside it)."""
    return _checked(f"pm:{choice}")


def review(exam_id: int, index: int, *, in_place: bool = False) -> str:
    """Show mistake `index` of an exam, as a new message or in the review message."""
    return _checked(f"m{'v' if in_place else 'r'}:{exam_id}:{index}")
