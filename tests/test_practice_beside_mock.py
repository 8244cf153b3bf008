"""While a mock exam runs, /quiz and /mistakes offer the exam or practice outside it, and
practice never asks (and answers) a question of the running exam."""

from __future__ import annotations

from pathlib import Path

from tests import factories, mock_bank
from tests.botharness import Harness, running_bot
from tests.test_mock_chat import ANN, ANN_CHAT, button, buttons, command, exam_message, rows


def exam_questions(h: Harness) -> set[str]:
    return {r[0] for r in rows(h.db_path, "SELECT question_id FROM mock_items")}


def practice_questions(h: Harness) -> list[str]:
    sql = "SELECT question_id FROM deliveries WHERE source != 'mock' ORDER BY id"
    return [r[0] for r in rows(h.db_path, sql)]


async def press(h: Harness, message: dict[str, object], label: str) -> None:
    await h.feed(factories.callback(button(message, label), ANN, message))  # type: ignore[arg-type]


async def answer(h: Harness, question: dict[str, object]) -> None:
    """Tap A (a "select two" question: A, B and Submit)."""
    labels = [t for t, _ in buttons(question)]  # type: ignore[arg-type]
    for label in ("A", "B", "Submit ✔️") if "Submit ✔️" in labels else ("A",):
        await press(h, h.api.message(ANN["id"], question["message_id"]), label)  # type: ignore[arg-type]


async def test_quiz_beside_a_mock_offers_the_exam_or_questions_outside_it(tmp_path: Path) -> None:
    # 30 questions, 10 in the exam: practice outside it has 20 to choose from.
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await command(h, "/mock")
        in_exam = exam_questions(h)
        assert len(in_exam) == 10
        for practice in ("/quiz", "/mistakes"):
            await command(h, practice)
            offer = h.api.last_message(ANN["id"]) or {}
            assert "mock exam is running" in offer["text"] and "left" in offer["text"]
            assert [t for t, _ in buttons(offer)] == [
                "↩️ Back to the exam", "⏸ Pause the exam", "▶️ Practise outside the exam",
            ]  # fmt: skip
        assert practice_questions(h) == []  # nothing asked yet
        await press(h, offer, "↩️ Back to the exam")
        assert "Mock exam" in (h.api.last_text(ANN["id"]) or "")
        assert exam_message(h)["message_id"] > offer["message_id"]  # the exam, shown below
        await command(h, "/quiz")
        offer = h.api.last_message(ANN["id"]) or {}
        await press(h, offer, "▶️ Practise outside the exam")
        for _ in range(25):
            question = h.api.last_message(ANN["id"]) or {}
            await answer(h, question)
            verdict = h.api.message(ANN["id"], question["message_id"])
            await press(h, verdict, "Next question ▶️")
            h.clock.advance(20)  # a learner's pace, well inside the flood limit
        asked = practice_questions(h)
        assert len(asked) == 26 and not in_exam & set(asked)


async def test_without_a_running_mock_quiz_asks_at_once(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await command(h, "/mock")
        await command(h, "/mock stop")
        ask = h.api.last_message(ANN["id"]) or {}
        await press(h, ask, "Yes, abandon it")
        await h.feed(factories.command("/quiz", ANN, ANN_CHAT))
        assert len(practice_questions(h)) == 1
        assert "mock exam is running" not in (h.api.last_text(ANN["id"]) or "")
