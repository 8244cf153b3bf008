"""Repeats and forgeries in a chat: one result per button, answers graded only with the
question's kind, and a group's question pace."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.telegram.views import texts
from tests import factories, sample_bank
from tests.botharness import running_bot
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
    key_of,
    setup_admin,
)

LEARNER = factories.user(901, "Lea")
CHAT = factories.private_chat(LEARNER)
MULTI = sample_bank.question("m1", correct=(0, 2))
SINGLES = [sample_bank.question(f"s{i}") for i in range(6)]


async def test_forged_single_answer_tap_on_a_select_two_question_is_refused(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, sample_bank.bank([MULTI])) as h:
        await h.feed(factories.command("/quiz", LEARNER, CHAT))
        question = h.api.last_message(LEARNER["id"])
        assert question is not None
        # The correct options of a "select two" question, forged as single-answer taps.
        for option in (0, 2):
            await h.feed(factories.callback(f"a:{key_of(question)}:{option}", LEARNER, question))
            assert h.api.calls_of("answerCallbackQuery")[-1].params["text"] == texts.CB_UNKNOWN
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(0,)]
        # In a group too: nothing counts for stats, leaderboard or shares.
        setup_admin(h)
        group_question = await ask(h, by=ADMIN)
        await h.feed(factories.callback(f"a:{key_of(group_question)}:0", ANN, group_question))
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(0,)]
        # The real way still works: toggle two, submit.
        for option in (0, 2):
            await h.feed(factories.callback(f"t:{key_of(question)}:{option}", LEARNER, question))
        await h.feed(factories.callback(f"s:{key_of(question)}", LEARNER, question))
        assert db_rows(h.db_path, "SELECT correct FROM answers") == [(1,)]


async def test_forged_toggle_on_a_single_answer_question_is_refused(tmp_path: Path) -> None:
    async with running_bot(tmp_path, sample_bank.bank(SINGLES[:1])) as h:
        await h.feed(factories.command("/quiz", LEARNER, CHAT))
        question = h.api.last_message(LEARNER["id"])
        assert question is not None
        await h.feed(factories.callback(f"t:{key_of(question)}:1", LEARNER, question))
        await h.feed(factories.callback(f"s:{key_of(question)}", LEARNER, question))
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(0,)]


async def test_next_five_times_gives_one_question_and_explain_three_times_one_message(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, sample_bank.bank(SINGLES)) as h:
        await h.feed(factories.command("/quiz", LEARNER, CHAT))
        question = h.api.last_message(LEARNER["id"])
        assert question is not None
        await h.feed(factories.callback(buttons(question)[0][1], LEARNER, question))
        verdict = h.api.message(LEARNER["id"], question["message_id"])
        by_label = dict(buttons(verdict))
        explain = next(v for k, v in by_label.items() if k.startswith("All options"))
        nxt = next(v for k, v in by_label.items() if k.startswith("Next"))
        before = h.api.count("sendMessage", LEARNER["id"])
        # Three quick taps at once on "All options explained": one breakdown.
        await asyncio.gather(
            *(h.feed(factories.callback(explain, LEARNER, verdict)) for _ in range(3))
        )
        assert h.api.count("sendMessage", LEARNER["id"]) == before + 1
        # Five quick taps on "Next question" (under the verdict and the breakdown): one question.
        await asyncio.gather(
            *(h.feed(factories.callback(nxt, LEARNER, verdict)) for _ in range(5))
        )
        assert h.api.count("sendMessage", LEARNER["id"]) == before + 2
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM deliveries") == [(2,)]
        said = {c.params.get("text") for c in h.api.calls_of("answerCallbackQuery")}
        assert texts.CB_NEXT_USED in said and texts.CB_EXPLAIN_USED in said
        # A forged Next naming someone else's question neither sends nor uses up their button.
        await h.feed(factories.callback("n:999", LEARNER, verdict))
        assert h.api.count("sendMessage", LEARNER["id"]) == before + 2


async def test_group_quiz_keeps_a_minimum_open_time_and_a_cooldown(tmp_path: Path) -> None:
    async with running_bot(
        tmp_path,
        sample_bank.bank(SINGLES),
        QUIZBOT_GROUP_MIN_OPEN_SECONDS=60,
        QUIZBOT_GROUP_QUIZ_COOLDOWN_SECONDS=20,
    ) as h:
        setup_admin(h)
        first = await ask(h, by=ANN)
        # Eight rapid /quiz from members: the open question stays, one polite notice.
        for _ in range(8):
            await h.feed(factories.command("/quiz@quizbot_test_bot", BOB, GROUP))
        assert db_rows(h.db_path, "SELECT COUNT(*), MAX(revealed_at) FROM deliveries") == [
            (1, None)
        ]
        notices = [m for m in h.api.messages_to(GROUP_ID) if "give everyone a moment" in m["text"]]
        assert len(notices) == 1 and "60 s" in notices[0]["text"]
        # After the minimum time a member's /quiz reveals it and asks the next.
        h.clock.advance(61)
        second = await ask(h, by=BOB)
        assert delivery_of(second) != delivery_of(first)
        # An admin may skip the open time, but not the cooldown right after a question...
        h.clock.advance(5)
        await h.feed(factories.command("/quiz@quizbot_test_bot", ADMIN, GROUP))
        assert "can post in 15 s" in (h.api.last_text(GROUP_ID) or "")
        # ...and once it is over, the admin's /quiz closes the young question at once.
        h.clock.advance(16)
        third = await ask(h, by=ADMIN)
        assert delivery_of(third) != delivery_of(second)
        assert db_rows(
            h.db_path, "SELECT COUNT(*) FROM deliveries WHERE revealed_at IS NOT NULL"
        ) == [(2,)]
