"""Learner edges found by trying the bot as a learner would: a Sure tap whose held pick is
gone, a practice message answered while a mock exam holds its question, /mistakes with a topic
chosen."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from bot.telegram.views import texts
from tests import factories, sample_bank
from tests.botharness import Harness, running_bot
from tests.fakes import FakeBotApi

ANN = factories.user(601, "Ann")
ANN_CHAT = factories.private_chat(ANN)


def buttons(message: dict[str, Any] | None) -> dict[str, str]:
    rows = (message or {}).get("reply_markup", {}).get("inline_keyboard", [])
    return {b["text"]: b["callback_data"] for row in rows for b in row}


async def say(h: Harness, text: str) -> dict[str, Any]:
    await h.feed(factories.command(text, ANN, ANN_CHAT))
    h.clock.advance(2)  # a person's pace: flood control stays out of the way
    return h.api.last_message(ANN["id"]) or {}


async def tap(h: Harness, message: dict[str, Any], data: str) -> dict[str, Any]:
    await h.feed(factories.callback(data, ANN, message))
    h.clock.advance(2)
    return h.api.message(ANN["id"], message["message_id"]) or {}


def answered(h: Harness) -> int:
    return int(factories.rows(h.db_path, "SELECT COUNT(*) FROM answers")[0][0])


def callback_texts(h: Harness) -> list[str]:
    return [str(c.params.get("text", "")) for c in h.api.calls_of("answerCallbackQuery")]


async def test_sure_with_no_pick_held_brings_the_letters_back_not_a_verdict(
    tmp_path: Path,
) -> None:
    bank = sample_bank.bank([sample_bank.question(f"q{i}", correct=(1,)) for i in range(3)])
    async with running_bot(tmp_path, bank) as h:
        await say(h, "/start")
        await say(h, "/confidence on")
        at = dt.datetime.fromtimestamp(h.clock.now() + 120, dt.UTC).strftime("%H:%M")
        await say(h, f"/daily {at} UTC")
        h.clock.advance(180)
        await h.services.push.run_once()  # a daily question: /reset keeps its delivery
        question = h.api.last_message(ANN["id"]) or {}
        held = await tap(h, question, buttons(question)["B"])  # the right answer, held
        sure = buttons(held)["Sure (B)"]
        confirm = await say(h, "/reset")
        await tap(h, confirm, next(d for d in buttons(confirm).values() if d != "rs:-"))
        after = await tap(h, held, sure)
        assert answered(h) == 0
        assert "Not quite" not in after["text"]
        assert callback_texts(h)[-1] == texts.CB_PICK_AGAIN
        assert "B" in buttons(after)  # the letters again


async def test_a_practice_message_does_not_answer_a_question_of_the_running_exam(
    tmp_path: Path,
) -> None:
    bank = sample_bank.bank([sample_bank.question(f"q{i}", correct=(i % 4,)) for i in range(10)])
    async with running_bot(tmp_path, bank) as h:
        practice = await say(h, "/quiz")
        await say(h, "/mock")  # ten questions of a ten-question bank: this one among them
        shown = await tap(h, practice, buttons(practice)["A"])
        assert "The answer is" not in shown["text"] and "Correct" not in shown["text"]
        assert callback_texts(h)[-1] == texts.CB_IN_EXAM
        assert answered(h) == 0


async def test_no_mistakes_in_the_chosen_topic_names_it(tmp_path: Path) -> None:
    bank = sample_bank.bank(
        [sample_bank.question("a1", "alpha", correct=(1,)), sample_bank.question("b1", "beta")]
    )
    async with running_bot(tmp_path, bank) as h:
        menu = await say(h, "/topics")
        question = await tap(h, menu, buttons(menu)["Beta"])
        question = h.api.last_message(ANN["id"]) or {}
        await tap(h, question, buttons(question)["B"])  # wrong: the key is A
        menu = await say(h, "/topics")
        await tap(h, menu, buttons(menu)["Alpha"])
        said = await say(h, "/mistakes")
        assert said["text"] != texts.NO_MISTAKES
        assert "Alpha" in said["text"] and "/topics" in said["text"]


async def test_an_outdated_question_is_sent_again_once_however_many_taps(tmp_path: Path) -> None:
    api = FakeBotApi()
    async with running_bot(tmp_path, sample_bank.bank([sample_bank.question("q1")]), api=api) as h:
        old = await say(h, "/quiz")
    edited = sample_bank.bank([sample_bank.question("q1", correct=(2,), n_options=3)])
    async with running_bot(tmp_path, edited, api=api) as h:  # restarted on the edited bank
        sent = h.api.count("sendMessage", ANN["id"])
        letters = buttons(old)
        for letter in "DDA":
            await tap(h, old, letters[letter])
        assert h.api.count("sendMessage", ANN["id"]) - sent == 1
        assert buttons(h.api.message(ANN["id"], old["message_id"])) == {}  # old keyboard gone
        assert callback_texts(h)[-3:] == [texts.CB_REVISED] * 3
        assert answered(h) == 0


async def test_mock_with_an_argument_it_does_not_know_starts_nothing(tmp_path: Path) -> None:
    bank = sample_bank.bank([sample_bank.question(f"q{i}", correct=(i % 4,)) for i in range(10)])
    async with running_bot(tmp_path, bank) as h:
        for typo in ("/mock 20", "/mock shrt", "/mock short please"):
            said = await say(h, typo)
            assert "I did not understand" in said["text"] and "/mock short" in said["text"]
        assert factories.rows(h.db_path, "SELECT COUNT(*) FROM mock_exams")[0][0] == 0
        await say(h, "/mock short")
        assert factories.rows(h.db_path, "SELECT COUNT(*) FROM mock_exams")[0][0] == 1


async def test_a_long_unreadable_daily_time_gets_one_short_reply(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await say(h, "/daily " + "x" * 4000)
        [reply] = h.api.messages_to(ANN["id"])
        assert "I could not read" in reply["text"] and len(reply["text"]) < 400
