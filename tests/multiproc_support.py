"""Several `quizbot run` processes on one PostgreSQL database, for the multi-process tests."""

from __future__ import annotations

import os
import signal
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.bank.models import Bank
from bot.storage import learning_sql as lsql
from bot.storage import memory_backfill
from tests import factories, sample_bank
from tests.fakes import FakeBotApi, FakeBotApiServer, post_webhook
from tests.ops_support import BotRun, free_port, webhook_set, write_bank

SECRET = "multi-Process_secret"
# Single-answer questions only: the first button of each is an answer, not a toggle.
SINGLE = sample_bank.bank([sample_bank.question(f"q{i}", correct=(i % 4,)) for i in range(6)])


def start(
    tmp_path: Path,
    name: str,
    server: FakeBotApiServer,
    db: str,
    args: list[str] | None = None,
    env: dict[str, str] | None = None,
    bank: Bank | None = SINGLE,
) -> BotRun:
    """One bot process with its own folder (log) on the shared database `db`; `bank` None:
    the bundled banks."""
    folder = tmp_path / name
    folder.mkdir()
    banks = {} if bank is None else {"QUIZBOT_QUESTIONS": str(write_bank(folder / "banks", bank))}
    return BotRun(
        folder,
        args or [],
        {
            "BOT_API_URL": server.url,
            "QUIZBOT_DB": db,
            **banks,
            "QUIZBOT_WEBHOOK_SECRET": SECRET,
            "QUIZBOT_LOG_LEVEL": "DEBUG",
            **(env or {}),
        },
    )


def lease_pid(db: str, role: str = "poller") -> int | None:
    """The pid of the process holding a role lease, or None."""
    row = factories.one(db, "SELECT owner FROM leases WHERE name = ?", (role,))
    return int(str(row[0]).split(":")[1]) if row else None


def wait(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll until truthy; AssertionError naming `what` on timeout."""
    deadline = time.monotonic() + timeout
    while not (result := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)
    return result


def answer_button(message: dict[str, Any]) -> str:
    """The first answer button of a question message."""
    return str(message["reply_markup"]["inline_keyboard"][0][0]["callback_data"])


def answers(db: str) -> list[tuple[int, int]]:
    """(user_id, delivery_id) of every recorded answer."""
    return [
        (int(u), int(d)) for u, d in factories.rows(db, "SELECT user_id, delivery_id FROM answers")
    ]


def memory_matches_a_replay(db: str) -> int:
    """Assert that the memory states the processes wrote, answer by answer and side by side,
    are those one process gets replaying the recorded answers in order; returns how many."""
    stored = {
        (int(row[0]), str(row[1]), str(row[2])): lsql.state_of(tuple(row[3:]))
        for row in factories.rows(
            db,
            f"SELECT user_id, bank_id, question_id, {', '.join(lsql.MEMORY_COLUMNS)}"
            " FROM memory_states",
        )
    }
    with factories.blocking(db) as conn:
        replayed = {
            (user_id, bank_id, qid): state
            for user_id, bank_id, states in memory_backfill.replayed(conn)
            for qid, state in states.items()
        }
    assert stored.keys() == replayed.keys()
    for key, state in stored.items():
        assert state.to_row() == replayed[key].to_row(), key
    return len(stored)


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


def learn(api: FakeBotApi, telegram: Telegram, uid: int, rounds: int) -> list[tuple[int, int]]:
    """`rounds` times: /quiz, then the first answer of the question; the (chat, message)
    tapped."""
    user = factories.user(uid, f"L{uid}")
    chat = factories.private_chat(user)
    tapped: list[tuple[int, int]] = []
    last = 0
    for _ in range(rounds):
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


def healthy(webhook_url: str) -> bool:
    """Whether the bot behind a webhook URL answers /healthz with 200."""
    health = webhook_url.rsplit("/telegram/", 1)[0] + "/healthz"
    try:
        with urllib.request.urlopen(health, timeout=2) as response:
            return int(response.status) == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def cpu_seconds(pid: int) -> float:
    """User + system CPU a running process used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Load:
    """What a load run left: the fake Telegram, the taps, the retries, the processes' logs,
    and the seconds and bot CPU seconds the answering took."""

    api: FakeBotApi
    tapped: list[tuple[int, int]]
    telegram: Telegram
    outputs: list[str]
    seconds: float
    cpu_s: float


def webhook_load(
    tmp_path: Path,
    db: str,
    *,
    processes: int,
    learners: int,
    rounds: int,
    kill_at: int | None = None,
    env: dict[str, str] | None = None,
) -> Load:
    """`processes` webhook bots on `db`, `learners` answering `rounds` times each, the posts
    spread over the bots; with `kill_at`, the first is killed -9 once that many answers are
    recorded."""
    with FakeBotApiServer() as server:
        ports = [free_port() for _ in range(processes)]
        urls = [f"http://127.0.0.1:{p}/telegram/hook" for p in ports]
        runs: list[BotRun] = []
        try:
            for n, (port, url) in enumerate(zip(ports, urls, strict=True)):
                # The simulated learners tap within milliseconds of each question, several
                # times a second; once a process dies its part of each learner's flood budget
                # reaches the survivor only at its next sweep, and meanwhile every update goes
                # to the survivor. A person never taps that fast: the flood gate stays in the
                # path (its hand-over is tested on its own) but out of this load's way.
                extra = {
                    "QUIZBOT_WEBHOOK_PORT": str(port),
                    "QUIZBOT_FLOOD_BURST": str(4 * rounds * processes),
                    **(env or {}),
                }
                runs.append(start(tmp_path, f"bot{n}", server, db, ["--webhook", url], extra))
            for run, url in zip(runs, urls, strict=True):
                server.wait_for(lambda api, run=run: webhook_set(api, run) and run.alive())
                wait(lambda run=run, url=url: run.alive() and healthy(url), 60, "listening")
            telegram = Telegram(urls)
            cpu_before = sum(cpu_seconds(r.proc.pid) for r in runs)
            started = time.monotonic()
            with ThreadPoolExecutor(learners) as pool:
                futures = [
                    pool.submit(learn, server.api, telegram, 9500 + i, rounds)
                    for i in range(learners)
                ]
                if kill_at is not None:
                    wait(lambda: len(answers(db)) >= kill_at, 120, "load under way")
                    runs[0].stop(signal.SIGKILL)
                tapped = [t for f in futures for t in f.result()]
            seconds = time.monotonic() - started
            alive = [r for r in runs if r.proc.poll() is None]
            cpu = sum(cpu_seconds(r.proc.pid) for r in alive) - (0 if kill_at else cpu_before)
            assert len(alive) == processes - (kill_at is not None)
            time.sleep(3)  # a second handling of anything, were there one, would show now
        finally:
            for run in runs:
                run.close()
    return Load(server.api, tapped, telegram, [r.output() for r in runs], seconds, cpu)
