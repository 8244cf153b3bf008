"""Shared scene for the group tests: a study group with three members and an admin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.bank.models import LETTERS, Question
from bot.telegram.outbound import group_rounds
from tests import factories
from tests.botharness import Harness

GROUP_ID = -1001234567890
GROUP = factories.group_chat(GROUP_ID, "Exam prep")
ADMIN = factories.user(701, "Olga")
ANN = factories.user(702, "Ann")
BOB = factories.user(703, "Bob")
CY = factories.user(704, "Cy <3")
MEMBERS = (ANN, BOB, CY)


def buttons(message: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, callback data or url) of every inline button."""
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [(b["text"], b.get("callback_data") or b.get("url", "")) for row in rows for b in row]


def db_rows(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return factories.rows(path, sql, params)


def setup_admin(h: Harness, chat_id: int = GROUP_ID) -> None:
    """Olga administers the group; the others are plain members."""
    h.api.set_member_status(chat_id, ADMIN["id"], "administrator", ADMIN)
    for member in MEMBERS:
        h.api.set_member_status(chat_id, member["id"], "member", member)


async def ask(
    h: Harness, chat: dict[str, Any] = GROUP, by: dict[str, Any] = ANN
) -> dict[str, Any]:
    """/quiz@bot in the group; returns the question message the bot posted."""
    await h.feed(factories.command("/quiz@quizbot_test_bot", by, chat))
    message = h.api.last_message(chat["id"])
    assert message is not None
    return message


def delivery_of(message: dict[str, Any]) -> int:
    return int(buttons(message)[0][1].split(":")[1])


def key_of(message: dict[str, Any]) -> str:
    """`<delivery>:<token>` of a question's buttons, to forge a button the bot could have made."""
    return ":".join(buttons(message)[0][1].split(":")[1:3])


def question_of(h: Harness, delivery_id: int) -> Question:
    rows = db_rows(
        h.db_path, "SELECT bank_id, question_id FROM deliveries WHERE id = ?", (delivery_id,)
    )
    question = h.services.catalog.question(rows[0][0], rows[0][1])
    assert question is not None
    return question


async def tap(
    h: Harness, user: dict[str, Any], message: dict[str, Any], option: int
) -> dict[str, Any]:
    """A member taps a letter; returns the answerCallbackQuery params."""
    data = dict(buttons(message))[LETTERS[option]]
    await h.feed(factories.callback(data, user, message))
    return h.api.calls_of("answerCallbackQuery")[-1].params


def wrong_option(question: Question) -> int:
    return next(i for i, o in enumerate(question.options) if not o.correct)


def right_option(question: Question) -> int:
    return min(question.correct_indices)


async def sweep(h: Harness) -> int:
    """What the close job does when it wakes."""
    return await group_rounds.sweep(h.app.bot, h.services, h.app.job_queue)


async def fire_count_jobs(h: Harness) -> int:
    """Run the trailing count edits now, as the JobQueue would once their delay is over."""
    assert h.app.job_queue is not None
    jobs = [j for j in h.app.job_queue.jobs() if (j.name or "").startswith("group-count:")]
    for job in jobs:
        job.schedule_removal()
        await job.run(h.app)
    return len(jobs)
