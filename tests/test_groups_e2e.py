"""End to end in a group: `quizbot run` as a process against the fake Bot API server; the bot
is added to a group, three members answer one question, an admin reveals it, a member follows
the "Why?" link. Checked on the fake API (alerts, edits) and in the SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.bank.loader import load_banks
from bot.bank.models import LETTERS, Kind, Question
from bot.config import BUNDLED_QUESTIONS
from bot.domain.display import decode_order, to_display
from tests import factories
from tests.botprocess import BotProcess
from tests.fakes import TOKEN, FakeBotApi, FakeBotApiServer

# Starts `quizbot run` as a real process: `pytest -m "not slow"` leaves it out.
pytestmark = pytest.mark.slow

GROUP_ID = -1002000000001
GROUP = factories.group_chat(GROUP_ID, "E2E study group")
ADMIN = factories.user(9001, "Olga")
ANN = factories.user(9002, "Ann")
BOB = factories.user(9003, "Bob")
CY = factories.user(9004, "Cy")


def keyboard(message: dict[str, Any]) -> dict[str, str]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return {b["text"]: b.get("callback_data") or b.get("url", "") for row in rows for b in row}


def question_posted(api: FakeBotApi) -> dict[str, Any] | None:
    message = api.last_message(GROUP_ID)
    if message and any(d[:2] in ("a:", "t:") for d in keyboard(message).values()):
        return message
    return None


def alerts(api: FakeBotApi) -> list[dict[str, Any]]:
    return [c.params for c in api.calls_of("answerCallbackQuery") if c.params.get("show_alert")]


def answer(
    api: FakeBotApi, q: Question, message: dict[str, Any], user: dict[str, Any], chosen: set[int]
) -> None:
    """Tap a letter, or toggle the letters and Submit for a multiple-answer question."""
    keys = keyboard(message)
    if q.kind is Kind.SINGLE:
        (option,) = chosen
        api.push_update(factories.callback(keys[LETTERS[option]], user, message))
        return
    for option in sorted(chosen):
        api.push_update(factories.callback(keys[LETTERS[option]], user, message))
    api.push_update(factories.callback(keys["Submit ✔️"], user, message))


def test_group_round_with_three_members(tmp_path: Path) -> None:
    bank = load_banks([BUNDLED_QUESTIONS]).banks["genai-llm"]
    with FakeBotApiServer() as server, BotProcess(server, tmp_path) as bot:
        try:
            api = server.api
            api.set_member_status(GROUP_ID, ADMIN["id"], "administrator", ADMIN)
            server.wait_for(lambda a: a.count("getUpdates") >= 1, timeout=20)
            # The menus are set in the background: they may come after the first poll.
            server.wait_for(lambda a: a.my_commands({"type": "all_group_chats"}))

            api.push_update(factories.my_chat_member(GROUP, "left", "member", ADMIN))
            server.wait_for(lambda a: "/quiz" in (a.last_text(GROUP_ID) or ""))

            api.push_update(factories.command("/quiz@quizbot_test_bot", ADMIN, GROUP))
            message = server.wait_for(question_posted)
            delivery_id = int(next(iter(keyboard(message).values())).split(":")[1])
            qid, stored_order = factories.one(
                bot.db,
                "SELECT question_id, option_order FROM deliveries WHERE id = ?",
                (delivery_id,),
            )
            q = bank.questions[qid]
            # Options are shown shuffled: tap the letters where the right and wrong ones landed.
            order = decode_order(stored_order, len(q.options))
            right = set(to_display(order, q.correct_indices))
            wrong = set(
                to_display(order, {next(i for i, o in enumerate(q.options) if not o.correct)})
            )
            # As many letters as the question asks for: a "select three" question refuses two.
            wrong |= set(sorted(right)[: q.select_count - 1])

            for user, chosen in ((ANN, right), (BOB, wrong), (CY, right)):
                answer(api, q, message, user, chosen)
            got = server.wait_for(lambda a: len(a_ := alerts(a)) >= 3 and a_, timeout=20)
            assert all(len(p["text"]) <= 200 for p in got)
            assert sorted(p["text"][0] for p in got) == ["✅", "✅", "❌"]
            # The live count reaches 3 (at once, or by the trailing edit a few seconds later).
            server.wait_for(
                lambda a: "3 answers so far" in a.message(GROUP_ID, message["message_id"])["text"],
                timeout=20,
            )
            edits = api.count("editMessageText", chat_id=GROUP_ID)
            assert 1 <= edits <= 3

            api.push_update(factories.command("/reveal", BOB, GROUP))  # not an admin
            server.wait_for(lambda a: "only the group's admins" in (a.last_text(GROUP_ID) or ""))
            api.push_update(factories.command("/reveal", ADMIN, GROUP))
            revealed = server.wait_for(
                lambda a: (
                    (m := a.message(GROUP_ID, message["message_id"]))
                    and "Closed" in m["text"]
                    and m
                )
            )
            assert "67% (2)" in revealed["text"] or q.kind is Kind.MULTIPLE
            why = keyboard(revealed)["Why? 💬"]
            assert why == f"https://t.me/quizbot_test_bot?start=why_{delivery_id}"

            bob_chat = factories.private_chat(BOB)
            api.push_update(factories.command(f"/start why_{delivery_id}", BOB, bob_chat))
            text = server.wait_for(lambda a: a.last_text(BOB["id"]))
            assert "Not quite" in text
            assert bot.stop() == 0
        finally:
            bot.stop()

    rows = factories.rows(bot.db, "SELECT user_id, chat_id, correct FROM answers ORDER BY user_id")
    closed = factories.rows(bot.db, "SELECT revealed_at IS NOT NULL FROM deliveries")
    assert rows == [(ANN["id"], GROUP_ID, 1), (BOB["id"], GROUP_ID, 0), (CY["id"], GROUP_ID, 1)]
    assert closed == [(1,)]
    log = bot.output()
    assert TOKEN not in log and "Traceback" not in log
