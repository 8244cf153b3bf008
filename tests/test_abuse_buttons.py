"""Who may press what: every declared button pressed as every kind of user (private learner,
stranger in someone's private chat, group member, group admin, channel reader) and with forged
data is answered once; a refused press changes nothing. The buttons are the routes' own
declarations, so a new button is pressed here without a line of this file changing."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from bot.bank.limits import CALLBACK_DATA_BYTES
from bot.telegram.handlers.buttons import Button, Who
from bot.telegram.routes import BUTTONS
from bot.telegram.views import texts
from bot.telegram.views.callbacks import Part
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
    setup_admin,
)

CHANNEL_ID = -1007777
CHANNEL = factories.channel(CHANNEL_ID, "Quiz channel")
OTHER = sample_bank.bank([sample_bank.question("o1")], bank_id="other-exam")
# What a refused press is told, by who may press the button.
AS_MEMBER = {Who.PRIVATE: texts.CB_PRIVATE_ONLY, Who.ADMINS: texts.CB_ADMINS_ONLY}
AS_ADMIN = {Who.PRIVATE: texts.CB_PRIVATE_ONLY}
AS_STRANGER = dict.fromkeys(Who, texts.CB_UNKNOWN)
REFUSALS = {texts.CB_PRIVATE_ONLY, texts.CB_ADMINS_ONLY}


def test_every_buttons_longest_data_fits_telegram_and_nothing_longer_is_taken() -> None:
    assert len({b.data.prefix for b in BUTTONS}) == len(BUTTONS)
    for button in BUTTONS:
        longest = button.data.longest()
        assert len(longest.encode()) <= CALLBACK_DATA_BYTES, longest
        assert button.data.parse(longest) is not None, longest
        assert button.data.parse(longest + "0") is None, longest
        with pytest.raises(ValueError):
            button.data(*(p.longest + "0" for p in button.data.parts))


Screen = dict[str, Any]  # a message the bot sent


def data_for(button: Button, screens: list[Screen]) -> tuple[str, Screen]:
    """Such a button of one of the bot's messages (a real press), else one forged on the first
    message as a hostile user would: with the ids and tokens seen on the bot's buttons, and the
    longest value of any other part."""
    seen: dict[Part, Any] = {}
    for screen in screens:
        for _, data in buttons(screen):
            if button.data.parse(data) is not None:
                return data, screen
            for other in BUTTONS:
                if (values := other.data.parse(data)) is not None:
                    seen.update(zip(other.data.parts, values, strict=True))
    return button.data(*(seen.get(p, p.longest) for p in button.data.parts)), screens[0]


def snapshot(h: Harness, chat_id: int) -> dict[str, Any]:
    """What a refused press must not change: settings, subscriptions, questions, answers, exams,
    posts and edits."""
    sends = ("sendMessage", "sendPoll", "editMessageText", "editMessageReplyMarkup")
    return {
        "chat": db_rows(h.db_path, "SELECT * FROM chats WHERE id = ?", (chat_id,)),
        "subscriptions": db_rows(h.db_path, "SELECT * FROM subscriptions"),
        "deliveries": db_rows(h.db_path, "SELECT id, closed_at, revealed_at FROM deliveries"),
        "answers": db_rows(h.db_path, "SELECT * FROM answers"),
        "users": db_rows(h.db_path, "SELECT id, bank_id, topic FROM users"),
        "exams": db_rows(h.db_path, "SELECT * FROM mock_exams"),
        "api": {m: h.api.count(m, chat_id) for m in sends},
    }


async def press(h: Harness, data: str, screen: Screen, user: dict[str, Any]) -> str:
    """Press a button of `screen`; the one callback answer's text ("" for none)."""
    before = len(h.api.calls_of("answerCallbackQuery"))
    await h.feed(factories.callback(data, user, screen))
    answers = h.api.calls_of("answerCallbackQuery")
    assert len(answers) == before + 1, data  # the client stops spinning, once
    return str(answers[-1].params.get("text") or "")


async def press_all(
    h: Harness,
    user: dict[str, Any],
    screens: list[Screen],
    refused: dict[Who, str],
    *,
    may_change_chat: bool = False,
) -> None:
    """Every button, then every button's forged data, as `user` in the chat of `screens`.

    Unless the user may change the chat (its admin or owner), no press changes its settings,
    its subscription or its questions, nor posts in it: an allowed press is the user's own.
    """
    chat_id = screens[0]["chat"]["id"]
    for button in BUTTONS:
        before = snapshot(h, chat_id)
        answer = await press(h, *data_for(button, screens), user)
        if button.who in refused:
            assert answer == refused[button.who], (button.data.prefix, answer)
            assert snapshot(h, chat_id) == before, button.data.prefix
        else:
            assert answer not in REFUSALS, (button.data.prefix, answer)
        after = snapshot(h, chat_id)
        for key in ("chat", "subscriptions", "deliveries") if not may_change_chat else ():
            assert after[key] == before[key], (button.data.prefix, key)
        if not may_change_chat:
            assert after["api"]["sendMessage"] == before["api"]["sendMessage"], button.data.prefix
    for button in BUTTONS:
        for forged in (button.data.longest() + "0", f"{button.data.prefix}:"):
            before = snapshot(h, chat_id)
            assert await press(h, forged, screens[0], user) == texts.CB_UNKNOWN, forged
            assert snapshot(h, chat_id) == before, forged


def no_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_learner_and_stranger_press_every_button_in_a_private_chat(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(tmp_path, more_banks=(OTHER,), QUIZBOT_FLOOD_BURST=0) as h:
        chat, screens = factories.private_chat(ANN), []
        for command in ("/quiz", "/topics", "/daily"):
            await h.feed(factories.command(command, ANN, chat))
            screens.append(h.api.last_message(ANN["id"]))
        # Bob's press in Ann's chat is refused whatever the button: the chat is hers.
        await press_all(h, BOB, screens, AS_STRANGER)
        await press_all(h, ANN, screens, {}, may_change_chat=True)
        assert db_rows(h.db_path, "SELECT user_id FROM answers") == [(ANN["id"],)]
    assert no_errors(caplog) == []


async def test_member_and_admin_press_every_button_in_a_group(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(tmp_path, more_banks=(OTHER,), QUIZBOT_FLOOD_BURST=0) as h:
        setup_admin(h)
        await h.feed(factories.command("/daily 06:00 Europe/Paris", ADMIN, GROUP))
        question = await ask(h, by=ADMIN)
        await h.feed(factories.command("/topics@quizbot_test_bot", ADMIN, GROUP))
        screens = [question, h.api.last_message(GROUP_ID)]
        await press_all(h, ANN, screens, AS_MEMBER)
        await press_all(h, ADMIN, screens, AS_ADMIN, may_change_chat=True)
        assert db_rows(
            h.db_path, "SELECT active FROM subscriptions WHERE chat_id = ?", (GROUP_ID,)
        ) == [(1,)]
        # The members' own answers count: Ann's and Olga's taps on the question's buttons.
        answered = db_rows(
            h.db_path,
            "SELECT user_id FROM answers WHERE delivery_id = ?",
            (delivery_of(question),),
        )
        assert sorted(answered) == sorted([(ANN["id"],), (ADMIN["id"],)])
    assert no_errors(caplog) == []


async def test_reader_presses_every_button_in_a_channel(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(tmp_path, more_banks=(OTHER,), QUIZBOT_FLOOD_BURST=0) as h:
        h.api.set_chat(CHANNEL_ID, type="channel", title="Quiz channel")
        h.api.set_member_status(CHANNEL_ID, ANN["id"], "member", ANN)
        await h.feed(factories.my_chat_member(CHANNEL, "left", "administrator", ADMIN))
        post = factories.message("/quiz", None, CHANNEL, sender_chat=CHANNEL)
        post["entities"] = [{"type": "bot_command", "offset": 0, "length": 5}]
        await h.feed({"update_id": 10**6, "channel_post": post})
        question = h.api.last_message(CHANNEL_ID)
        assert question is not None
        await press_all(h, ANN, [question], AS_MEMBER)
    assert no_errors(caplog) == []


async def test_group_admin_may_choose_the_groups_topic_and_exam(tmp_path: Path) -> None:
    async with running_bot(tmp_path, more_banks=(OTHER,)) as h:
        setup_admin(h)
        await h.feed(factories.command("/topics@quizbot_test_bot", ANN, GROUP))
        assert "Only the group's admins" in (h.api.last_text(GROUP_ID) or "")
        await h.feed(factories.command("/topics@quizbot_test_bot", ADMIN, GROUP))
        menu = h.api.last_message(GROUP_ID)
        assert menu is not None and "Choose the topic" in menu["text"]
        await h.feed(factories.callback(f"bk:{OTHER.id}", ADMIN, menu))
        assert db_rows(
            h.db_path, "SELECT bank_id, topic FROM chats WHERE id = ?", (GROUP_ID,)
        ) == [(OTHER.id, None)]
        # The admin's own private practice is untouched.
        assert db_rows(h.db_path, "SELECT bank_id FROM users WHERE id = ?", (ADMIN["id"],)) in (
            [],
            [(None,)],
        )
        question = await ask(h, by=ADMIN)
        assert "o1" in str(
            db_rows(
                h.db_path,
                "SELECT question_id FROM deliveries WHERE id = ?",
                (delivery_of(question),),
            )
        )
