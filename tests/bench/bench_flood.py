"""Other users' /quiz latency, idle vs under one user's flood.

The flooding user sends 300 updates (/quiz and free text, one every 2 ms) while the fake Bot
API answers every call to their chat with 429 (retry_after 5 s), as Telegram did when one
user stalled the bot for everyone. Meanwhile five other users each send /quiz, 60 ms apart;
the latency is from putting their update in the application's queue (the real queue and its
32 concurrent update slots) to the sendMessage of their question. Idle runs the same five
/quiz with no flood. Runs alternate idle, flood, idle, flood... Target: the flood median within
2x the idle median.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from telegram import Update
from telegram.request import RequestData

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS, Settings
from bot.practice.catalog import Catalog
from bot.telegram.app import build_application
from bot.telegram.context import QuizApp
from tests import factories
from tests.fakes import TOKEN, FakeBotApi, FakeRequest

REPS = 5
OTHERS = 5
FLOOD = 300
_ids = itertools.count(10_000)


class TimingRequest(FakeRequest):
    """Notes when each chat first got a sendMessage answered with 200."""

    def __init__(self, api: FakeBotApi) -> None:
        super().__init__(api)
        self.first_sent: dict[int, float] = {}
        self.watch: dict[int, asyncio.Event] = {}

    async def do_request(
        self, url: str, method: str, request_data: RequestData | None = None, *a: Any, **k: Any
    ) -> tuple[int, bytes]:
        status, body = await super().do_request(url, method, request_data, *a, **k)
        if url.endswith("/sendMessage") and status == 200 and request_data is not None:
            chat_id = int(request_data.parameters["chat_id"])  # type: ignore[arg-type]
            self.first_sent.setdefault(chat_id, time.perf_counter())
            if chat_id in self.watch:
                self.watch[chat_id].set()
        return status, body


def update(app: QuizApp, payload: dict[str, Any]) -> Update:
    return Update.de_json(payload, app.bot)


async def flood_from_one_user(app: QuizApp, api: FakeBotApi) -> None:
    flooder = factories.user(next(_ids), "Flo")
    chat = factories.private_chat(flooder)
    api.rate_limit(retry_after=5, times=10**6, chat_id=flooder["id"])
    for i in range(FLOOD):
        payload = (
            factories.command("/quiz", flooder, chat)
            if i % 2
            else factories.text_message("hello?", flooder, chat)
        )
        await app.update_queue.put(update(app, payload))
        await asyncio.sleep(0.002)


async def one_run(app: QuizApp, api: FakeBotApi, req: TimingRequest, flood: bool) -> list[float]:
    """Latencies of OTHERS users' /quiz, during a flood or not."""
    flooding = asyncio.create_task(flood_from_one_user(app, api)) if flood else None
    await asyncio.sleep(0.02)
    latencies = []
    for _ in range(OTHERS):
        user = factories.user(next(_ids), "Ola")
        sent = req.watch[user["id"]] = asyncio.Event()
        started = time.perf_counter()
        chat = factories.private_chat(user)
        await app.update_queue.put(update(app, factories.command("/quiz", user, chat)))
        await sent.wait()
        latencies.append(req.first_sent[user["id"]] - started)
        await asyncio.sleep(0.06)
    if flooding is not None:
        await flooding
    return latencies


async def run() -> None:
    catalog = Catalog(load_banks([BUNDLED_QUESTIONS]).banks)
    api = FakeBotApi()
    req = TimingRequest(api)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(BOT_TOKEN=TOKEN, QUIZBOT_DB=Path(tmp) / "bench.sqlite3")  # type: ignore[call-arg]
        app = build_application(settings, catalog, request=req, with_updater=False)
        async with app:
            assert app.post_init is not None and app.post_shutdown is not None
            await app.post_init(app)
            await app.start()
            try:
                results: dict[bool, list[float]] = {False: [], True: []}
                await one_run(app, api, req, False)  # warm-up
                for _ in range(REPS):
                    for flood in (False, True):
                        results[flood] += await one_run(app, api, req, flood)
            finally:
                await app.stop()
                await app.post_shutdown(app)
    for flood, label in ((False, "idle"), (True, "under one user's flood (429 for that chat)")):
        ms = [x * 1000 for x in results[flood]]
        print(
            f"   other users' /quiz latency, {label}: min {min(ms):.1f} ms, "
            f"median {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms (n={len(ms)})"
        )
    ratio = statistics.median(results[True]) / statistics.median(results[False])
    print(f"   flood/idle median: {ratio:.2f}x (target within 2x)")


def main() -> None:
    # The flood's dropped replies are logged one line each: not what is measured here.
    logging.disable(logging.WARNING)
    try:
        asyncio.run(run())
    finally:
        logging.disable(logging.NOTSET)
