"""End to end: a learner reports a question through `quizbot run` as a process, long polling a
fake Bot API on 127.0.0.1, and `quizbot report` lists the report for the authors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.telegram.views import texts
from tests import factories, sample_bank
from tests.backend import database_env
from tests.fakes import TOKEN, FakeBotApi, FakeBotApiServer
from tests.ops_support import REPO, BotRun, write_bank

# Starts `quizbot run` as a real process: `pytest -m "not slow"` leaves it out.
pytestmark = pytest.mark.slow

LEA = factories.user(7301, "Léa")
LEA_CHAT = factories.private_chat(LEA)
COMMENT = "B is right, but A is too — the stem says “which”"
# A cold start of the bot (imports, migrations, first poll) on a loaded 2-core machine.
START_S = 60.0
STEP_S = 20.0


def keyboard(message: dict[str, Any]) -> dict[str, str]:
    """The inline buttons of a message the bot sent: text → callback data."""
    markup = message.get("reply_markup") or {}
    return {
        b["text"]: b["callback_data"] for row in markup.get("inline_keyboard", []) for b in row
    }


def newest(api: FakeBotApi) -> dict[str, Any]:
    """Lea's newest message from the bot, or an empty dict."""
    return api.last_message(LEA["id"]) or {}


def polite_answers(api: FakeBotApi) -> int:
    """How many button presses were answered with "reported already"."""
    return sum(
        1
        for c in api.calls_of("answerCallbackQuery")
        if c.params.get("text") == texts.CB_REPORT_ALREADY
    )


def quizbot_report(db: Path, questions: Path, fmt: str) -> str:
    """`quizbot report` as its own process, on the database the bot wrote; its stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))}
    args = ["report", "--format", fmt, "--db", database_env(db), "--questions", str(questions)]
    result = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=db.parent,  # not the repository: a developer's .env must not leak in
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_report_with_its_comment_reaches_quizbot_report_and_counts_once(
    tmp_path: Path,
) -> None:
    # One unshuffled question whose key is B: the letters shown are the file's.
    root = write_bank(tmp_path / "banks", sample_bank.bank([sample_bank.question("k1")]))
    db = tmp_path / "bot.sqlite3"
    with FakeBotApiServer() as server:
        api = server.api
        env = {
            "BOT_API_URL": server.url,
            "QUIZBOT_DB": database_env(db),
            "QUIZBOT_QUESTIONS": str(root),
        }
        run = BotRun(tmp_path, [], env)
        try:
            server.wait_for(lambda a: run.alive() and a.count("getUpdates") > 0, timeout=START_S)

            def shown(find: Callable[[FakeBotApi], dict[str, Any] | None]) -> dict[str, Any]:
                """The message `find` picks once the bot has sent it (the bot still running)."""

                def sent(a: FakeBotApi) -> dict[str, Any] | None:
                    run.alive()  # raises with the bot's output if it died
                    return find(a)

                found = server.wait_for(sent, timeout=STEP_S)
                assert found is not None
                return found

            api.push_update(factories.command("/quiz", LEA, LEA_CHAT))
            question = shown(lambda a: newest(a) if "A" in keyboard(newest(a)) else None)
            api.push_update(factories.callback(keyboard(question)["A"], LEA, question))

            def verdict_of(a: FakeBotApi) -> dict[str, Any] | None:
                message = a.message(LEA["id"], question["message_id"])
                return message if texts.REPORT_BUTTON in keyboard(message) else None

            verdict = shown(verdict_of)
            assert "Not quite" in verdict["text"]
            report = keyboard(verdict)[texts.REPORT_BUTTON]

            api.push_update(factories.callback(report, LEA, verdict))
            ask = shown(
                lambda a: newest(a) if texts.REPORT_WHY in newest(a).get("text", "") else None
            )
            reasons = keyboard(ask)
            assert list(reasons) == list(texts.REPORT_REASONS.values())
            api.push_update(factories.callback(reasons["Wrong answer key"], LEA, ask))
            prompt = shown(
                lambda a: newest(a) if "one-line comment" in newest(a).get("text", "") else None
            )
            # ForceReply acts on the client and is not echoed back: the call says it was asked.
            (asked,) = [c for c in api.calls_of("sendMessage") if "force_reply" in str(c.params)]
            markup = asked.params["reply_markup"]
            markup = json.loads(markup) if isinstance(markup, str) else markup
            assert markup["force_reply"] is True
            filed = api.message(LEA["id"], ask["message_id"])["text"]
            assert filed == "⚑ Reported: Wrong answer key. Thank you!"

            api.push_update(
                factories.text_message(COMMENT, LEA, LEA_CHAT, reply_to_message=prompt)
            )
            server.wait_for(
                lambda a: run.alive() and a.last_text(LEA["id"]) == texts.REPORT_COMMENT_SAVED,
                timeout=STEP_S,
            )

            # The same verdict's Report pressed again, then another reason on the old question:
            # each is answered kindly, and neither sends a message or files a report.
            messages = len(api.messages_to(LEA["id"]))
            assert polite_answers(api) == 0
            api.push_update(factories.callback(report, LEA, verdict))
            server.wait_for(lambda a: run.alive() and polite_answers(a) == 1, timeout=STEP_S)
            api.push_update(factories.callback(reasons["Other"], LEA, ask))
            server.wait_for(lambda a: run.alive() and polite_answers(a) == 2, timeout=STEP_S)
            assert len(api.messages_to(LEA["id"])) == messages

            code, _ = run.stop()
            assert code == 0, run.output()
        finally:
            run.close()

    stored = factories.rows(
        db, "SELECT user_id, bank_id, question_id, reason, comment FROM question_reports"
    )
    assert stored == [(LEA["id"], "demo", "k1", "key", COMMENT)]
    # The report keeps the delivery it was made under, and so the option order shown.
    delivered = factories.rows(db, "SELECT id, option_order FROM deliveries")
    assert factories.rows(db, "SELECT delivery_id, option_order FROM question_reports") == (
        delivered
    )

    listing = json.loads(quizbot_report(db, root, "json"))
    assert listing["summary"]["reported"] == 1
    assert listing["learner_reports"] == [
        {
            "question_id": "k1",
            "learners": 1,
            "reasons": {"key": 1},
            "comments": [COMMENT],
            "review": None,  # one learner, and too few answers for a mis-key flag
        }
    ]
    text = quizbot_report(db, root, "text")
    (line,) = [li for li in text.splitlines() if li.startswith("  k1: ")]
    assert "1 learner" in line and line.endswith(", wrong answer key")
    assert f"    “{COMMENT}”\n" in text

    log = run.output()
    assert "Traceback" not in log
    assert TOKEN not in log and TOKEN.split(":")[1] not in log
