"""The learning engine in a private chat, through the real Application and the fake Bot API:
/exam, /start's offer, /mistakes, the confidence step, shuffled options, restore tokens and
revised questions."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.bank.models import LETTERS, Question
from bot.domain.models import Learner
from bot.learning.memory import DEFAULT_WEIGHTS
from bot.storage import fit_sql
from tests import factories, mock_bank
from tests.botharness import Harness, running_bot
from tests.learning_support import learning_bank

ANN = factories.user(501, "Ann")
ANN_CHAT = factories.private_chat(ANN)


def buttons(message: dict[str, Any]) -> list[tuple[str, str]]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [(b["text"], b["callback_data"]) for row in rows for b in row]


def db_rows(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return factories.rows(path, sql, params)


async def ask(h: Harness, command: str = "/quiz") -> dict[str, Any]:
    await h.feed(factories.command(command, ANN, ANN_CHAT))
    message = h.api.last_message(ANN["id"])
    assert message is not None
    return message


def shown(h: Harness, message: dict[str, Any]) -> tuple[Question, tuple[int, ...]]:
    """The file question behind a message and the order its options were shown in."""
    delivery_id = int(buttons(message)[0][1].split(":")[1])
    ((qid, order),) = db_rows(
        h.db_path, "SELECT question_id, option_order FROM deliveries WHERE id = ?", (delivery_id,)
    )
    question = h.services.catalog.question("learn", qid)
    assert question is not None
    return question, tuple(int(i) for i in order.split(","))


async def single(h: Harness, command: str = "/quiz") -> dict[str, Any]:
    """Ask until a single-answer question comes (the bank has one select-two question)."""
    for _ in range(6):
        message = await ask(h, command)
        if not any(text.startswith("Submit") for text, _ in buttons(message)):
            return message
    raise AssertionError("no single-answer question came")


async def tap(h: Harness, message: dict[str, Any], position: int) -> str:
    h.api.clear_calls()
    await h.feed(factories.callback(buttons(message)[position][1], ANN, message))
    return str(h.api.calls_of("answerCallbackQuery")[-1].params.get("text", ""))


async def test_exam_command_sets_shows_and_clears(tmp_path: Path) -> None:
    async with running_bot(tmp_path, learning_bank()) as h:
        for arg, expected in [
            ("", "No exam date set for Learning <bank>."),  # escaped, shown as typed
            ("2027-03-15", "Exam date set: 2027-03-15 — in "),
            ("", "2027-03-15 — in "),
            ("15.03.2027", "could not read 15.03.2027 as a date"),
            ("2020-01-01", "has already passed"),
            ("2099-01-01", "more than two years away"),
            ("off", "Exam date cleared"),
        ]:
            await h.feed(factories.command(f"/exam {arg}".strip(), ANN, ANN_CHAT))
            sent = h.api.messages_to(ANN["id"])[-1]
            assert expected in sent["text"], (arg, sent["text"])
            if arg not in {"", "off", "2027-03-15"}:
                assert (
                    "for example /exam 20" in sent["text"]
                )  # an example comes with every refusal
        assert db_rows(h.db_path, "SELECT * FROM exam_dates") == []


async def test_start_offers_an_exam_date_once_without_blocking(tmp_path: Path) -> None:
    async with running_bot(tmp_path, learning_bank()) as h:
        await h.feed(factories.command("/start", ANN, ANN_CHAT))
        offer = h.api.last_message(ANN["id"])
        assert offer is not None and "When is your exam?" in offer["text"]
        assert [t for t, _ in buttons(offer)] == [
            "In 2 weeks", "In 1 month", "In 3 months", "No date",
        ]  # fmt: skip
        await ask(h)  # practice works without answering the offer
        await h.feed(factories.callback(buttons(offer)[1][1], ANN, offer))
        ((date,),) = db_rows(h.db_path, "SELECT exam_date FROM exam_dates")
        assert "Exam date set" in h.api.calls_of("answerCallbackQuery")[-1].params["text"]
        h.api.clear_calls()
        await h.feed(factories.command("/start", ANN, ANN_CHAT))
        assert not any("When is your exam" in m["text"] for m in h.api.messages_to(ANN["id"])[-1:])
        assert date


async def test_shuffled_options_are_graded_by_what_was_shown(tmp_path: Path) -> None:
    async with running_bot(tmp_path, learning_bank()) as h:
        for _ in range(4):
            message = await single(h)
            question, order = shown(h, message)
            position = order.index(min(question.correct_indices))
            text = message["text"]
            # The letter in the message names the key's text, whatever the file order.
            key_line = f"{LETTERS[position]}. {question.options[order[position]].text}"
            assert key_line in text.replace("<b>", "").replace("</b>", "")
            assert (await tap(h, message, position)).startswith("✅")
            verdict = h.api.message(ANN["id"], message["message_id"])
            assert verdict["text"].startswith("✅") and "your answer" in verdict["text"]
        chosen = db_rows(h.db_path, "SELECT chosen, correct FROM answers")
        assert all(correct == 1 for _, correct in chosen)
        # Stored in file order: the key's index in the file, not the letter shown.
        assert {c for c, _ in chosen} <= {"1", "2", "3"}


async def test_confidence_flow_asks_sure_or_unsure_then_grades(tmp_path: Path) -> None:
    async with running_bot(tmp_path, learning_bank()) as h:
        await h.feed(factories.command("/confidence on", ANN, ANN_CHAT))
        assert "Confidence on" in (h.api.last_text(ANN["id"]) or "")
        message = await single(h)
        question, order = shown(h, message)
        wrong = next(p for p, f in enumerate(order) if f not in question.correct_indices)
        assert "How sure are you?" in await tap(h, message, wrong)
        edited = h.api.message(ANN["id"], message["message_id"])
        labels = [t for t, _ in buttons(edited)]
        assert labels == [
            f"Sure ({LETTERS[wrong]})",
            f"Unsure ({LETTERS[wrong]})",
            "↩️ Change answer",
        ]
        assert db_rows(h.db_path, "SELECT * FROM answers") == []
        assert (await tap(h, edited, 0)).startswith("❌")
        assert db_rows(h.db_path, "SELECT confidence, correct FROM answers") == [("sure", 0)]
        assert h.api.message(ANN["id"], message["message_id"])["text"].startswith("❌")


async def test_mistakes_until_none_left_then_back_to_practice(tmp_path: Path) -> None:
    async with running_bot(tmp_path, learning_bank()) as h:
        await h.feed(factories.command("/mistakes", ANN, ANN_CHAT))
        empty = h.api.last_message(ANN["id"])
        assert empty is not None and "No mistakes left to review" in empty["text"]
        assert [t for t, _ in buttons(empty)] == ["Back to practice ▶️"]
        message = await single(h)
        question, order = shown(h, message)
        wrong = next(p for p, f in enumerate(order) if f not in question.correct_indices)
        await tap(h, message, wrong)
        again = await ask(h, "/mistakes")
        assert shown(h, again)[0].id == question.id
        again_q, again_order = shown(h, again)
        await tap(h, again, again_order.index(min(again_q.correct_indices)))
        verdict = h.api.message(ANN["id"], again["message_id"])
        await h.feed(factories.callback(buttons(verdict)[0][1], ANN, verdict))  # Next
        done = h.api.last_message(ANN["id"])
        assert done is not None and "No mistakes left to review" in done["text"]
        await h.feed(factories.callback(buttons(done)[0][1], ANN, done))
        assert buttons(h.api.last_message(ANN["id"]) or {})[0][1].startswith(("a:", "t:"))


async def test_button_from_a_restored_copy_is_refused_politely(tmp_path: Path) -> None:
    async with running_bot(tmp_path, learning_bank()) as h:
        message = await single(h)
        data = buttons(message)[0][1]
        _, delivery, token, _ = data.split(":")
        assert len(token) == 4 and len(data.encode()) <= 64
        # The database was restored and the id handed out again with another token.
        factories.execute(
            h.db_path, "UPDATE deliveries SET token = 'zz99' WHERE id = ?", (int(delivery),)
        )
        text = await tap(h, message, 0)
        assert "older copy of the data" in text
        assert db_rows(h.db_path, "SELECT * FROM answers") == []
        assert h.api.message(ANN["id"], message["message_id"])["text"] == message["text"]


async def test_revised_question_is_sent_again_not_graded(tmp_path: Path) -> None:
    async with running_bot(tmp_path, learning_bank()) as h:
        message = await single(h)
        question, _ = shown(h, message)
        delivery = int(buttons(message)[0][1].split(":")[1])
        # Shown before a restart, then edited.
        factories.execute(
            h.db_path, "UPDATE deliveries SET version = 'old' WHERE id = ?", (delivery,)
        )
        assert "revised" in await tap(h, message, 0)
        assert db_rows(h.db_path, "SELECT * FROM answers") == []
        resent = h.api.last_message(ANN["id"])
        assert resent is not None and resent["message_id"] != message["message_id"]
        assert shown(h, resent)[0].id == question.id


async def test_stats_lists_active_misconceptions(tmp_path: Path) -> None:
    async with running_bot(tmp_path, learning_bank()) as h:
        for _ in range(8):
            message = await single(h)
            question, order = shown(h, message)
            tagged = [p for p, f in enumerate(order) if question.options[f].misconception]
            if tagged:
                await tap(h, message, tagged[0])
                break
            await tap(h, message, order.index(min(question.correct_indices)))
        else:
            raise AssertionError("no tagged question came")
        await h.feed(factories.command("/stats", ANN, ANN_CHAT))
        text = h.api.last_words(ANN["id"]) or ""
        assert "Wrong ideas to unlearn" in text
        assert "More data always helps" in text or "Bigger is better" in text


async def test_a_miss_is_not_asked_again_in_the_sitting_and_answers_use_the_banks_fit(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, learning_bank()) as h:
        # The bank's learners have a fit: first memories fade fast on a steep curve.
        fitted = list(DEFAULT_WEIGHTS)
        fitted[0], fitted[20] = 0.05, 0.5
        with factories.blocking(h.db_path) as conn:
            fit_sql.save_params(conn, "learn", fit_sql.BANK_SCOPE, tuple(fitted), 800, 0.0)
        asked: list[tuple[str, str]] = []
        for i in range(4):
            message = await single(h)
            question, order = shown(h, message)
            asked.append((question.id, message["text"]))
            right = {order.index(c) for c in question.correct_indices}
            position = min(right) if i else min(set(range(len(order))) - right)
            await tap(h, message, position)
            h.clock.advance(60)
        # Missed first, then four different questions: the miss comes back when due, not now.
        assert len({q for q, _ in asked}) == 4
        with factories.blocking(h.db_path) as conn:
            rows = conn.execute(
                "SELECT question_id, stability, decay FROM memory_states WHERE bank_id = 'learn'"
            ).fetchall()
        by_id = {r[0]: (r[1], r[2]) for r in rows}
        # Every answer was scheduled under the bank's weights: the miss's first stability is
        # the fitted one, and each state keeps the fitted curve.
        assert by_id[asked[0][0]][0] == pytest.approx(0.05)
        assert {d for _, d in by_id.values()} == {0.5}


async def test_a_learner_with_every_answer_wrong_is_not_told_they_will_pass(
    tmp_path: Path,
) -> None:
    # Each miss was followed by its answer, and the memory model counts a question seen an
    # hour ago as recalled: it told this learner 81% and "over 99%" before.
    async with running_bot(tmp_path, mock_bank.three_topics(per_topic=20)) as h:
        learner = Learner(ANN["id"], "Ann")
        for _ in range(45):
            delivery = await h.services.practice.next_delivery(ANN["id"], learner)
            assert delivery is not None
            question = delivery.question
            wrong = next(
                j for j in range(len(question.options)) if j not in question.correct_indices
            )
            outcome = await h.services.practice.answer(
                delivery.id, learner, ANN["id"], frozenset({wrong})
            )
            assert outcome.correct is False
            h.clock.advance(60)
        h.clock.advance(3600)
        await h.feed(factories.command("/ready", ANN, ANN_CHAT))
        text = h.api.last_text(ANN["id"]) or ""
        found = re.search(r"Predicted exam score: (\d+)%", text)
        assert found is not None, text
        assert int(found.group(1)) < 60 and "Chance of passing at 70%: under 1%" in text
