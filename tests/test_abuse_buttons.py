"""Who may press what: every callback prefix pressed by a non-admin in a group and in a
channel changes nothing and gets a polite answer; answers stay each member's own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.telegram.handlers.permissions import BUTTONS, Who
from bot.telegram.views import callbacks, mock_callbacks, texts
from tests import factories, sample_bank
from tests.botharness import Harness, running_bot
from tests.groups_support import (
    ADMIN,
    ANN,
    GROUP,
    GROUP_ID,
    ask,
    db_rows,
    delivery_of,
    setup_admin,
)

CHANNEL_ID = -1007777
CHANNEL = factories.channel(CHANNEL_ID, "Quiz channel")
OTHER = sample_bank.bank([sample_bank.question("o1")], bank_id="other-exam")
POLITE = {texts.CB_PRIVATE_ONLY, texts.CB_ADMINS_ONLY}


def data_for(prefix: str, delivery_id: int) -> str:
    """A press of each kind, as a hostile member would forge it."""
    return {
        "a": f"a:{delivery_id}:0",
        "t": f"t:{delivery_id}:0",
        "s": f"s:{delivery_id}",
        "n": f"n:{delivery_id}",
        "x": f"x:{delivery_id}",
        "c": f"c:{delivery_id}:s",
        "cg": f"cg:{delivery_id}",
        "ex": "ex:30",
        "pq": "pq:go",
        "dl": "dl:0300",
        "rs": f"rs:{sample_bank.bank().id}",
        "tp": "tp:*",
        "bk": f"bk:{OTHER.id}",
        "m": "m:1:0:n",
        "mo": "mo:short",
        "mr": "mr:1:0",
        "mv": "mv:1:0",
        "pm": "pm:quiz",
    }[prefix]


def test_every_callback_pattern_has_a_row_in_the_table() -> None:
    patterns = [
        v
        for module in (callbacks, mock_callbacks)
        for v in vars(module).values()
        if isinstance(v, re.Pattern)
    ]
    prefixes: set[str] = set()
    for pattern in patterns:
        # `^a:...`, or `^m([rv]):...` for two prefixes in one pattern.
        m = re.match(r"\^(\w+)(?:\(\[(\w+)\]\))?:", pattern.pattern)
        assert m is not None, pattern.pattern  # every pattern starts with its prefix
        tails = m.group(2) or ""
        prefixes |= {m.group(1) + t for t in tails} if tails else {m.group(1)}
    assert prefixes == set(BUTTONS)


def snapshot(h: Harness, chat_id: int) -> dict[str, Any]:
    """What a press must not change: settings, subscriptions, questions, posts and edits."""
    sends = ("sendMessage", "sendPoll", "editMessageText", "editMessageReplyMarkup")
    return {
        "chat": db_rows(h.db_path, "SELECT * FROM chats WHERE id = ?", (chat_id,)),
        "subscriptions": db_rows(h.db_path, "SELECT * FROM subscriptions"),
        "deliveries": db_rows(h.db_path, "SELECT id, closed_at, revealed_at FROM deliveries"),
        "answers": db_rows(h.db_path, "SELECT * FROM answers"),
        "users": db_rows(h.db_path, "SELECT id, bank_id, topic FROM users"),
        "api": {m: h.api.count(m, chat_id) for m in sends},
    }


async def press_all_as_member(h: Harness, chat_id: int, question: dict[str, Any]) -> None:
    delivery_id = delivery_of(question)
    for prefix, who in BUTTONS.items():
        before = snapshot(h, chat_id)
        await h.feed(factories.callback(data_for(prefix, delivery_id), ANN, question))
        answer = h.api.calls_of("answerCallbackQuery")[-1].params
        if who is Who.ANYONE:
            # Allowed: it is Ann's own answer; the chat's settings and posts stay as they were.
            after = snapshot(h, chat_id)
            for key in ("chat", "subscriptions", "deliveries"):
                assert after[key] == before[key], (prefix, key)
            assert after["api"]["sendMessage"] == before["api"]["sendMessage"], prefix
            assert answer.get("text"), prefix
            continue
        assert snapshot(h, chat_id) == before, prefix
        assert answer.get("text") in POLITE, (prefix, answer)


async def test_member_presses_every_button_in_a_group_and_nothing_changes(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, more_banks=(OTHER,)) as h:
        setup_admin(h)
        await h.feed(factories.command("/daily 06:00 Europe/Paris", ADMIN, GROUP))
        question = await ask(h, by=ADMIN)
        await press_all_as_member(h, GROUP_ID, question)
        assert db_rows(
            h.db_path, "SELECT active FROM subscriptions WHERE chat_id = ?", (GROUP_ID,)
        ) == [(1,)]


async def test_reader_presses_every_button_in_a_channel_and_nothing_changes(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, more_banks=(OTHER,)) as h:
        h.api.set_chat(CHANNEL_ID, type="channel", title="Quiz channel")
        h.api.set_member_status(CHANNEL_ID, ANN["id"], "member", ANN)
        await h.feed(factories.my_chat_member(CHANNEL, "left", "administrator", ADMIN))
        post = factories.message("/quiz", None, CHANNEL, sender_chat=CHANNEL)
        post["entities"] = [{"type": "bot_command", "offset": 0, "length": 5}]
        await h.feed({"update_id": 10**6, "channel_post": post})
        question = h.api.last_message(CHANNEL_ID)
        assert question is not None
        await press_all_as_member(h, CHANNEL_ID, question)


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
