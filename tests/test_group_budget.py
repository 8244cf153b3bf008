"""A group's 20 messages a minute: one member's commands cannot spend them, an admin's /quiz
is posted, and a question that meets flood control is posted later, never left unseen."""

from __future__ import annotations

from pathlib import Path

from bot.practice.clock import FakeClock
from bot.telegram.outbound.group_budget import MEMBER_SHARE, RESERVE, GroupBudget
from tests import factories
from tests.botharness import Harness, running_bot
from tests.fakes import FakeBotApi
from tests.groups_support import ADMIN, ANN, BOB, GROUP, GROUP_ID, buttons, db_rows, setup_admin


def unseen_deliveries(h: Harness) -> list[tuple[int]]:
    """The group's deliveries with no message: questions nobody can see or close."""
    return db_rows(
        h.db_path,
        "SELECT id FROM deliveries WHERE chat_id = ? AND message_id IS NULL",
        (GROUP_ID,),
    )


def questions_in_group(h: Harness) -> int:
    return sum(1 for m in h.api.messages_to(GROUP_ID) if buttons(m))


async def test_one_member_flooding_commands_leaves_room_for_an_admins_quiz(
    tmp_path: Path,
) -> None:
    clock = FakeClock(1_800_000_000.0)
    api = FakeBotApi(clock=clock.now)
    async with running_bot(tmp_path, api=api, clock=clock) as h:
        setup_admin(h)
        await h.feed(factories.command("/start", ANN, factories.private_chat(ANN)))
        private_before = len(h.api.messages_to(ANN["id"]))
        api.limit_groups(20)
        for _ in range(35):  # one command a second: inside Ann's own flood allowance
            h.clock.advance(1)
            await h.feed(factories.command("/stats@quizbot_test_bot", ANN, GROUP))
            await h.feed(factories.command("/help@quizbot_test_bot", BOB, GROUP))
        in_group = len(h.api.messages_to(GROUP_ID))
        await h.feed(factories.command("/quiz", ADMIN, GROUP))

        assert questions_in_group(h) == 1
        assert unseen_deliveries(h) == []
        assert h.api.count("sendMessage", chat_id=GROUP_ID) == in_group + 1  # no 429 met
        assert in_group <= 2 * MEMBER_SHARE  # each member's share of the minute
        # Ann started the bot: her answers came privately; Bob's over his share were dropped.
        assert len(h.api.messages_to(ANN["id"])) - private_before == 35 - MEMBER_SHARE
        assert h.api.messages_to(BOB["id"]) == []


async def test_an_admins_reply_goes_in_the_group_past_the_members_share(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        for _ in range(MEMBER_SHARE + 2):
            h.clock.advance(1)
            await h.feed(factories.command("/leaderboard", ADMIN, GROUP))
        assert len(h.api.messages_to(GROUP_ID)) == MEMBER_SHARE + 2


async def test_a_question_that_meets_flood_control_is_posted_again(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        h.api.rate_limit(retry_after=30, times=1, method="sendMessage", chat_id=GROUP_ID)
        await h.feed(factories.command("/quiz", ADMIN, GROUP))

        assert questions_in_group(h) == 0
        assert unseen_deliveries(h) == []
        assert h.app.job_queue is not None
        retries = h.app.job_queue.get_jobs_by_name(f"group-retry:{GROUP_ID}")
        assert len(retries) == 1
        retries[0].schedule_removal()
        await retries[0].run(h.app)

        assert questions_in_group(h) == 1
        assert unseen_deliveries(h) == []
        assert len(db_rows(h.db_path, "SELECT id FROM deliveries")) == 1


def test_budget_keeps_a_reserve_and_forgives_a_clock_set_back() -> None:
    budget = GroupBudget(per_minute=8, share=3)  # RESERVE of them kept for questions
    members = [budget.allow_member(-1, user, 100.0) for user in range(10)]
    assert members.count(True) == 8 - RESERVE
    for _ in range(RESERVE):
        budget.note(-1, 100.0)  # questions and admins are never refused
    assert not budget.allow_member(-1, 99, 100.0)
    assert budget.allow_member(-1, 99, 50.0)  # clock set back: the future sends are forgotten
    assert budget.allow_member(-1, 99, 161.0)
