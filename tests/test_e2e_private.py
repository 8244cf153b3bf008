"""End to end: `quizbot run` as a process, long polling a fake Bot API on 127.0.0.1."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from bot.bank.loader import load_banks
from bot.bank.models import LETTERS
from bot.config import BUNDLED_QUESTIONS
from tests import factories
from tests.backend import database_env
from tests.botprocess import BotProcess
from tests.fakes import TOKEN, FakeBotApi, FakeBotApiServer

# Starts `quizbot run` as a real process: `pytest -m "not slow"` leaves it out.
pytestmark = pytest.mark.slow

LEA = factories.user(7001, "Léa")
LEA_CHAT = factories.private_chat(LEA)


def keyboard(message: dict[str, Any]) -> dict[str, str]:
    rows = message["reply_markup"]["inline_keyboard"]
    return {b["text"]: b["callback_data"] for row in rows for b in row}


def _shown(db: Path, message: dict[str, Any]) -> tuple[int, str, tuple[int, ...]]:
    """Delivery id, question id and the option order a question message was sent with."""
    delivery_id = int(next(iter(keyboard(message).values())).split(":")[1])
    qid, order = factories.one(
        db, "SELECT question_id, option_order FROM deliveries WHERE id = ?", (delivery_id,)
    )
    return delivery_id, qid, tuple(int(i) for i in order.split(","))


def test_start_quiz_wrong_tap_double_tap_exam_mistakes_confidence(tmp_path: Path) -> None:
    bank = load_banks([BUNDLED_QUESTIONS]).banks["genai-llm"]
    with FakeBotApiServer() as server, BotProcess(server, tmp_path) as bot:
        api = server.api
        server.wait_for(lambda a: a.count("getUpdates") >= 1, timeout=20)
        assert api.count("deleteWebhook") >= 1
        # The menus are set in the background: they may come after the first poll.
        menu = server.wait_for(lambda a: a.my_commands({"type": "all_private_chats"}))
        commands = {c["command"] for c in menu}
        assert {"exam", "mistakes", "confidence"} <= commands

        api.push_update(factories.command("/start", LEA, LEA_CHAT))
        server.wait_for(lambda a: "When is your exam" in (a.last_text(LEA["id"]) or ""))
        assert any("Welcome" in m.get("text", "") for m in api.messages_to(LEA["id"]))
        # The bot runs on the wall clock: a fixed date would one day be in the past.
        exam = (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=100)).isoformat()
        api.push_update(factories.command(f"/exam {exam}", LEA, LEA_CHAT))
        server.wait_for(lambda a: f"Exam date set: {exam}" in (a.last_text(LEA["id"]) or ""))

        seen: set[int] = set()

        def ask_single(command: str = "/quiz") -> tuple[dict[str, Any], Any, tuple[int, ...]]:
            while True:
                api.push_update(factories.command(command, LEA, LEA_CHAT))
                question = server.wait_for(
                    lambda a: (m := _question_message(a)) and m["message_id"] not in seen and m
                )
                seen.add(question["message_id"])
                _, qid, order = _shown(bot.db, question)
                if bank.questions[qid].kind.value == "single":
                    return question, bank.questions[qid], order

        # A wrong tap on shuffled options: the letter shown is what counts.
        question, q, order = ask_single()
        wrong_pos = next(p for p, f in enumerate(order) if not q.options[f].correct)
        buttons = keyboard(question)
        api.push_update(factories.callback(buttons[LETTERS[wrong_pos]], LEA, question))
        server.wait_for(lambda a: a.count("editMessageText") >= 1)
        edited = api.message(LEA["id"], question["message_id"])
        rationale = q.options[order[wrong_pos]].rationale
        assert " ".join(rationale.split()) in " ".join(edited["text"].split())
        assert "Not quite" in edited["text"]
        api.push_update(factories.callback(buttons[LETTERS[wrong_pos]], LEA, question))
        server.wait_for(
            lambda a: any(
                "already answered" in c.params.get("text", "")
                for c in a.calls_of("answerCallbackQuery")
            )
        )

        # /mistakes brings it back; with confidence on, Sure comes before the verdict.
        api.push_update(factories.command("/confidence on", LEA, LEA_CHAT))
        server.wait_for(lambda a: "Confidence on" in (a.last_text(LEA["id"]) or ""))
        again, q2, order2 = ask_single("/mistakes")
        assert q2.id == q.id
        right_pos = order2.index(min(q2.correct_indices))
        edits = api.count("editMessageReplyMarkup")
        api.push_update(factories.callback(keyboard(again)[LETTERS[right_pos]], LEA, again))
        server.wait_for(lambda a: a.count("editMessageReplyMarkup") > edits)
        sure = keyboard(api.message(LEA["id"], again["message_id"]))
        api.push_update(factories.callback(sure[f"Sure ({LETTERS[right_pos]})"], LEA, again))
        server.wait_for(
            lambda a: a.message(LEA["id"], again["message_id"])["text"].startswith("✅")
        )
        next_data = keyboard(api.message(LEA["id"], again["message_id"]))["Next question ▶️"]
        api.push_update(factories.callback(next_data, LEA, again))
        server.wait_for(lambda a: "No mistakes left to review" in (a.last_text(LEA["id"]) or ""))
        assert bot.stop() == 0

    rows = factories.rows(
        bot.db, "SELECT question_id, chosen, correct, confidence FROM answers ORDER BY id"
    )
    memory = factories.rows(bot.db, "SELECT question_id, reps, lapses FROM memory_states")
    # Stored by the file's order, whatever letters were shown.
    assert rows == [
        (q.id, str(order[wrong_pos]), 0, None),
        (q.id, str(min(q.correct_indices)), 1, "sure"),
    ]
    assert memory == [(q.id, 2, 1)]
    log = bot.output()
    assert TOKEN not in log and TOKEN.split(":")[1] not in log
    assert "Traceback" not in log


def _question_message(api: FakeBotApi) -> dict[str, Any] | None:
    message = api.last_message(LEA["id"])
    if (message and "reply_markup" in message and "a:" in str(message["reply_markup"])) or (
        message and "t:" in str(message.get("reply_markup", ""))
    ):
        return message
    return None


def test_missing_or_bad_token_stops_with_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    for token in ("", "not-a-token"):
        result = subprocess.run(
            [sys.executable, "-m", "bot", "run"],
            env={
                "PATH": "/usr/bin:/bin",
                "BOT_TOKEN": token,
                "QUIZBOT_DB": database_env(tmp_path / "x.sqlite3"),
            },
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "BOT_TOKEN" in lines[0], result.stderr
        assert "Traceback" not in result.stderr
        if token:
            assert token not in result.stderr


def test_token_rejected_by_telegram_is_never_printed(tmp_path: Path) -> None:
    other = "654321:" + "Z" * 35  # well formed, but not the token the server knows
    with FakeBotApiServer() as server:
        bot = BotProcess(server, tmp_path, env={"BOT_TOKEN": other})
        bot.start()
        try:
            assert bot.proc is not None
            code = bot.proc.wait(timeout=30)
        finally:
            bot.stop()
    out = bot.output()
    assert code == 1
    assert "InvalidToken" in out or "Unauthorized" in out or "rejected" in out, out
    assert other not in out and other.split(":")[1] not in out
