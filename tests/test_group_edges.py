"""Group and channel edges found by trying the bot as members and admins would: a /reset that
reopened group questions, a channel's /export that published its readers, a window given in
superscript digits, and /quizpoll after a /reload took the chat's topic away."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from telegram import Update

from tests import factories, sample_bank
from tests.botharness import Harness, running_bot
from tests.groups_support import (
    ADMIN,
    ANN,
    BOB,
    GROUP,
    GROUP_ID,
    ask,
    buttons,
    db_rows,
    delivery_of,
    question_of,
    right_option,
    setup_admin,
    tap,
    wrong_option,
)
from tests.ops_support import write_bank
from tests.test_groups_channels import CHANNEL, CHANNEL_ID, channel_command, make_admin

NO_PACE = {"QUIZBOT_GROUP_QUIZ_COOLDOWN_SECONDS": 0, "QUIZBOT_GROUP_MIN_OPEN_SECONDS": 0}
BANK = sample_bank.bank([sample_bank.question(f"q{i}", correct=(i % 3,)) for i in range(6)])
ANN_CHAT = factories.private_chat(ANN)


async def reset(h: Harness) -> None:
    await h.feed(factories.command("/reset", ANN, ANN_CHAT))
    confirm = h.api.last_message(ANN["id"])
    assert confirm is not None
    yes = next(data for _, data in buttons(confirm) if data != "rs:-")
    await h.feed(factories.callback(yes, ANN, confirm))


async def test_a_reset_does_not_reopen_a_group_question(tmp_path: Path) -> None:
    async with running_bot(tmp_path, BANK, **NO_PACE) as h:
        setup_admin(h)
        await h.feed(factories.command("/start", ANN, ANN_CHAT))
        await h.feed(factories.command("/quiz", ANN, ANN_CHAT))  # a private answer to forget
        private = h.api.last_message(ANN["id"])
        assert private is not None
        await h.feed(factories.callback(buttons(private)[0][1], ANN, private))
        posted = await ask(h)
        question = question_of(h, delivery_of(posted))
        await tap(h, ANN, posted, wrong_option(question))
        for _ in range(3):  # told the key by the alert, Ann resets and taps it
            await reset(h)
            await tap(h, ANN, posted, right_option(question))
        rows = db_rows(h.db_path, "SELECT chat_id, correct FROM answers WHERE user_id = ?",
                       (ANN["id"],))  # fmt: skip
        assert rows == [(GROUP_ID, 0)]  # the group answer stays; the private one went
        totals = db_rows(
            h.db_path,
            "SELECT answered, correct FROM member_totals WHERE chat_id = ? AND user_id = ?",
            (GROUP_ID, ANN["id"]),
        )
        assert totals and set(totals) == {(1, 0)}  # all time and this week: one answer, wrong


async def test_a_channels_results_are_not_posted_in_the_channel(tmp_path: Path) -> None:
    async with running_bot(tmp_path, **NO_PACE) as h:
        await make_admin(h)
        await h.feed(channel_command("/quiz"))
        post = h.api.last_message(CHANNEL_ID)
        assert post is not None
        reader = factories.user(9001, "Secret Reader", "secret_reader")
        await tap(h, reader, post, right_option(question_of(h, delivery_of(post))))
        await h.feed(channel_command("/export"))
        assert h.api.documents_to(CHANNEL_ID) == []
        said = h.api.last_text(CHANNEL_ID) or ""
        assert f"quizbot export --chat {CHANNEL_ID}" in said
        assert "secret_reader" not in said and "9001" not in said
        # Nor on a leaderboard posted to every subscriber.
        await h.feed(channel_command("/leaderboard"))
        said = h.api.last_text(CHANNEL_ID) or ""
        assert "leaderboard is not posted in the channel" in said and "Secret" not in said


async def test_a_window_in_superscript_digits_gets_the_usage(tmp_path: Path) -> None:
    async with running_bot(tmp_path, BANK, **NO_PACE) as h:
        setup_admin(h)
        await h.feed(factories.command("/window ²", ADMIN, GROUP))
        assert (h.api.last_text(GROUP_ID) or "").startswith("Use /window")


async def test_quizpoll_counts_the_whole_bank_once_the_chats_topic_is_gone(
    tmp_path: Path,
) -> None:
    full = sample_bank.bank()
    root = write_bank(tmp_path / "banks", full)
    operator = factories.user(42, "Op")
    async with running_bot(
        tmp_path, full, QUIZBOT_ADMINS="42", QUIZBOT_QUESTIONS=str(root), **NO_PACE
    ) as h:
        setup_admin(h)
        await h.feed(factories.command("/topics", ADMIN, GROUP))
        menu = h.api.last_message(GROUP_ID)
        assert menu is not None
        await h.feed(factories.callback("tp:beta", ADMIN, menu))
        alpha = [q for q in full.questions.values() if q.topic == "alpha"]
        write_bank(tmp_path / "banks", sample_bank.bank(alpha))
        await h.feed(factories.command("/reload", operator, factories.private_chat(operator)))
        await h.feed(factories.command("/quizpoll", ADMIN, GROUP))
        said = h.api.last_text(GROUP_ID) or ""
        assert f"of {len(alpha)} questions" in said, said


async def test_a_channel_promoted_again_gets_its_daily_question_back(tmp_path: Path) -> None:
    async with running_bot(tmp_path, **NO_PACE) as h:
        push = h.services.push
        push.pace_now = h.clock.now
        h.clock.set(dt.datetime(2026, 6, 1, 7, 0, tzinfo=dt.UTC))
        await make_admin(h)
        await h.feed(channel_command("/daily 09:00 UTC"))
        # Demoted: the next daily question meets Telegram's refusal, which stops the daily.
        await h.feed(factories.my_chat_member(CHANNEL, "administrator", "member", ADMIN))
        h.api.block(CHANNEL_ID)
        h.clock.set(dt.datetime(2026, 6, 1, 9, 0, 30, tzinfo=dt.UTC))
        await push.run_once()
        query = "SELECT local_time, timezone, active FROM subscriptions WHERE chat_id = ?"
        assert db_rows(h.db_path, query, (CHANNEL_ID,)) == [("09:00", "UTC", 0)]
        h.api.unblock(CHANNEL_ID)
        await h.feed(factories.my_chat_member(CHANNEL, "member", "administrator", ADMIN))
        assert db_rows(h.db_path, query, (CHANNEL_ID,)) == [("09:00", "UTC", 1)]
        h.clock.set(dt.datetime(2026, 6, 2, 9, 0, 30, tzinfo=dt.UTC))
        assert await push.run_once() == 1


@pytest.mark.parametrize("push_while_away", [True, False], ids=["refused push", "no push"])
async def test_a_group_that_adds_the_bot_back_hears_if_its_daily_question_is_off(
    tmp_path: Path, push_while_away: bool
) -> None:
    async with running_bot(tmp_path, **NO_PACE) as h:
        push = h.services.push
        push.pace_now = h.clock.now
        h.clock.set(dt.datetime(2026, 6, 1, 7, 0, tzinfo=dt.UTC))
        setup_admin(h)
        await h.feed(factories.command("/daily@quizbot_test_bot 09:00 UTC", ADMIN, GROUP))
        await h.feed(factories.my_chat_member(GROUP, "member", "left", ADMIN))
        if push_while_away:  # Telegram refuses the daily question, which stops the daily
            h.api.block(GROUP_ID)
            h.clock.set(dt.datetime(2026, 6, 1, 9, 0, 30, tzinfo=dt.UTC))
            await push.run_once()
            h.api.unblock(GROUP_ID)
        await h.feed(factories.my_chat_member(GROUP, "left", "member", ADMIN))
        welcome = h.api.last_text(GROUP_ID) or ""
        assert "practice-exam bot" in welcome
        off = "daily question here is off (it was 09:00, UTC)"
        assert (off in welcome) is push_while_away
        if not push_while_away:
            h.clock.set(dt.datetime(2026, 6, 1, 9, 0, 30, tzinfo=dt.UTC))
            assert await push.run_once() == 1


async def test_two_members_sending_quiz_at_once_post_one_question(tmp_path: Path) -> None:
    async def as_polling_does(payload: dict[str, Any]) -> None:
        # Through the app's update processor, which runs two senders' updates side by side.
        update = Update.de_json(payload, h.app.bot)
        await h.app.update_processor.process_update(update, h.app.process_update(update))

    async with running_bot(tmp_path, BANK) as h:
        setup_admin(h)
        await asyncio.gather(
            as_polling_does(factories.command("/quiz", ANN, GROUP)),
            as_polling_does(factories.command("/quiz", BOB, GROUP)),
        )
        # The pace was checked outside the chat's lock: both passed, and the first question
        # was closed at once by the second.
        assert len(db_rows(h.db_path, "SELECT id FROM deliveries")) == 1
        assert not [m for m in h.api.messages_to(GROUP_ID) if "Closed" in m.get("text", "")]
