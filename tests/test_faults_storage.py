"""Storage faults the bot cannot fix (a full disk, its file replaced under it): the user hears
"I can't save right now" instead of silence, the log gets one line per kind of fault with a
count, health reports it, and the bot recovers by itself when the fault goes."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.storage.port import StorageError
from bot.storage.sqlite import database as database_module
from bot.storage.sqlite.database import Database
from bot.telegram.app import build_application
from bot.telegram.polling import PollErrors
from bot.telegram.views import texts
from bot.telegram.webhook import WebhookState, make_web_app
from tests import factories, sample_bank
from tests.botharness import make_settings, running_bot
from tests.fakes import FakeBotApi, FakeRequest, post_webhook
from tests.ops_support import free_port

SECRET = "webhook-secret"


async def fill_to_the_page_limit(db: Database) -> None:
    """Writes fail with SQLite's own "database or disk is full" (SQLITE_FULL), as a full
    filesystem gives: the file may grow by two pages, then writes are refused."""
    await db.write(lambda c: c.execute("CREATE TABLE filler (b BLOB)"))
    pages = await db.call(lambda c: c.execute("PRAGMA page_count").fetchone()[0])
    await db.call(lambda c: c.execute(f"PRAGMA max_page_count={pages + 2}"))
    with pytest.raises(StorageError, match="full"):
        for _ in range(10):
            await db.write(lambda c: c.execute("INSERT INTO filler VALUES (zeroblob(3000))"))


async def test_a_full_disk_is_a_fault_until_space_returns(tmp_path: Path) -> None:
    async with Database(tmp_path / "full.sqlite3") as db:
        await fill_to_the_page_limit(db)
        assert db.fault == "disk full"
        # A write with nothing to write (a planning run with nothing due) commits on a full
        # disk too: it is no sign of room.
        await db.write(lambda c: c.execute("DELETE FROM filler WHERE 0"))
        assert db.fault == "disk full"
        await db.call(lambda c: c.execute("PRAGMA max_page_count=1073741823"))  # space is back
        await db.write(lambda c: c.execute("INSERT INTO filler VALUES (zeroblob(3000))"))
        assert db.fault is None


async def test_a_replaced_database_file_takes_no_answer_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(tmp_path) as h:
        ann = factories.user(42, "Ann")
        chat = factories.private_chat(ann)
        await h.feed(factories.command("/quiz", ann, chat))
        message = h.api.last_message(42)
        assert message is not None
        data = message["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        # A restore copied over the live file (a new inode at the same path).
        copy = tmp_path / "restored.sqlite3"
        shutil.copy(h.db_path, copy)
        os.replace(copy, h.db_path)
        with caplog.at_level(logging.ERROR):
            await h.feed(factories.callback(data, ann, message))
            for _ in range(3):
                await h.feed(factories.command("/quiz", ann, chat))
        (tap,) = h.api.calls_of("answerCallbackQuery")
        assert tap.params["text"] == texts.CANNOT_SAVE
        told = [m for m in h.api.messages_to(42) if m.get("text") == texts.CANNOT_SAVE]
        assert len(told) == 1  # once a minute, not once a message
        assert h.services.db.fault == "file replaced"
        faults = [r for r in caplog.records if "storage fault" in r.getMessage()]
        assert len(faults) == 1 and "file replaced" in faults[0].getMessage()
        assert "replaced or deleted" in caplog.text


async def test_an_update_refused_503_because_the_disk_is_full_is_handled_when_sent_again(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        db = h.services.db
        state = WebhookState()
        port = free_port()
        server = make_web_app(h.app, "/hook", SECRET, state).listen(port, "127.0.0.1")
        url = f"http://127.0.0.1:{port}/hook"
        try:
            ann = factories.user(42, "Ann")
            # Long enough to need a fresh page of the database: none is left below.
            update = {**factories.command("/help " + "x" * 4000, ann, factories.private_chat(ann))}
            update["update_id"] = 777
            await db.write(lambda c: c.execute("CREATE TABLE filler (b BLOB)"))
            pages = await db.call(lambda c: c.execute("PRAGMA page_count").fetchone()[0])
            await db.call(lambda c: c.execute(f"PRAGMA max_page_count={pages + 2}"))
            with pytest.raises(StorageError, match="full"):
                for _ in range(10):
                    await db.write(
                        lambda c: c.execute("INSERT INTO filler VALUES (zeroblob(3000))")
                    )
            assert await asyncio.to_thread(post_webhook, url, update, SECRET) == 503
            # No handler ran for it, yet its sender hears that nothing was saved.
            for _ in range(100):
                if h.api.messages_to(42):
                    break
                await asyncio.sleep(0.02)
            assert [m.get("text") for m in h.api.messages_to(42)] == [texts.CANNOT_SAVE]
            await db.call(lambda c: c.execute("PRAGMA max_page_count=1073741823"))  # space back
            # Telegram sends it again: stored and queued this time, not taken for a duplicate.
            assert await asyncio.to_thread(post_webhook, url, update, SECRET) == 200
            stored = await db.read(lambda c: c.execute("SELECT update_id FROM inbox").fetchall())
            assert [tuple(r) for r in stored] == [(777,)]
            assert state.duplicates == 0 and state.received == 1
        finally:
            server.stop()


async def test_a_poll_the_inbox_cannot_store_is_fetched_again_and_its_senders_are_told(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    api = FakeBotApi()
    app = build_application(
        make_settings(tmp_path),
        Catalog({b.id: b for b in (sample_bank.bank(),)}),
        request=FakeRequest(api),
        clock=FakeClock(1_800_000_000.0),
        rng=random.Random(3),
    )
    ann, bob = factories.user(42, "Ann"), factories.user(43, "Bob")

    async def until(done: Callable[[], object], seconds: float = 10.0) -> None:
        for _ in range(int(seconds / 0.02)):
            if done():
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"not within {seconds} s; last calls: {api.calls[-5:]}")

    def taps() -> list[str]:
        return [c.params.get("text", "") for c in api.calls_of("answerCallbackQuery")]

    async with app:
        assert app.post_init is not None and app.post_shutdown is not None and app.updater
        await app.post_init(app)
        await app.start()
        # The error callback polling.elect gives PTB.
        await app.updater.start_polling(poll_interval=0, timeout=1, error_callback=PollErrors())
        try:
            services = app.bot_data.services
            assert services is not None
            db = services.db
            api.push_update(factories.command("/quiz", ann, factories.private_chat(ann)))
            await until(lambda: (api.last_message(42) or {}).get("reply_markup"))
            question = api.last_message(42)
            assert question is not None
            data = question["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
            await asyncio.sleep(1.5)  # the inbox's done marks written
            await db.write(lambda c: c.execute("CREATE TABLE filler (b BLOB)"))
            pages = await db.call(lambda c: c.execute("PRAGMA page_count").fetchone()[0])
            await db.call(lambda c: c.execute(f"PRAGMA max_page_count={pages + 2}"))
            with pytest.raises(StorageError, match="full"):
                for _ in range(10):
                    await db.write(
                        lambda c: c.execute("INSERT INTO filler VALUES (zeroblob(3000))")
                    )
            polls = api.count("getUpdates")
            # Long enough to need a fresh page of the database: none is left.
            api.push_update(
                factories.command("/quiz " + "x" * 4000, bob, factories.private_chat(bob))
            )
            api.push_update(factories.callback(data, ann, question))
            # No handler ran for them, yet their senders hear that nothing was saved...
            await until(lambda: texts.CANNOT_SAVE in taps() and api.messages_to(43))
            # ... once a minute for a message, though getUpdates fetches them again and again.
            with caplog.at_level(logging.INFO):
                await until(lambda: api.count("getUpdates") >= polls + 3)
            # One line for the failing fetches (a minute's worth), and no traceback per retry.
            retries = [r for r in caplog.records if "getUpdates failed" in r.getMessage()]
            assert len(retries) == 1 and "full" in retries[0].getMessage()
            assert "Traceback" not in caplog.text and not any(r.exc_info for r in caplog.records)
            assert [m.get("text") for m in api.messages_to(43)] == [texts.CANNOT_SAVE]
            assert api.pending_updates == 2  # the offset has not moved past them
            await db.call(lambda c: c.execute("PRAGMA max_page_count=1073741823"))  # space back
            await until(lambda: (api.last_message(43) or {}).get("reply_markup"), 40)
            await until(lambda: api.pending_updates == 0, 40)
            await until(lambda: any(t != texts.CANNOT_SAVE for t in taps()))
            assert taps()[0] == texts.CANNOT_SAVE and taps()[-1] != texts.CANNOT_SAVE
        finally:
            await app.updater.stop()
            await app.stop()
            await app.post_shutdown(app)


async def test_a_write_that_squeezes_into_a_full_disk_does_not_clear_the_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On a full filesystem a small write may still find room in pages the files already have:
    # the disk is full until the filesystem has room again, whatever that one commit says.
    room = [0]
    monkeypatch.setattr(database_module, "_free_bytes", lambda path: room[0])
    async with Database(tmp_path / "full.sqlite3") as db:
        await fill_to_the_page_limit(db)
        assert db.fault == "disk full"
        await db.call(lambda c: c.execute("PRAGMA max_page_count=1073741823"))
        await db.write(lambda c: c.execute("DELETE FROM filler"))  # it commits...
        assert db.fault == "disk full"  # ...on a filesystem with no room left
        room[0] = 1 << 30
        await db.write(lambda c: c.execute("INSERT INTO filler VALUES (zeroblob(3000))"))
        assert db.fault is None
