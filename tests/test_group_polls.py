"""Quiz polls: a long stem goes in a message right above a poll whose options fit; /quizpoll
says how many of the chat's questions can be polls, once when turned on and when asked."""

from __future__ import annotations

from pathlib import Path

from bot.bank.models import Question
from tests import factories, sample_bank
from tests.botharness import running_bot
from tests.groups_support import ADMIN, BOB, GROUP, GROUP_ID, setup_admin

LONG_STEM = "Which setting explains this behaviour? " + "Context words. " * 30


def long_option(qid: str) -> Question:
    base = sample_bank.question(qid)
    options = [o.model_copy(update={"text": f"{o.text} " + "x" * 100}) for o in base.options]
    return base.model_copy(update={"options": options})


async def test_a_long_stem_goes_above_its_poll(tmp_path: Path) -> None:
    question = sample_bank.question("s1", correct=(2,), stem=LONG_STEM)
    async with running_bot(tmp_path, sample_bank.bank([question])) as h:
        setup_admin(h)
        await h.feed(factories.command("/quizpoll on", ADMIN, GROUP))
        await h.feed(factories.command("/quiz", ADMIN, GROUP))
        [call] = h.api.calls_of("sendPoll")
        assert call.params["question"] == (
            "Which option is right? (The question is in the message above.)"
        )
        assert call.params["correct_option_ids"] == [2]
        *_, above, poll = h.api.messages_to(GROUP_ID)
        assert "poll" in poll and LONG_STEM.strip() in above["text"]
        assert call.params["reply_parameters"]["message_id"] == above["message_id"]


async def test_quizpoll_counts_the_questions_that_can_be_polls(tmp_path: Path) -> None:
    fits = [sample_bank.question("f1"), sample_bank.question("f2", stem=LONG_STEM)]
    bank = sample_bank.bank([*fits, long_option("n1")])
    async with running_bot(tmp_path, bank) as h:
        setup_admin(h)
        await h.feed(factories.command("/quizpoll", BOB, GROUP))
        shown = h.api.last_text(GROUP_ID) or ""
        assert "posted as questions with answer buttons" in shown
        assert "2 of 3 questions of Bank demo can be quiz polls" in shown
        await h.feed(factories.command("/quizpoll on", ADMIN, GROUP))
        told = h.api.last_text(GROUP_ID) or ""
        assert "now posted as Telegram quiz polls" in told
        assert "2 of 3 questions" in told and "The other 1:" in told
        for _ in range(3):
            h.clock.advance(700)  # past the window and the group's pace
            await h.feed(factories.command("/quiz", ADMIN, GROUP))
        assert h.api.count("sendPoll") == 2  # the third went out with buttons, unannounced
        assert (
            sum("can be quiz polls" in m.get("text", "") for m in h.api.messages_to(GROUP_ID)) == 2
        )
