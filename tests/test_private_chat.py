"""Private practice through the real Application and a fake Bot API: commands and buttons."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.bank.models import LETTERS
from tests import factories, sample_bank
from tests.botharness import Harness, running_bot

ANN = factories.user(501, "Ann")
ANN_CHAT = factories.private_chat(ANN)


def buttons(message: dict[str, Any]) -> list[tuple[str, str]]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [(b["text"], b["callback_data"]) for row in rows for b in row]


def db_rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    return factories.rows(path, sql)


async def ask(h: Harness) -> dict[str, Any]:
    await h.feed(factories.command("/quiz", ANN, ANN_CHAT))
    message = h.api.last_message(ANN["id"])
    assert message is not None
    return message


def question_of(h: Harness, message: dict[str, Any]) -> Any:
    data = buttons(message)[0][1]
    delivery_id = int(data.split(":")[1])
    row = db_rows(h.db_path, f"SELECT question_id FROM deliveries WHERE id = {delivery_id}")
    return h.services.catalog.bank("demo").questions[row[0][0]]


async def test_start_registers_commands_and_welcomes(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        assert {c["command"] for c in h.api.my_commands({"type": "all_private_chats"})} >= {
            "quiz",
            "topics",
            "stats",
            "help",
        }
        await h.feed(factories.command("/start", ANN, ANN_CHAT))
        sent = [m.get("text", "") for m in h.api.messages_to(ANN["id"])]
        assert any("Welcome to quizbot, Ann" in t for t in sent)
        assert db_rows(h.db_path, "SELECT id, started FROM users") == [(501, 1)]


async def test_deep_link_starts_topic(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await h.feed(factories.command("/start beta", ANN, ANN_CHAT))
        q = question_of(h, h.api.last_message(ANN["id"]) or {})
        assert q.topic == "beta"


async def test_topics_offer_other_banks_and_switch(tmp_path: Path) -> None:
    other = sample_bank.bank([sample_bank.question("o1", "gamma")], bank_id="other")
    async with running_bot(tmp_path, more_banks=(other,)) as h:
        await h.feed(factories.command("/topics", ANN, ANN_CHAT))
        menu = h.api.last_message(ANN["id"]) or {}
        switch = dict(buttons(menu))["📚 Bank other"]
        await h.feed(factories.callback(switch, ANN, menu))
        assert (
            "Now practising: Bank other"
            in h.api.calls_of("answerCallbackQuery")[-1].params["text"]
        )
        menu = h.api.message(ANN["id"], menu["message_id"])
        assert [t for t, _ in buttons(menu)] == ["Gamma", "• All topics •", "📚 Bank demo"]
        assert question_of_bank(h, await ask(h), "other").id == "o1"
        await h.feed(factories.callback("bk:gone", ANN, menu))
        assert "no longer offered" in h.api.calls_of("answerCallbackQuery")[-1].params["text"]


def question_of_bank(h: Harness, message: dict[str, Any], bank_id: str) -> Any:
    delivery_id = int(buttons(message)[0][1].split(":")[1])
    row = db_rows(
        h.db_path, f"SELECT bank_id, question_id FROM deliveries WHERE id = {delivery_id}"
    )
    assert row[0][0] == bank_id
    return h.services.catalog.bank(bank_id).questions[row[0][1]]


async def test_wrong_tap_shows_rationale_of_chosen_and_correct_option(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await h.feed(factories.command("/topics", ANN, ANN_CHAT))
        topic_msg = h.api.last_message(ANN["id"]) or {}
        beta = next(d for t, d in buttons(topic_msg) if t == "Beta")
        await h.feed(factories.callback(beta, ANN, topic_msg))
        message = h.api.last_message(ANN["id"]) or {}
        q = question_of(h, message)
        assert q.kind.value == "single"
        wrong = next(i for i in range(len(q.options)) if not q.options[i].correct)
        right = next(iter(q.correct_indices))
        data = dict((t, d) for t, d in buttons(message))[LETTERS[wrong]]
        await h.feed(factories.callback(data, ANN, message))

        answer = h.api.calls_of("answerCallbackQuery")[-1].params
        assert answer["text"].startswith("❌") and LETTERS[right] in answer["text"]
        edited = h.api.message(ANN["id"], message["message_id"])
        text = edited["text"]
        assert q.options[wrong].rationale in text  # the rationale for the chosen option
        assert q.options[right].rationale in text  # and the correct one's, since it was wrong
        assert q.explanation in text
        assert "Trap text <b>not a tag</b>." in text  # escaped, shown literally
        assert [t for t, _ in buttons(edited)] == [
            "Next question ▶️",
            "All options explained",
            "⚑ Report",
        ]
        assert db_rows(h.db_path, "SELECT correct, chosen FROM answers") == [(0, str(wrong))]


async def test_double_tap_recorded_once(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        message = await ask(h)
        data = buttons(message)[0][1]
        await h.feed(factories.callback(data, ANN, message))
        verdict = h.api.message(ANN["id"], message["message_id"])["text"]
        await h.feed(factories.callback(data, ANN, message))
        last = h.api.calls_of("answerCallbackQuery")[-1].params
        assert "already answered" in last["text"]
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(1,)]
        # The second edit found the verdict in place ("not modified") and changed nothing.
        assert h.api.message(ANN["id"], message["message_id"])["text"] == verdict
        assert h.api.count("sendMessage", ANN["id"]) == 1


async def test_lost_verdict_edit_is_repaired_by_the_next_tap(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        message = await ask(h)
        data = buttons(message)[0][1]
        h.api.fail_next("editMessageText", 502, "Bad Gateway")
        await h.feed(factories.callback(data, ANN, message))  # recorded; the edit is lost
        assert "Explanation" not in h.api.message(ANN["id"], message["message_id"])["text"]
        await h.feed(factories.callback(data, ANN, message))
        assert "Explanation" in h.api.message(ANN["id"], message["message_id"])["text"]
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(1,)]


async def test_forged_and_stale_buttons_get_polite_answers(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        message = await ask(h)
        for data in ("a:999999:0", "a:1:99", "zzz", "a:x:1", "x:424242", "tp:nope"):
            h.api.clear_calls()
            await h.feed(factories.callback(data, ANN, message))
            calls = h.api.calls_of("answerCallbackQuery")
            assert len(calls) == 1, data
            assert calls[0].params.get("text"), data
        # the question leaves the bank: its button is stale now
        h.services.catalog.replace({"demo": sample_bank.bank([sample_bank.question("zz")])})
        h.api.clear_calls()
        await h.feed(factories.callback(buttons(message)[0][1], ANN, message))
        assert "withdrawn" in h.api.calls_of("answerCallbackQuery")[0].params["text"]
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(0,)]


async def test_message_too_old_to_edit_gets_new_message(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        message = await ask(h)
        h.api.mark_uneditable(ANN["id"], message["message_id"])
        before = len(h.api.messages_to(ANN["id"]))
        await h.feed(factories.callback(buttons(message)[0][1], ANN, message))
        after = h.api.messages_to(ANN["id"])
        assert len(after) == before + 1
        assert "Explanation" in after[-1]["text"]
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(1,)]


async def test_message_not_modified_is_ignored(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        message = await ask(h)
        h.api.fail_next(
            "editMessageText",
            400,
            "Bad Request: message is not modified: specified new message "
            "content and reply markup are exactly the same",
        )
        await h.feed(factories.callback(buttons(message)[0][1], ANN, message))
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(1,)]
        assert h.api.count("sendMessage", ANN["id"]) == 1  # no fallback message for that


async def test_multiple_answer_toggle_then_submit(tmp_path: Path) -> None:
    bank = sample_bank.bank([sample_bank.question("m1", correct=(0, 2))])
    async with running_bot(tmp_path, bank) as h:
        message = await ask(h)
        labels = dict(buttons(message))
        assert "Submit ✔️" in labels and "Select two" in message["text"]
        await h.feed(factories.callback(labels["Submit ✔️"], ANN, message))
        assert "Select exactly two" in h.api.calls_of("answerCallbackQuery")[-1].params["text"]
        await h.feed(factories.callback(labels["A"], ANN, message))
        await h.feed(factories.callback(labels["Submit ✔️"], ANN, message))  # one of two: refused
        assert "Select exactly two" in h.api.calls_of("answerCallbackQuery")[-1].params["text"]
        await h.feed(factories.callback(labels["A"], ANN, message))  # untick: nothing selected
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(0,)]
        for letter in "AC":
            current = h.api.message(ANN["id"], message["message_id"])
            await h.feed(factories.callback(labels[letter], ANN, current))
        current = h.api.message(ANN["id"], message["message_id"])
        assert {t for t, _ in buttons(current)} >= {"☑️ A", "☑️ C", "B"}
        await h.feed(factories.callback(labels["Submit ✔️"], ANN, current))
        assert h.api.calls_of("answerCallbackQuery")[-1].params["text"] == "✅ Correct!"
        assert db_rows(h.db_path, "SELECT chosen, correct FROM answers") == [("0,2", 1)]


async def test_next_and_all_options_explained(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        message = await ask(h)
        q = question_of(h, message)
        await h.feed(factories.callback(buttons(message)[0][1], ANN, message))
        edited = h.api.message(ANN["id"], message["message_id"])
        labels = dict(buttons(edited))
        await h.feed(factories.callback(labels["All options explained"], ANN, edited))
        breakdown = h.api.last_text(ANN["id"]) or ""
        for option in q.options:
            assert option.rationale in breakdown
        await h.feed(factories.callback(labels["Next question ▶️"], ANN, edited))
        nxt = h.api.last_message(ANN["id"]) or {}
        assert question_of(h, nxt).id != q.id


async def test_stats_after_answers(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        message = await ask(h)
        q = question_of(h, message)
        right = next(iter(q.correct_indices)) if len(q.correct_indices) == 1 else None
        if right is None:  # a multiple-answer question came first: answer the next one
            message = await ask(h)
            q = question_of(h, message)
            right = next(iter(q.correct_indices))
        await h.feed(factories.callback(buttons(message)[right][1], ANN, message))
        await h.feed(factories.command("/stats", ANN, ANN_CHAT))
        text = h.api.last_words(ANN["id"]) or ""
        assert re.search(r"Answered: 1 · accuracy 100%", text), text
        assert "Streak: 1 day" in text


async def test_unknown_command_and_free_text_get_hints(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await h.feed(factories.command("/frobnicate", ANN, ANN_CHAT))
        assert "don't know that command" in (h.api.last_text(ANN["id"]) or "")
        await h.feed(factories.text_message("what is lora?", ANN, ANN_CHAT))
        assert "Tap a letter" in (h.api.last_text(ANN["id"]) or "")


async def test_long_verdict_is_split_and_every_part_parses(tmp_path: Path) -> None:
    long = "word " * 700
    q = sample_bank.question("long1", correct=(0,))
    q = q.model_copy(update={"explanation": long, "trap": long})
    async with running_bot(tmp_path, sample_bank.bank([q])) as h:
        message = await ask(h)
        await h.feed(factories.callback(buttons(message)[1][1], ANN, message))
        # the fake API rejects over-long or unbalanced HTML, so arriving means each part fits
        later = h.api.messages_to(ANN["id"])
        assert len(later) >= 2
        assert buttons(later[-1])  # the keyboard sits under the last part
