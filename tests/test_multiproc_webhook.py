"""Webhook mode with two bot processes on one PostgreSQL, the fake Bot API's updates spread
over both (Telegram's retry of an unacknowledged post simulated: the other process gets it):
every answer recorded once, every verdict sent once, and a kill -9 of one process during the
load loses nothing the other cannot finish."""

from __future__ import annotations

import signal
import threading
import time
import urllib.error
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests import factories
from tests.fakes import FakeBotApi, FakeBotApiServer, post_webhook
from tests.multiproc_support import SECRET, answer_button, answers, start, wait
from tests.ops_support import BotRun, free_port, webhook_set

pytestmark = pytest.mark.slow
LEARNERS = 40
ROUNDS = 6  # answers per learner
ALREADY = "You already answered"


class Telegram:
    """Posts updates as Telegram does: to a process chosen by update id; a post not answered
    200 (refused, reset, 5xx) goes again, to the next process."""

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self.retried = 0
        self._lock = threading.Lock()

    def deliver(self, update: dict[str, Any]) -> None:
        first = int(update["update_id"])
        for attempt in range(200):
            url = self.urls[(first + attempt) % len(self.urls)]
            try:
                if post_webhook(url, update, SECRET) == 200:
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            with self._lock:
                self.retried += 1
            time.sleep(0.05)
        raise AssertionError(f"update {first} never acknowledged")


def new_question(api: FakeBotApi, chat_id: int, after: int) -> dict[str, Any] | None:
    message = api.last_message(chat_id)
    if message and message["message_id"] > after and message.get("reply_markup"):
        return message
    return None


def learner(api: FakeBotApi, telegram: Telegram, uid: int) -> list[tuple[int, int]]:
    """ROUNDS times: /quiz, then the first answer of the question; the (chat, message) tapped."""
    user = factories.user(uid, f"L{uid}")
    chat = factories.private_chat(user)
    tapped: list[tuple[int, int]] = []
    last = 0
    for _ in range(ROUNDS):
        telegram.deliver(factories.command("/quiz", user, chat))
        message = wait(lambda n=last: new_question(api, uid, n), 60, f"a question for {uid}")
        last = message["message_id"]
        telegram.deliver(factories.callback(answer_button(message), user, message))
        wait(lambda m=message: verdict_shown(api, m), 60, f"the verdict for {uid}")
        tapped.append((uid, last))
    return tapped


def verdict_shown(api: FakeBotApi, question: dict[str, Any]) -> bool:
    shown = api.message(question["chat"]["id"], question["message_id"])
    return shown is not None and shown.get("text") != question["text"]


def run_load(
    tmp_path: Path, pg_url: str, kill_at: int | None
) -> tuple[FakeBotApi, list[Any], Telegram, str]:
    """Two processes, the load spread over both; with `kill_at`, the first is killed -9 once
    that many answers are recorded."""
    with FakeBotApiServer() as server:
        ports = [free_port(), free_port()]
        urls = [f"http://127.0.0.1:{p}/telegram/hook" for p in ports]
        runs: list[BotRun] = []
        try:
            for name, port, url in zip(("first", "second"), ports, urls, strict=True):
                env = {"QUIZBOT_WEBHOOK_PORT": str(port)}
                runs.append(start(tmp_path, name, server, pg_url, ["--webhook", url], env))
            for run in runs:
                server.wait_for(lambda api, run=run: webhook_set(api, run) and run.alive())
                wait(lambda run=run: "webhook mode" in run.output(), 60, "listening")
            telegram = Telegram(urls)
            with ThreadPoolExecutor(LEARNERS) as pool:
                futures = [
                    pool.submit(learner, server.api, telegram, 9500 + i) for i in range(LEARNERS)
                ]
                if kill_at is not None:
                    wait(lambda: len(answers(pg_url)) >= kill_at, 120, "load under way")
                    runs[0].stop(signal.SIGKILL)
                tapped = [t for f in futures for t in f.result()]
            assert runs[1].alive()
            if kill_at is None:
                assert runs[0].alive()
            time.sleep(3)  # a second handling of anything, were there one, would show now
        finally:
            for run in runs:
                run.close()
    return server.api, tapped, telegram, runs[1].output()


def check(api: FakeBotApi, pg_url: str, tapped: list[tuple[int, int]]) -> None:
    recorded = answers(pg_url)
    # Every tap recorded, once.
    assert len(recorded) == len(set(recorded)) == len(tapped) == LEARNERS * ROUNDS
    assert Counter(uid for uid, _ in recorded) == {9500 + i: ROUNDS for i in range(LEARNERS)}
    # Every answer got its verdict once (a tap handled again after a crash is told so).
    verdicts = [
        c for c in api.calls_of("answerCallbackQuery") if ALREADY not in c.params.get("text", "")
    ]
    assert len(verdicts) == len(tapped)


def test_two_processes_record_every_answer_once(tmp_path: Path, pg_url: str) -> None:
    api, tapped, telegram, _ = run_load(tmp_path, pg_url, kill_at=None)
    check(api, pg_url, tapped)
    assert telegram.retried == 0
    # Nothing handled twice without a crash: not even an "already answered".
    assert api.count("answerCallbackQuery") == len(tapped)


def test_kill_9_of_one_process_under_load_loses_nothing(tmp_path: Path, pg_url: str) -> None:
    api, tapped, telegram, survivor = run_load(tmp_path, pg_url, kill_at=LEARNERS * ROUNDS // 3)
    check(api, pg_url, tapped)
    # Posts to the dead process went to the other; what it had acknowledged and not handled
    # was taken over from the inbox.
    assert telegram.retried > 0
    assert "updates nobody was handling are handled now" in survivor
