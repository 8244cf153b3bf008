"""Webhook mode end to end: `quizbot run --webhook` as a process, the fake Bot API as Telegram."""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from bot.bank.models import Bank
from tests import factories, sample_bank
from tests.backend import database_env
from tests.fakes import TOKEN, FakeBotApi, FakeBotApiServer, post_webhook
from tests.ops_support import BotRun, free_port, webhook_set, write_bank

# Starts `quizbot run` as a real process: `pytest -m "not slow"` leaves it out.
pytestmark = pytest.mark.slow

SECRET = "s3cret-Token_for-tests"


def start_bot(
    tmp_path: Path, server: FakeBotApiServer, bank: Bank | None = None
) -> tuple[BotRun, str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram/hook"
    run = BotRun(
        tmp_path,
        ["--webhook", url],
        {
            "BOT_API_URL": server.url,
            "QUIZBOT_DB": database_env(tmp_path / "bot.sqlite3"),
            "QUIZBOT_QUESTIONS": str(write_bank(tmp_path / "banks", bank or sample_bank.bank())),
            "QUIZBOT_WEBHOOK_SECRET": SECRET,
            "QUIZBOT_WEBHOOK_PORT": str(port),
            "QUIZBOT_LOG_LEVEL": "DEBUG",
        },
    )
    return run, url


def get_json(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return int(error.code), json.loads(error.read())


def post_raw(url: str, body: bytes, secret: str) -> int:
    headers = {"Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": secret}
    request = urllib.request.Request(url, body, headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.close()
        return int(error.code)


def first_button(message: dict[str, Any]) -> str:
    return str(message["reply_markup"]["inline_keyboard"][0][0]["callback_data"])


def test_webhook_checks_secret_serves_health_and_stops_on_sigterm(tmp_path: Path) -> None:
    ann = factories.user(601, "Ann")
    chat = factories.private_chat(ann)
    with FakeBotApiServer() as server:
        run, url = start_bot(tmp_path, server)
        try:
            server.wait_for(lambda api: webhook_set(api, run))
            assert server.api.webhook_url == url
            assert server.api.webhook_secret == SECRET

            assert post_webhook(url, factories.command("/start", ann, chat), SECRET) == 200
            # The welcome, then the one-time exam-date offer.
            server.wait_for(lambda api: api.count("sendMessage", chat_id=601) == 2)

            # Forged updates: refused before parsing, never processed.
            assert post_webhook(url, factories.command("/quiz", ann, chat), "wrong") == 403
            assert post_webhook(url, factories.command("/quiz", ann, chat), None) == 403
            assert post_raw(url, b"[1, 2]", SECRET) == 400
            assert post_raw(url, b"not json", SECRET) == 400
            assert post_webhook(url, factories.command("/help", ann, chat), SECRET) == 200
            server.wait_for(lambda api: api.count("sendMessage", chat_id=601) == 3)
            assert "How quizbot works" in (server.api.last_text(601) or "")
            assert server.api.count("sendMessage") == 3  # no question went out for a /quiz

            health_url = url.replace("/telegram/hook", "/healthz")
            status, report = get_json(health_url)
            assert status == 200 and report["ok"] is True, report
            assert report["banks"] == {"demo": 5}
            assert report["updates"]["received"] == 2 and report["updates"]["refused"] == 2
            assert report["database"]["schema_version"] >= "0003_ops"

            code, seconds = run.stop(signal.SIGTERM)
            assert code == 0 and seconds < 5, run.output()
        finally:
            run.close()
    output = run.output()
    assert TOKEN not in output and SECRET not in output
    assert "webhook mode" in output
    status_keys = dict(
        factories.rows(tmp_path / "bot.sqlite3", "SELECT key, value FROM bot_status")
    )
    assert status_keys["mode"] == "webhook"
    assert float(status_keys["stopped_at"]) >= float(status_keys["started_at"])
    assert "last_update_at" in status_keys


def test_sigterm_with_answers_in_flight_loses_none(tmp_path: Path) -> None:
    users = [factories.user(700 + i, f"U{i}") for i in range(6)]
    # Single-answer questions only: the first button of each is an answer, not a toggle.
    single = sample_bank.bank([sample_bank.question(f"q{i}", correct=(i % 4,)) for i in range(4)])
    with FakeBotApiServer() as server:
        run, url = start_bot(tmp_path, server, single)
        try:
            server.wait_for(lambda api: webhook_set(api, run))
            for user in users:
                update = factories.command("/quiz", user, factories.private_chat(user))
                assert post_webhook(url, update, SECRET) == 200
            server.wait_for(lambda api: api.count("sendMessage") == len(users))
            # Telegram is slow to confirm: every answer handler is mid-flight when SIGTERM lands.
            server.api.set_delay("answerCallbackQuery", 0.6)
            for user in users:
                message = server.api.last_message(user["id"])
                assert message is not None
                tap = factories.callback(first_button(message), user, message)
                assert post_webhook(url, tap, SECRET) == 200
            code, seconds = run.stop(signal.SIGTERM)
            assert code == 0, run.output()
            assert seconds > 0.4  # it waited for the slow handlers instead of dropping them
        finally:
            run.close()
    answered = {
        row[0] for row in factories.rows(tmp_path / "bot.sqlite3", "SELECT user_id FROM answers")
    }
    assert answered == {u["id"] for u in users}
    # Every learner also got the verdict: the handlers ran to the end before the exit.
    assert server.api.count("answerCallbackQuery") == len(users)
    assert server.api.count("editMessageText") == len(users)


def test_rejected_token_is_never_printed(tmp_path: Path) -> None:
    # The fake Telegram knows another token, so getMe fails with 401: PTB's InvalidToken
    # message contains the token, and the bot must still not print it.
    other = "999999:" + "Z" * 35
    with FakeBotApiServer(FakeBotApi(), token=other) as server:
        run, _ = start_bot(tmp_path, server)
        try:
            code = run.proc.wait(30)
        finally:
            run.close()
    output = run.output()
    assert code == 1, output
    assert TOKEN not in output and TOKEN.split(":")[1] not in output
    assert "InvalidToken" in output
