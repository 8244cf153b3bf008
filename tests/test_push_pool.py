"""The daily push sends through its own connection pool: learners' replies never wait for it.

The push keeps up to 32 sends in flight. On the replies' 32-connection pool those would leave a
learner's answer waiting for a connection until PTB's pool timeout (1 s) fails it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from telegram import Update

from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.schedule.push import PushService
from bot.telegram.app import build_application
from tests import factories, sample_bank
from tests.botharness import make_settings
from tests.fakes import FakeBotApi, FakeBotApiServer, FakeRequest

NOON = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)


async def test_a_reply_goes_out_while_the_push_fills_its_window(tmp_path: Path) -> None:
    api = FakeBotApi()
    bank = sample_bank.bank()
    clock = FakeClock(NOON)
    with FakeBotApiServer(api) as server:
        # The production path: real HTTP requests against a local fake Bot API. 1000/s gives
        # the widest push window (32 sends in flight).
        settings = make_settings(tmp_path, push_rate=1000.0, BOT_API_URL=server.url)
        app = build_application(settings, Catalog({bank.id: bank}), clock=clock)
        async with app:
            assert app.post_init is not None and app.post_shutdown is not None
            await app.post_init(app)
            try:
                push = app.bot_data.services.push if app.bot_data.services else None
                assert isinstance(push, PushService) and push.window == 32
                assert push.courier.bot is not app.bot
                for chat in range(500, 540):
                    await push.subscribe(chat, "12:00", "UTC", user_id=chat)
                clock.advance(86400 + 60)
                api.set_delay("sendMessage", 1.5)  # Telegram is slow: each send holds a link
                running = asyncio.create_task(push.run_once())
                window = push.window  # the fake server's progress, not a schedule
                await server.wait_for_async(lambda a: a.count("sendMessage") >= window)
                learner = factories.user(77, "Lee")
                update = factories.command("/help", learner, factories.private_chat(learner))
                await app.process_update(Update.de_json(update, app.bot))
                assert api.last_text(77)  # replied, not failed with a pool timeout
                assert await running == 40
            finally:
                await app.post_shutdown(app)


async def test_an_injected_push_request_carries_the_push_and_nothing_else(tmp_path: Path) -> None:
    replies, pushes = FakeBotApi(), FakeBotApi()
    bank = sample_bank.bank()
    clock = FakeClock(NOON)
    app = build_application(
        make_settings(tmp_path, push_rate=20.0),
        Catalog({bank.id: bank}),
        request=FakeRequest(replies),
        push_request=FakeRequest(pushes),
        clock=clock,
        with_updater=False,
    )
    async with app:
        assert app.post_init is not None and app.post_shutdown is not None
        await app.post_init(app)
        try:
            push = app.bot_data.services.push if app.bot_data.services else None
            assert push is not None
            await push.subscribe(601, "12:01", "UTC", user_id=601)
            learner = factories.user(602, "Ann")
            update = factories.command("/help", learner, factories.private_chat(learner))
            await app.process_update(Update.de_json(update, app.bot))
            clock.advance(120)
            assert await push.run_once() == 1
        finally:
            await app.post_shutdown(app)
    assert pushes.send_counts == {601: 1} and pushes.calls_of("getMe") == []
    assert replies.count("sendMessage", chat_id=601) == 0 and replies.last_text(602)
