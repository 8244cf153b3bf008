"""Commands in the wrong place, a group's /daily, deep links, /stats across exams, and
messages the bot cannot read: every one gets a short, specific reply (or, in groups, silence
where a reply would be noise)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.telegram.outbound.group_budget import MEMBER_SHARE
from tests import factories, sample_bank
from tests.botharness import Harness, running_bot
from tests.groups_support import ADMIN, ANN, GROUP, GROUP_ID, buttons, setup_admin

BOT = "@quizbot_test_bot"
ANN_CHAT = factories.private_chat(ANN)


async def said(h: Harness, text: str, by: dict[str, Any], chat: dict[str, Any]) -> str:
    """Send a command; the text of the one new message it got in that chat ('' if none).

    Commands come a share's slot apart: a member gets only a few replies a minute in a group.
    """
    h.clock.advance(60 / MEMBER_SHARE + 1)
    before = len(h.api.messages_to(chat["id"]))
    await h.feed(factories.command(text, by, chat))
    new = h.api.messages_to(chat["id"])[before:]
    assert len(new) <= 1, new
    return str(new[0].get("text", "")) if new else ""


def not_text(kind: str, chat: dict[str, Any], by: dict[str, Any] = ANN) -> dict[str, Any]:
    """A message without text: a sticker, photo, voice note or file."""
    file = {"file_id": f"{kind}-1", "file_unique_id": f"u-{kind}"}
    content: dict[str, Any] = {
        "sticker": {**file, "width": 512, "height": 512, "is_animated": False,
                    "is_video": False, "type": "regular"},
        "photo": [{**file, "width": 90, "height": 90}],
        "voice": {**file, "duration": 2},
        "document": {**file, "file_name": "notes.pdf"},
        "location": {"latitude": 52.5, "longitude": 13.4},
    }  # fmt: skip
    message = factories.message("", by, chat, **{kind: content[kind]})
    del message["text"]
    return {"update_id": 0, "message": message}


async def test_group_commands_that_work_elsewhere_get_a_short_reply(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        assert "/quiz" in await said(h, f"/start{BOT}", ANN, GROUP)
        stats = await said(h, f"/stats{BOT}", ANN, GROUP)
        assert "private chat" in stats
        assert stats == await said(h, "/stats", ANN, GROUP)  # bare, too
        sent = h.api.source_text(GROUP_ID, h.api.messages_to(GROUP_ID)[-1]["message_id"])
        assert '<a href="https://t.me/quizbot_test_bot?start=stats">' in (sent or "")
        assert "Only the group's admins" in await said(h, f"/topics{BOT}", ANN, GROUP)
        for command in ("admin", "reload", "report", "mock", "reset"):
            reply = await said(h, f"/{command}{BOT}", ADMIN, GROUP)
            assert f"/{command} works in a private chat" in reply
        assert "I don't know that command" in await said(h, f"/foo{BOT}", ANN, GROUP)
        # Possibly another bot's: a bare unknown command or one for another bot is left alone.
        assert await said(h, "/foo", ANN, GROUP) == ""
        assert await said(h, "/foo@other_bot", ANN, GROUP) == ""

        # The stats link opens the private chat on the learner's statistics.
        await h.feed(factories.command("/start stats", ANN, ANN_CHAT))
        assert "You have not answered any question yet" in (h.api.last_text(ANN["id"]) or "")


async def test_group_daily_shows_the_schedule_and_says_what_was_wrong(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        assert "no daily question" in await said(h, f"/daily{BOT}", ANN, GROUP)
        set_reply = await said(h, "/daily 08:00 Europe/Paris", ADMIN, GROUP)
        assert "scheduled at 08:00 (Europe/Paris). The next one comes" in set_reply
        shown = await said(h, "/daily", ANN, GROUP)
        assert "<b>08:00</b> (Europe/Paris), on. Next:" in h.api.source_text(
            GROUP_ID, h.api.messages_to(GROUP_ID)[-1]["message_id"]
        )
        assert "/daily off" in shown
        # The same specific messages as a private chat, each with an example.
        zone = await said(h, "/daily 08:00 Mars/Phobos", ADMIN, GROUP)
        assert "I do not know the timezone Mars/Phobos" in zone and "Europe/Berlin" in zone
        time = await said(h, "/daily 25:00", ADMIN, GROUP)
        assert "I could not read 25:00 as a time" in time and "/daily 07:30" in time
        assert "only the group's admins" in await said(h, "/daily 09:00", ANN, GROUP)
        assert "(Europe/Paris), on" in await said(h, "/daily", ANN, GROUP)  # nothing changed
        await said(h, "/daily off", ADMIN, GROUP)
        assert "is off (it was 08:00, Europe/Paris)" in await said(h, "/daily", ANN, GROUP)


async def test_group_only_commands_in_private_say_where_they_work(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        for command in ("leaderboard", "reveal", "window", "quizpoll"):
            reply = await said(h, f"/{command}", ANN, ANN_CHAT)
            assert f"/{command} works in a group or channel" in reply
        assert "I don't know that command" in await said(h, "/nonsense", ANN, ANN_CHAT)


async def test_non_text_messages_get_a_hint_in_private_and_silence_in_groups(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        for kind in ("sticker", "photo", "voice", "document", "location"):
            before = len(h.api.messages_to(ANN["id"]))
            await h.feed(not_text(kind, ANN_CHAT))
            sent = h.api.messages_to(ANN["id"])[before:]
            assert len(sent) == 1 and "I only read text" in sent[0]["text"], kind
            await h.feed(not_text(kind, GROUP))
        assert h.api.messages_to(GROUP_ID) == []


async def test_deep_links_ignore_case_and_a_bad_one_says_so(tmp_path: Path) -> None:
    other = sample_bank.bank([sample_bank.question("o1", "gamma")], bank_id="other")
    async with running_bot(tmp_path, more_banks=(other,)) as h:
        await h.feed(factories.command("/start BeTa", ANN, ANN_CHAT))
        texts = [m.get("text", "") for m in h.api.messages_to(ANN["id"])]
        assert "Topic set: Beta" in texts[0] and "Stem of b" in texts[1]
        # A topic of another exam switches to it.
        await h.feed(factories.command("/start Gamma", ANN, ANN_CHAT))
        assert "Stem of o1" in (h.api.last_text(ANN["id"]) or "")
        before = len(h.api.messages_to(ANN["id"]))
        await h.feed(factories.command("/start no-such_topic<b>", ANN, ANN_CHAT))
        new = [m["text"] for m in h.api.messages_to(ANN["id"])[before:]]
        assert "could not find the topic no-such_topic<b>" in new[0]
        assert "Welcome to quizbot" in new[1]


async def answer_first_letter(h: Harness) -> None:
    await h.feed(factories.command("/quiz", ANN, ANN_CHAT))
    question = h.api.last_message(ANN["id"]) or {}
    await h.feed(factories.callback(buttons(question)[0][1], ANN, question))


async def test_stats_after_switching_exams_shows_each_exam_and_totals(tmp_path: Path) -> None:
    first = sample_bank.bank([sample_bank.question(f"d{i}") for i in range(3)])
    other = sample_bank.bank([sample_bank.question("o1", "gamma")], bank_id="other")
    async with running_bot(tmp_path, first, more_banks=(other,)) as h:
        await answer_first_letter(h)  # wrong: B is the key
        await h.feed(factories.command("/topics", ANN, ANN_CHAT))
        menu = h.api.last_message(ANN["id"]) or {}
        await h.feed(factories.callback("bk:other", ANN, menu))

        stats = await said(h, "/stats", ANN, ANN_CHAT)
        assert "You have not answered any question yet" not in stats
        assert "No answers yet in Bank other" in stats
        assert "Other exams\n• Bank demo: 0/1 (0%)" in stats
        assert "All exams: 1 answered · accuracy 0%" in stats

        await answer_first_letter(h)  # o1: A is wrong too
        await h.feed(factories.command("/stats", ANN, ANN_CHAT))
        stats = h.api.last_words(ANN["id"]) or ""  # the chart's caption
        assert "Your progress · Bank other" in stats and "Answered: 1" in stats
        assert "• Bank demo: 0/1 (0%)" in stats and "All exams: 2 answered" in stats
