"""A supergroup with topics (a forum): what answers a message sent in a topic goes to that
topic, not to the group's General topic."""

from __future__ import annotations

import datetime as dt
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


async def test_the_daily_question_goes_to_the_topic_it_was_set_in_or_general_once_gone(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        push = h.services.push
        assert push is not None
        push.pace_now = h.clock.now
        h.clock.set(dt.datetime(2026, 6, 1, 5, 0, tzinfo=dt.UTC))
        await h.feed(in_topic(f"/daily{BOT} 08:00 Europe/Paris", ADMIN))
        assert "posted in this topic" in (h.api.last_text(GROUP_ID) or "")

        async def pushed_to(day: int) -> object:
            """The topic the question of 08:01 in Paris on June `day` was posted in."""
            h.clock.set(dt.datetime(2026, 6, day, 6, 1, tzinfo=dt.UTC))
            n = len(h.api.calls)
            assert await push.run_once() == 1
            sent = [c for c in h.api.calls[n:] if c.method in ("sendMessage", "sendPoll")]
            return sent[-1].params.get("message_thread_id")

        assert await pushed_to(1) == THREAD
        # The topic is deleted: that day's question goes to General, and so do later ones.
        h.api.fail_next("*", 400, "Bad Request: message thread not found", chat_id=GROUP_ID)
        assert await pushed_to(2) is None
        sub = await push.subscription(GROUP_ID)
        assert sub is not None and sub.active and sub.thread is None
        assert await pushed_to(3) is None
        # Set again in General: it stays there, and the reply says nothing of topics.
        await h.feed(factories.command(f"/daily{BOT} 09:00 Europe/Paris", ADMIN, FORUM))
        assert "topic" not in (h.api.last_text(GROUP_ID) or "")
