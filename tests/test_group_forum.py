"""A supergroup with topics (a forum): what answers a message sent in a topic goes to that
topic, not to the group's General topic."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests import factories
from tests.botharness import Harness, running_bot
from tests.groups_support import ADMIN, ANN, GROUP_ID, setup_admin

FORUM = {**factories.group_chat(GROUP_ID, "Exam prep"), "is_forum": True}
THREAD = 42
BOT = "@quizbot_test_bot"


def in_topic(text: str, who: dict[str, Any]) -> dict[str, Any]:
    return factories.command(text, who, FORUM, message_thread_id=THREAD, is_topic_message=True)


async def threads_of_sends(h: Harness, update: dict[str, Any]) -> list[object]:
    """The message_thread_id of every message the bot sent in answer to `update`."""
    h.clock.advance(120)  # past the group's pace between questions
    n = len(h.api.calls)
    await h.feed(update)
    sends = [c for c in h.api.calls[n:] if c.method in ("sendMessage", "sendPoll", "sendPhoto")]
    assert sends
    return [c.params.get("message_thread_id") for c in sends]


async def test_commands_and_questions_in_a_topic_are_answered_in_that_topic(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        for text, who in ((f"/help{BOT}", ANN), (f"/quiz{BOT}", ADMIN), (f"/window{BOT}", ADMIN)):
            assert set(await threads_of_sends(h, in_topic(text, who))) == {THREAD}, text
        assert set(await threads_of_sends(h, in_topic(f"/reveal{BOT}", ANN))) == {THREAD}
        # In the General topic (no thread): as in any group.
        general = factories.command(f"/quiz{BOT}", ADMIN, FORUM)
        assert set(await threads_of_sends(h, general)) == {None}


async def test_a_question_posted_again_after_flood_control_keeps_its_topic(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        h.api.rate_limit(retry_after=30, times=1, method="sendMessage", chat_id=GROUP_ID)
        await h.feed(in_topic(f"/quiz{BOT}", ADMIN))
        assert h.app.job_queue is not None
        [retry] = h.app.job_queue.get_jobs_by_name(f"group-retry:{GROUP_ID}")
        retry.schedule_removal()
        n = len(h.api.calls)
        await retry.run(h.app)
        [posted] = [c for c in h.api.calls[n:] if c.method == "sendMessage"]
        assert posted.params.get("message_thread_id") == THREAD
