"""/mock in a private chat through the real Application and a fake Bot API."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from PIL import Image

from bot.practice.clock import FakeClock
from bot.telegram.views import mock_texts
from tests import factories, mock_bank
from tests.backend import on_postgres
from tests.botharness import Harness, running_bot

ANN = factories.user(601, "Ann")
ANN_CHAT = factories.private_chat(ANN)

# The id counter of mock_exams back to the start, as a restore of an older backup leaves it.
RESET_EXAM_IDS = (
    "SELECT setval(pg_get_serial_sequence('mock_exams', 'id'), 1, false)"
    if on_postgres()
    else "DELETE FROM sqlite_sequence WHERE name = 'mock_exams'"
)


def buttons(message: dict[str, Any]) -> list[tuple[str, str]]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [(b["text"], b["callback_data"]) for row in rows for b in row]


def button(message: dict[str, Any], label: str) -> str:
    """The callback data of the first button whose text starts with `label`."""
    for text, data in buttons(message):
        if text.startswith(label):
            return data
    raise AssertionError(f"no button {label!r} in {[t for t, _ in buttons(message)]}")


def rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    return factories.rows(path, sql)


def last_answer(h: Harness) -> str:
    return str(h.api.calls_of("answerCallbackQuery")[-1].params.get("text", ""))


async def command(h: Harness, text: str) -> None:
    await h.feed(factories.command(text, ANN, ANN_CHAT))


def exam_message(h: Harness) -> dict[str, Any]:
    """The newest message showing an exam question."""
    for m in reversed(h.api.messages_to(ANN["id"])):
        if "Mock exam</b>" in (
            (m.get("text") and h.api.source_text(ANN["id"], m["message_id"])) or ""
        ):
            return m
    raise AssertionError("no exam message")


async def tap(h: Harness, message: dict[str, Any], data: str) -> dict[str, Any]:
    """Press a button and return the message as it is afterwards."""
    await h.feed(factories.callback(data, ANN, message))
    return h.api.message(ANN["id"], message["message_id"])


def item_of(h: Harness, position: int) -> tuple[tuple[int, ...], frozenset[int]]:
    """(display order, correct file indices) of a question of Ann's latest exam."""
    ((order, correct),) = rows(
        h.db_path,
        "SELECT option_order, correct FROM mock_items WHERE position = "
        f"{position} AND exam_id = (SELECT MAX(id) FROM mock_exams)",
    )
    return tuple(int(x) for x in order.split(",")), frozenset(int(x) for x in correct.split(","))


LETTERS = "ABCDEFGHIJKL"


def right_letters(h: Harness, position: int) -> list[str]:
    order, correct = item_of(h, position)
    return [LETTERS[order.index(i)] for i in sorted(correct)]


def wrong_letter(h: Harness, position: int) -> str:
    order, correct = item_of(h, position)
    return next(LETTERS[d] for d, f in enumerate(order) if f not in correct)


async def test_exam_screen_moves_flags_and_answers_edit_one_message(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await command(h, "/mock")
        screen = exam_message(h)
        assert "Question 1/10 · 20 min left" in screen["text"]
        # Every button fits Telegram's keyboard limits; the grid lists all ten questions.
        assert len(buttons(screen)) <= 100
        assert [t for t, _ in buttons(screen) if re.fullmatch(r"·?\d+.?·?", t)][:3] == [
            "·1·",
            "2",
            "3",
        ]
        wrong = wrong_letter(h, 0)
        h.clock.advance(61)
        screen = await tap(h, screen, button(screen, wrong))
        assert f"Saved: {wrong}" in last_answer(h)
        assert f"☑️ {wrong}." in screen["text"] and "19 min left" in screen["text"]
        assert "Answered 1/10" in screen["text"]
        # Change of mind: the other option replaces it; no verdict is shown during the exam.
        right = right_letters(h, 0)
        for letter in right:
            screen = await tap(h, screen, button(screen, letter))
        assert "Correct" not in screen["text"] and f"☑️ {wrong}." not in screen["text"]
        screen = await tap(h, screen, button(screen, "Next ▶"))
        assert "Question 2/10" in screen["text"]
        screen = await tap(h, screen, button(screen, "🚩 Flag"))
        assert "🚩 this one" in screen["text"] and last_answer(h) == "🚩 Flagged for review"
        assert button(screen, "🚩 Unflag")
        grid = dict(buttons(screen))
        assert "1✓" in grid and "·2🚩·" in grid
        screen = await tap(h, screen, grid["7"])
        assert "Question 7/10" in screen["text"]
        screen = await tap(h, screen, button(screen, "◀ Prev"))
        assert "Question 6/10" in screen["text"]
        # One message all along: the exam never sent a second one.
        assert h.api.count("sendMessage", ANN["id"]) == 1
        stored = rows(h.db_path, "SELECT chosen, flagged FROM mock_items ORDER BY position")
        assert stored[1] == ("", 1) and stored[0][0] != ""


async def test_finish_asks_then_scores_charts_and_reviews(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await command(h, "/mock")
        screen = exam_message(h)
        for letter in right_letters(h, 0):
            screen = await tap(h, screen, button(screen, letter))
        screen = await tap(h, screen, button(screen, "Next ▶"))
        screen = await tap(h, screen, button(screen, wrong_letter(h, 1)))
        screen = await tap(h, screen, button(screen, "🏁 Finish"))
        assert "Finish the exam?" in screen["text"]
        assert "Unanswered: 3, 4, 5, 6, 7, 8, 9, 10" in screen["text"]
        screen = await tap(h, screen, button(screen, "◀ Back"))
        assert "Question 2/10" in screen["text"]
        screen = await tap(h, screen, button(screen, "🏁 Finish"))
        finish_now = button(screen, "🏁 Finish now")
        screen = await tap(h, screen, finish_now)
        assert "submitted" in screen["text"] and "reply_markup" not in screen
        result = [m for m in h.api.messages_to(ANN["id"]) if "Mock exam: 10%" in m.get("text", "")]
        assert result and "not passed (pass mark 70%)" in result[0]["text"]
        text = result[0]["text"]
        assert "1/10 right · time used 0 s of 20 min" in text
        topics = re.findall(r"([✓✗]) (\w): (\d)/(\d) \(\d+%\) · (\d+)%", text)
        assert [(t, n, w) for _, t, _, n, w in topics] == [
            ("A", "5", "50"),
            ("B", "3", "30"),
            ("C", "2", "20"),
        ]
        assert sum(int(r) for _, _, r, _, _ in topics) == 1
        ((photo_message, png),) = h.api.photos_to(ANN["id"])
        assert Image.open(io.BytesIO(png)).size[0] == 1000
        # A double tap on Finish now: politely over, nothing sent twice.
        await h.feed(factories.callback(finish_now, ANN, screen))
        assert "over" in last_answer(h)
        assert len(h.api.photos_to(ANN["id"])) == 1
        assert rows(h.db_path, "SELECT status, correct FROM mock_exams") == [("finished", 1)]
        # Mock answers feed practice statistics: the two answered questions, once.
        assert rows(h.db_path, "SELECT COUNT(*), SUM(correct) FROM answers") == [(2, 1)]
        # Review: nine mistakes, the first is question 2 with the learner's wrong choice.
        await h.feed(
            factories.callback(button(photo_message, "🔎 Review mistakes (9)"), ANN, photo_message)
        )
        review = h.api.last_message(ANN["id"]) or {}
        assert "Mistake 1/9 · question 2 of the exam" in review["text"]
        assert "Your answer: " + wrong_letter(h, 1) in review["text"]
        assert "Explanation" in review["text"] and "Common exam trap" in review["text"]
        review = await tap(h, review, button(review, "Next mistake ▶"))
        assert "Mistake 2/9 · question 3 of the exam · not answered" in review["text"]


async def test_resume_refuses_a_second_exam_and_stale_buttons(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await command(h, "/mock")
        first = exam_message(h)
        first = await tap(h, first, button(first, "Next ▶"))
        await command(h, "/mock short")  # a second exam while one runs: the first resumes
        assert "You have a mock exam running" in (h.api.messages_to(ANN["id"])[-2]["text"])
        again = exam_message(h)
        assert again["message_id"] != first["message_id"]
        assert "Question 2/10" in again["text"]
        assert "continued below" in h.api.message(ANN["id"], first["message_id"])["text"]
        assert rows(h.db_path, "SELECT COUNT(*) FROM mock_exams") == [(1,)]
        # Abandon with /mock stop, after a confirmation.
        await command(h, "/mock stop")
        ask = h.api.last_message(ANN["id"]) or {}
        assert "Stop the running mock exam?" in ask["text"]
        ask = await tap(h, ask, button(ask, "No, keep going"))
        assert "goes on" in ask["text"]
        await command(h, "/mock stop")
        ask = h.api.last_message(ANN["id"]) or {}
        ask = await tap(h, ask, button(ask, "Yes, abandon"))
        assert "abandoned" in ask["text"]
        assert rows(h.db_path, "SELECT status FROM mock_exams") == [("abandoned",)]
        assert "abandoned" in h.api.message(ANN["id"], again["message_id"])["text"]
        # Taps on the abandoned exam's message are over; /mock stop now has nothing to stop.
        await h.feed(factories.callback(button(again, "Next ▶"), ANN, again))
        assert "over" in last_answer(h)
        await command(h, "/mock stop")
        assert "No mock exam is running" in (h.api.last_text(ANN["id"]) or "")
        await command(h, "/mock short")
        assert "Question 1/3 · 6 min left" in exam_message(h)["text"]  # 3/10 of 20 min
        await h.feed(factories.callback("m:1:0:z", ANN, again))
        assert "no longer valid" in last_answer(h)


async def test_select_two_toggles(tmp_path: Path) -> None:
    bank = mock_bank.bank(
        [mock_bank.q(f"m{i}", "a", correct=(0, 2)) for i in range(4)], {"a": 100}, exam=(4, 8)
    )
    async with running_bot(tmp_path, bank) as h:
        await command(h, "/mock")
        screen = exam_message(h)
        assert "Select two" in screen["text"]
        first, second = right_letters(h, 0)
        screen = await tap(h, screen, button(screen, first))
        assert f"☑️ {first}" in dict(buttons(screen)) or button(screen, f"☑️ {first}")
        assert "Answered 0/4" in screen["text"]  # one of two is not an answer yet
        screen = await tap(h, screen, button(screen, second))
        assert "Answered 1/4" in screen["text"]
        screen = await tap(h, screen, button(screen, f"☑️ {first}"))  # untick
        assert "Answered 0/4" in screen["text"]


async def test_too_small_bank_offers_the_shorter_exam(tmp_path: Path) -> None:
    bank = mock_bank.bank([mock_bank.q(f"s{i}", "a") for i in range(5)], {"a": 100}, exam=(10, 20))
    async with running_bot(tmp_path, bank) as h:
        await command(h, "/mock")
        offer = h.api.last_message(ANN["id"]) or {}
        assert "holds 5 questions" in offer["text"]
        await tap(h, offer, button(offer, "Start 5 questions · 10 min"))
        assert "Question 1/5 · 10 min left" in exam_message(h)["text"]


async def test_the_offer_on_a_one_question_bank_counts_one_question(tmp_path: Path) -> None:
    bank = mock_bank.bank([mock_bank.q("s0", "a")], {"a": 100}, exam=(12, 20))
    async with running_bot(tmp_path, bank) as h:
        await command(h, "/mock short")  # a quarter of twelve: three
        offer = h.api.last_message(ANN["id"]) or {}
        assert "holds 1 question: too few for the 3-question mock exam" in offer["text"]
        assert button(offer, "Start 1 question · ")


async def test_deadline_submits_on_tap_and_across_a_restart(tmp_path: Path) -> None:
    bank = mock_bank.three_topics()
    clock = FakeClock(1_800_000_000.0)
    async with running_bot(tmp_path, bank, clock=clock) as h:
        await command(h, "/mock")
        screen = exam_message(h)
        screen = await tap(h, screen, button(screen, right_letters(h, 0)[0]))
        await command(h, "/mock stop")  # leaves a question open: nothing else changes
    clock.advance(20 * 60 + 5)
    async with running_bot(tmp_path, bank, api=h.api, clock=clock) as h2:
        # Submitted at start-up: the message closed, the result and the chart sent.
        assert "Time is up" in h2.api.message(ANN["id"], screen["message_id"])["text"]
        assert "Mock exam: 10%" in "".join(m.get("text", "") for m in h2.api.messages_to(601))
        assert len(h2.api.photos_to(ANN["id"])) == 1
        assert rows(h2.db_path, "SELECT status FROM mock_exams") == [("expired",)]
        # A tap on the expired exam afterwards is politely over.
        await h2.feed(factories.callback(button(screen, "Next ▶"), ANN, screen))
        assert "over" in last_answer(h2)
        # A tap after the deadline in a running bot submits that exam at once.
        await command(h2, "/mock")
        screen = exam_message(h2)
        h2.clock.advance(20 * 60)
        await h2.feed(factories.callback(button(screen, "Next ▶"), ANN, screen))
        assert "Time is up" in last_answer(h2)
        assert len(h2.api.photos_to(ANN["id"])) == 2


async def test_an_old_exams_buttons_change_nothing_after_a_restore_reuses_its_id(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await command(h, "/mock")
        old = exam_message(h)
        (exam_id,) = rows(h.db_path, "SELECT id FROM mock_exams")[0]
        # A restore from a backup taken before this exam: its row and the id counter go back.
        factories.execute(h.db_path, "DELETE FROM mock_exams")
        factories.execute(h.db_path, RESET_EXAM_IDS)
        h.clock.advance(5)
        await command(h, "/mock")
        new = exam_message(h)
        assert new["message_id"] != old["message_id"]
        assert rows(h.db_path, "SELECT id FROM mock_exams") == [(exam_id,)]  # the same id again
        before = rows(h.db_path, "SELECT position, chosen, flagged FROM mock_items")
        await h.feed(factories.callback(button(old, right_letters(h, 0)[0]), ANN, old))
        assert last_answer(h) == mock_texts.CB_MOCK_OTHER_EXAM
        await h.feed(factories.callback(button(old, "🚩 Flag"), ANN, old))
        assert rows(h.db_path, "SELECT position, chosen, flagged FROM mock_items") == before
        # The new exam's own buttons still work.
        screen = await tap(h, new, button(new, "🚩 Flag"))
        assert rows(h.db_path, "SELECT flagged FROM mock_items WHERE position = 0") == [(1,)]
        assert "Question 1/10" in screen["text"]


async def test_a_tick_past_the_number_asked_for_is_refused_with_a_word(tmp_path: Path) -> None:
    pairs = [mock_bank.q(f"a{i:02d}", "a", correct=(0, 2)) for i in range(10)]
    async with running_bot(tmp_path, mock_bank.bank(pairs, {"a": 100})) as h:
        await command(h, "/mock")
        screen = exam_message(h)
        assert "Select two" in screen["text"]
        screen = await tap(h, screen, button(screen, "A"))
        screen = await tap(h, screen, button(screen, "B"))
        assert last_answer(h) == "Saved: A, B"
        screen = await tap(h, screen, button(screen, "C"))
        assert last_answer(h) == "This question asks for 2: untick one first."
        assert [t for t, _ in buttons(screen)][:4] == ["☑️ A", "☑️ B", "C", "D"]
        screen = await tap(h, screen, button(screen, "☑️ B"))
        screen = await tap(h, screen, button(screen, "C"))
        assert last_answer(h) == "Saved: A, C"
        (chosen,) = rows(h.db_path, "SELECT chosen FROM mock_items WHERE position = 0")[0]
        assert len(chosen.split(",")) == 2


async def test_review_waits_while_a_running_exam_asks_the_same_questions(tmp_path: Path) -> None:
    bank = mock_bank.bank(
        [mock_bank.q(f"s{i}", "a") for i in range(10)], {"a": 100}, exam=(10, 20)
    )
    async with running_bot(tmp_path, bank) as h:
        await command(h, "/mock")
        screen = exam_message(h)
        screen = await tap(h, screen, button(screen, "🏁 Finish"))
        await tap(h, screen, button(screen, "🏁 Finish now"))
        ((result, _),) = h.api.photos_to(ANN["id"])
        review = button(result, "🔎 Review mistakes (10)")
        await command(h, "/mock")  # the same ten questions again: their answers stay hidden
        sent = len(h.api.messages_to(ANN["id"]))
        await h.feed(factories.callback(review, ANN, result))
        assert "review this one after it ends" in last_answer(h)
        assert len(h.api.messages_to(ANN["id"])) == sent
        screen = exam_message(h)
        screen = await tap(h, screen, button(screen, "🏁 Finish"))
        await tap(h, screen, button(screen, "🏁 Finish now"))
        await h.feed(factories.callback(review, ANN, result))  # over: the review shows
        assert "Mistake 1/10" in (h.api.last_message(ANN["id"]) or {})["text"]
