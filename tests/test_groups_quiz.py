"""Group questions: one question for everyone, per-member answers and alerts, live count,
reveal after the window, by /reveal and by the next /quiz, and the "Why?" deep link."""

from __future__ import annotations

from pathlib import Path

from bot.bank.models import LETTERS, Bank
from bot.telegram.outbound import group_rounds
from tests import factories, sample_bank
from tests.botharness import running_bot
from tests.groups_support import (
    ADMIN,
    ANN,
    BOB,
    CY,
    GROUP,
    GROUP_ID,
    MEMBERS,
    ask,
    buttons,
    db_rows,
    delivery_of,
    fire_count_jobs,
    question_of,
    right_option,
    setup_admin,
    sweep,
    tap,
    wrong_option,
)

# This test is about what a second /quiz does, not about the group's pace rules.
NO_PACE = {"QUIZBOT_GROUP_QUIZ_COOLDOWN_SECONDS": 0, "QUIZBOT_GROUP_MIN_OPEN_SECONDS": 0}

SINGLES = [
    sample_bank.question("s1", correct=(1,)),
    sample_bank.question("s2", correct=(0,)),
    sample_bank.question("s3", correct=(2,), stem="Long " * 30 + "stem?"),
]


def singles() -> Bank:
    return sample_bank.bank(SINGLES)


async def test_three_members_answer_each_for_themselves(tmp_path: Path) -> None:
    async with running_bot(tmp_path, singles()) as h:
        message = await ask(h)
        did = delivery_of(message)
        q = question_of(h, did)
        assert "0 answers so far" in message["text"]
        assert db_rows(h.db_path, "SELECT source, user_id FROM deliveries") == [("group", None)]

        picks = {ANN["id"]: wrong_option(q), BOB["id"]: right_option(q), CY["id"]: wrong_option(q)}
        alerts = []
        for member in MEMBERS:
            h.clock.advance(6)  # past the edit gap: every tap may edit the count at once
            alerts.append(await tap(h, member, message, picks[member["id"]]))
        for alert in alerts:
            assert alert["show_alert"] is True and len(alert["text"]) <= 200
        assert (
            alerts[0]["text"].startswith("❌")
            and q.options[picks[ANN["id"]]].rationale in alerts[0]["text"]
        )
        assert alerts[1]["text"].startswith("✅")

        rows = db_rows(
            h.db_path, "SELECT user_id, chosen, correct, chat_id FROM answers ORDER BY user_id"
        )
        assert rows == [
            (ANN["id"], str(picks[ANN["id"]]), 0, GROUP_ID),
            (BOB["id"], str(picks[BOB["id"]]), 1, GROUP_ID),
            (CY["id"], str(picks[CY["id"]]), 0, GROUP_ID),
        ]
        shown = h.api.message(GROUP_ID, message["message_id"])
        assert "3 answers so far" in shown["text"]
        # The shared message never tells who chose what.
        assert "✅" not in shown["text"] and buttons(shown) == buttons(message)

        # A second tap is not counted again and repeats the member's own verdict.
        again = await tap(h, BOB, message, wrong_option(q))
        assert again["text"].startswith("Already answered") and "✅" in again["text"]
        assert len(db_rows(h.db_path, "SELECT id FROM answers")) == 3


async def test_count_edits_are_throttled_per_group(tmp_path: Path) -> None:
    async with running_bot(tmp_path, singles()) as h:
        message = await ask(h)
        taps = [factories.user(800 + i, f"M{i}") for i in range(40)]
        for i, member in enumerate(taps):
            h.clock.advance(1)  # 40 taps in 40 s
            await tap(h, member, message, i % 3)
            if i % 5 == 4:
                await fire_count_jobs(h)  # the JobQueue wakes the trailing edit meanwhile
        await fire_count_jobs(h)
        assert "40 answers so far" in h.api.message(GROUP_ID, message["message_id"])["text"]
        edits = h.api.count("editMessageText", chat_id=GROUP_ID)
        assert 1 <= edits <= 12  # well under Telegram's 20 a minute, with room for the rest
        assert len(db_rows(h.db_path, "SELECT id FROM answers")) == 40
        # Every tap got its private answer, edits or not.
        assert h.api.count("answerCallbackQuery") == 40


async def test_reveal_after_window_with_shares_and_why_button(tmp_path: Path) -> None:
    async with running_bot(tmp_path, singles()) as h:
        message = await ask(h)
        did = delivery_of(message)
        q = question_of(h, did)
        await tap(h, ANN, message, wrong_option(q))
        await tap(h, BOB, message, right_option(q))
        h.clock.advance(9 * 60)
        assert await sweep(h) == 0  # the window (10 min by default) is still open

        h.clock.advance(61)
        late = await tap(h, CY, message, right_option(q))
        assert "closed" in late["text"]
        assert await sweep(h) == 1
        assert await sweep(h) == 0  # revealed once only

        shown = h.api.message(GROUP_ID, message["message_id"])
        text = shown["text"]
        assert f"The answer is {LETTERS[right_option(q)]}" in text
        assert "50% (1)" in text and q.explanation in text and "Trap text <b>not a tag</b>" in text
        [(label, url)] = buttons(shown)
        assert label.startswith("Why") and url == f"https://t.me/quizbot_test_bot?start=why_{did}"
        assert db_rows(
            h.db_path, "SELECT closed_at IS NOT NULL, revealed_at IS NOT NULL FROM deliveries"
        ) == [(1, 1)]

        # The deep link: Ann gets her own breakdown, Cy (no answer) every option explained.
        ann_chat = factories.private_chat(ANN)
        await h.feed(factories.command(f"/start why_{did}", ANN, ann_chat))
        mine = h.api.last_text(ANN["id"]) or ""
        assert "Not quite" in mine and q.options[wrong_option(q)].rationale in mine
        cy_chat = factories.private_chat(CY)
        await h.feed(factories.command(f"/start why_{did}", CY, cy_chat))
        theirs = h.api.last_text(CY["id"]) or ""
        assert "did not answer" in theirs and all(o.rationale in theirs for o in q.options)


async def test_why_link_refuses_open_question_and_unknown_ids(tmp_path: Path) -> None:
    async with running_bot(tmp_path, singles()) as h:
        did = delivery_of(await ask(h))
        ann_chat = factories.private_chat(ANN)
        await h.feed(factories.command(f"/start why_{did}", ANN, ann_chat))
        assert "still open" in (h.api.last_text(ANN["id"]) or "")
        await h.feed(factories.command("/start why_999", ANN, ann_chat))
        assert "can't find" in (h.api.last_text(ANN["id"]) or "")


async def test_reveal_command_is_for_admins(tmp_path: Path) -> None:
    async with running_bot(tmp_path, singles()) as h:
        setup_admin(h)
        message = await ask(h)
        await h.feed(factories.command("/reveal", BOB, GROUP))
        assert "only the group's admins" in (h.api.last_text(GROUP_ID) or "")
        assert "Closed" not in h.api.message(GROUP_ID, message["message_id"])["text"]

        await h.feed(factories.command("/reveal@quizbot_test_bot", ADMIN, GROUP))
        assert "Closed" in h.api.message(GROUP_ID, message["message_id"])["text"]
        await h.feed(factories.command("/reveal", ADMIN, GROUP))
        assert "No question is open" in (h.api.last_text(GROUP_ID) or "")


async def test_next_quiz_reveals_the_previous_one_and_asks_a_new_question(tmp_path: Path) -> None:
    async with running_bot(tmp_path, singles(), **NO_PACE) as h:
        first = await ask(h)
        await tap(h, ANN, first, 0)
        second = await ask(h, by=BOB)
        assert second["message_id"] != first["message_id"]
        assert "Closed" in h.api.message(GROUP_ID, first["message_id"])["text"]
        third = await ask(h, by=CY)
        asked = [question_of(h, delivery_of(m)).id for m in (first, second, third)]
        assert sorted(asked) == ["s1", "s2", "s3"]  # never asked in this group comes first
        # The old buttons are closed now.
        late = await tap(h, BOB, first, 1)
        assert "closed" in late["text"]


async def test_multiple_answer_question_in_a_group(tmp_path: Path) -> None:
    multi = sample_bank.question("m1", correct=(0, 2))
    async with running_bot(tmp_path, sample_bank.bank([multi])) as h:
        message = await ask(h)
        keys = dict(buttons(message))
        await h.feed(factories.callback(keys["A"], ANN, message))
        assert "Selected: A" in h.api.calls_of("answerCallbackQuery")[-1].params["text"]
        await h.feed(factories.callback(keys["B"], BOB, message))
        await h.feed(factories.callback(keys["D"], BOB, message))
        await h.feed(factories.callback(keys["C"], ANN, message))
        assert "Selected: A, C" in h.api.calls_of("answerCallbackQuery")[-1].params["text"]
        # Selections are per member and never shown on the shared message.
        assert buttons(h.api.message(GROUP_ID, message["message_id"])) == buttons(message)
        h.clock.advance(6)
        await h.feed(factories.callback(keys["Submit ✔️"], ANN, message))
        alert = h.api.calls_of("answerCallbackQuery")[-1].params
        assert alert["show_alert"] is True and alert["text"].startswith("✅")
        await h.feed(factories.callback(keys["Submit ✔️"], BOB, message))
        assert h.api.calls_of("answerCallbackQuery")[-1].params["text"].startswith("❌")
        await h.feed(factories.callback(keys["Submit ✔️"], CY, message))
        assert "Select exactly two" in h.api.calls_of("answerCallbackQuery")[-1].params["text"]
        rows = db_rows(h.db_path, "SELECT user_id, chosen, correct FROM answers ORDER BY user_id")
        assert rows == [(ANN["id"], "0,2", 1), (BOB["id"], "1,3", 0)]


async def test_start_reveals_overdue_windows_and_rearms_open_ones(tmp_path: Path) -> None:
    async with running_bot(tmp_path, singles()) as h:
        first = await ask(h)
        assert h.app.job_queue is not None
        assert h.app.job_queue.get_jobs_by_name(f"group-close:{delivery_of(first)}")
        await h.feed(factories.command("/window 5", ADMIN, GROUP))  # not an admin: refused
        assert "only the group's admins" in (h.api.last_text(GROUP_ID) or "")
        # As after a restart: one window is over, the other still open.
        h.clock.advance(601)
        second_chat = factories.group_chat(-1009999, "Other group")
        second = await ask(h, chat=second_chat)
        for job in h.app.job_queue.jobs():
            job.schedule_removal()
        await group_rounds.on_startup(h.app.bot, h.services, h.app.job_queue)
        assert "Closed" in h.api.message(GROUP_ID, first["message_id"])["text"]
        assert "Closed" not in h.api.message(-1009999, second["message_id"])["text"]
        assert h.app.job_queue.get_jobs_by_name(f"group-close:{delivery_of(second)}")
