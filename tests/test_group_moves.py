"""A group's question when the place it was asked goes away: a forum topic closed or deleted, a
group upgraded to a supergroup mid-question, a channel post forwarded into its discussion
group, a poll refused under its long stem."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import factories, sample_bank
from tests.botharness import running_bot
from tests.groups_support import ADMIN, ANN, GROUP_ID, db_rows, setup_admin, sweep
from tests.test_group_forum import BOT, FORUM, THREAD, in_topic

NO_PACE = {"QUIZBOT_GROUP_QUIZ_COOLDOWN_SECONDS": 0, "QUIZBOT_GROUP_MIN_OPEN_SECONDS": 0}
BANK = sample_bank.bank([sample_bank.question(f"q{i}", correct=(i % 3,)) for i in range(6)])


async def test_a_quiz_in_a_closed_topic_goes_to_general_and_leaves_no_open_question(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, BANK, **NO_PACE) as h:
        setup_admin(h)
        h.api.fail_next("*", 400, "Bad Request: TOPIC_CLOSED", chat_id=GROUP_ID)
        n = len(h.api.calls)
        await h.feed(in_topic(f"/quiz{BOT}", ADMIN))
        tried = [c.params.get("message_thread_id") for c in h.api.calls[n:]]
        assert tried == [THREAD, None]  # refused in the topic, then posted in General
        assert db_rows(h.db_path, "SELECT count(*), count(message_id) FROM deliveries") == [(1, 1)]
        # Refused for another reason: nothing is left open, asked and never seen.
        h.api.fail_next("sendMessage", 400, "Bad Request: can't parse entities", chat_id=GROUP_ID)
        await h.feed(factories.command(f"/quiz{BOT}", ADMIN, FORUM))
        assert db_rows(h.db_path, "SELECT count(*), count(message_id) FROM deliveries") == [(1, 1)]


async def test_export_in_a_topic_goes_there_and_a_refused_file_is_no_crash(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(tmp_path, BANK, **NO_PACE) as h:
        setup_admin(h)
        await h.feed(in_topic(f"/export{BOT}", ADMIN))
        [sent] = h.api.calls_of("sendDocument")
        assert sent.params.get("message_thread_id") == THREAD
        h.api.fail_next(
            "sendDocument", 400, "Bad Request: not enough rights to send documents to the chat"
        )
        n = len(h.api.calls)
        await h.feed(in_topic(f"/export{BOT}", ADMIN))
        assert [c.method for c in h.api.calls[n:]].count("sendDocument") == 1
        assert "unhandled" not in caplog.text


async def test_an_open_question_of_an_upgraded_group_is_closed_not_revealed_over_another_message(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, BANK, **NO_PACE) as h:
        old = factories.group_chat(-5001, "Old group", type="group")
        new_id = -1005001
        await h.feed(factories.command("/quiz", ANN, old))
        h.api.migrate(-5001, new_id)
        await h.feed(factories.migrate_from_chat(new_id, -5001))
        new = factories.group_chat(new_id, "Old group")
        await h.feed(factories.command("/leaderboard", ANN, new))
        board = h.api.last_message(new_id)
        assert board is not None
        h.clock.advance(3600)
        await sweep(h)
        # The supergroup's own message (same id as the old question) is left as it was.
        assert h.api.message(new_id, board["message_id"])["text"] == board["text"]
        assert h.api.calls_of("editMessageText") == []


async def test_a_channel_post_forwarded_into_its_discussion_group_is_not_a_command_there(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, BANK, **NO_PACE) as h:
        setup_admin(h)
        channel = factories.channel(-1007777, "Linked channel")
        forwarded = factories.command(
            "/quiz", ANN, FORUM, sender_chat=channel, is_automatic_forward=True
        )
        n = len(h.api.calls)
        await h.feed(forwarded)
        assert h.api.calls[n:] == []
        assert db_rows(h.db_path, "SELECT count(*) FROM deliveries") == [(0,)]


async def test_a_long_stem_is_taken_back_when_its_poll_is_refused(tmp_path: Path) -> None:
    long = sample_bank.question("long", stem="A stem well over a poll's limit. " * 12)
    async with running_bot(tmp_path, sample_bank.bank([long]), **NO_PACE) as h:
        setup_admin(h)
        await h.feed(factories.command(f"/quizpoll{BOT} on", ADMIN, FORUM))
        h.api.rate_limit(retry_after=5, times=1, method="sendPoll", chat_id=GROUP_ID)
        await h.feed(factories.command(f"/quiz{BOT}", ADMIN, FORUM))
        [stem] = [
            c for c in h.api.calls_of("sendMessage") if "A stem well over" in c.params["text"]
        ]
        deleted = h.api.calls_of("deleteMessage")
        assert [c.params["chat_id"] for c in deleted] == [GROUP_ID]
        assert db_rows(h.db_path, "SELECT count(*) FROM deliveries") == [(0,)]
        assert stem is not None


async def test_a_long_reveal_continues_in_the_questions_topic(tmp_path: Path) -> None:
    """The reveal's first part replaces the question; the rest, sent anew, replies to it, which
    keeps it in the question's forum topic."""
    long = sample_bank.question("long", trap="A trap worth a long paragraph. " * 160)
    async with running_bot(tmp_path, sample_bank.bank([long]), **NO_PACE) as h:
        setup_admin(h)
        await h.feed(in_topic(f"/quiz{BOT}", ADMIN))
        question = h.api.last_message(GROUP_ID)
        assert question is not None
        n = len(h.api.calls)
        h.clock.advance(3600)
        assert await sweep(h) == 1
        rest = [c for c in h.api.calls[n:] if c.method == "sendMessage"]
        replied = rest[0].params.get("reply_parameters", {}).get("message_id") if rest else None
        assert replied == question["message_id"]
