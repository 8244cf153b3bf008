"""Channels: the bot made admin gets the daily question there with answer buttons (callback
queries carry the user), revealed after its window; or Telegram's native quiz poll."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path
from typing import Any

from bot.telegram.views.group_render import poll_explanation, poll_fits
from tests import factories, sample_bank
from tests.botharness import Harness, running_bot
from tests.groups_support import ADMIN, ANN, BOB, db_rows, delivery_of, question_of, sweep, tap

CHANNEL_ID = -1007777
CHANNEL = factories.channel(CHANNEL_ID, "Daily quiz channel")
_ids = itertools.count(900_000)


def channel_command(text: str) -> dict[str, Any]:
    """A command posted in the channel by one of its admins (the sender is the channel)."""
    entity = {"type": "bot_command", "offset": 0, "length": len(text.split()[0])}
    post = factories.message(text, None, CHANNEL, entities=[entity], sender_chat=CHANNEL)
    return {"update_id": next(_ids), "channel_post": post}


async def make_admin(h: Harness) -> None:
    h.api.set_chat(CHANNEL_ID, type="channel", title="Daily quiz channel")
    await h.feed(factories.my_chat_member(CHANNEL, "left", "administrator", ADMIN))


async def test_channel_admin_gets_daily_question_with_buttons(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        push = h.services.push
        assert push is not None
        push.pace_now = h.clock.now
        h.clock.set(dt.datetime(2026, 6, 1, 7, 0, tzinfo=dt.UTC))
        await make_admin(h)
        sub = await push.subscription(CHANNEL_ID)
        assert sub is not None and sub.kind == "channel" and sub.local_time == "09:00"
        assert h.api.count("sendMessage", chat_id=CHANNEL_ID) == 0  # no greeting in a channel

        h.clock.set(dt.datetime(2026, 6, 1, 9, 0, 30, tzinfo=dt.UTC))
        assert await push.run_once() == 1
        post = h.api.last_message(CHANNEL_ID) or {}
        did = delivery_of(post)
        q = question_of(h, did)
        if q.kind.value == "single":
            alert = await tap(h, ANN, post, min(q.correct_indices))
            assert alert["show_alert"] is True and len(alert["text"]) <= 200
            assert db_rows(h.db_path, "SELECT user_id, chat_id FROM answers") == [
                (ANN["id"], CHANNEL_ID)
            ]
        h.clock.advance(601)
        assert await sweep(h) == 1
        revealed = h.api.message(CHANNEL_ID, post["message_id"])
        assert "Closed" in revealed["text"] and q.explanation in revealed["text"]

        # Demoted: the channel is inactive.
        await h.feed(factories.my_chat_member(CHANNEL, "administrator", "member", ADMIN))
        assert db_rows(h.db_path, f"SELECT active FROM chats WHERE id = {CHANNEL_ID}") == [(0,)]


async def test_channel_quiz_poll_mode(tmp_path: Path) -> None:
    short = sample_bank.question("p1", correct=(2,), stem="Which one is right?")
    async with running_bot(tmp_path, sample_bank.bank([short])) as h:
        await make_admin(h)
        await h.feed(channel_command("/quizpoll on"))
        assert "quiz polls" in (h.api.last_text(CHANNEL_ID) or "")
        await h.feed(channel_command("/quiz"))
        [call] = h.api.calls_of("sendPoll")
        params = call.params
        assert params["type"] == "quiz" and params["is_anonymous"] is True
        assert params["correct_option_ids"] == [2] and params["question"] == "Which one is right?"
        assert len(params["explanation"]) <= 200
        h.clock.advance(601)
        assert await sweep(h) == 1
        assert h.api.count("stopPoll") == 1


async def test_daily_push_in_quiz_poll_mode_sends_a_poll(tmp_path: Path) -> None:
    short = sample_bank.question("p1", correct=(1,), stem="Which one is right?")
    async with running_bot(tmp_path, sample_bank.bank([short])) as h:
        push = h.services.push
        assert push is not None
        push.pace_now = h.clock.now
        h.clock.set(dt.datetime(2026, 6, 1, 7, 0, tzinfo=dt.UTC))
        await make_admin(h)
        await h.feed(channel_command("/quizpoll on"))
        h.clock.set(dt.datetime(2026, 6, 1, 9, 0, 30, tzinfo=dt.UTC))
        assert await push.run_once() == 1
        [call] = h.api.calls_of("sendPoll")
        assert call.params["is_anonymous"] is True and call.params["correct_option_ids"] == [1]
        assert db_rows(h.db_path, "SELECT state FROM push_log") == [("sent",)]
        [(poll_id, message_id)] = db_rows(
            h.db_path, "SELECT poll_id, message_id FROM deliveries WHERE source = 'daily'"
        )
        assert poll_id and message_id
        h.clock.advance(601)
        assert await sweep(h) == 1
        assert h.api.count("stopPoll") == 1


async def test_question_too_long_for_a_poll_goes_out_with_buttons(tmp_path: Path) -> None:
    base = sample_bank.question("long1")
    options = [o.model_copy(update={"text": f"{o.text} " + "why " * 30}) for o in base.options]
    long = base.model_copy(update={"options": options})  # options over 100 characters
    assert not poll_fits(long)
    async with running_bot(tmp_path, sample_bank.bank([long])) as h:
        await make_admin(h)
        await h.feed(channel_command("/quizpoll on"))
        await h.feed(channel_command("/quiz"))
        assert h.api.count("sendPoll") == 0
        post = h.api.last_message(CHANNEL_ID) or {}
        assert delivery_of(post)
        alert = await tap(h, BOB, post, 0)
        assert alert["show_alert"] is True


def test_poll_explanation_is_clipped_to_200_chars_on_a_word() -> None:
    q = sample_bank.question("e1")
    long = q.model_copy(update={"explanation": "word " * 100 + "\nend"})
    text = poll_explanation(long)
    assert len(text) <= 200 and text.endswith("…") and "\n" not in text
