"""`quizbot health` and the webhook's `/healthz` while storage fails: writes failing (a full
disk, SQLite's own limit or a genuinely full filesystem), the database file deleted or replaced
under the running bot, a corrupt page (`--deep` and the start-up's quick_check say what they
found), and a heartbeat from the future."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.practice.clock import FakeClock
from bot.storage.sqlite.database import Database
from bot.telegram import status
from bot.telegram.views import texts
from bot.telegram.webhook import WebhookState, make_web_app
from tests import factories, sample_bank
from tests.backend import database_env
from tests.bench.bench_storage_full import fill, mount_tmpfs, truncate_wal, umount
from tests.botharness import Harness, running_bot
from tests.ops_support import free_port, write_bank
from tests.test_faults_storage import fill_to_the_page_limit

Report = dict[str, Any]
ANN = factories.user(42, "Ann")
SQLITE_FILE = "the SQLite file itself: its pages, its inode, its filesystem"


@pytest.fixture
def cli_health(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, Report]]:
    """`quizbot health [ARGS]` on the database at a path: its exit code and its report."""
    monkeypatch.chdir(tmp_path)  # away from a developer's .env
    for name in ("BOT_TOKEN", "QUIZBOT_ADMINS"):
        monkeypatch.delenv(name, raising=False)
    banks = write_bank(tmp_path / "cli-banks", sample_bank.bank())
    monkeypatch.setenv("QUIZBOT_QUESTIONS", str(banks))

    def run(db: Path, *args: str) -> tuple[int, Report]:
        monkeypatch.setenv("QUIZBOT_DB", database_env(db))
        capsys.readouterr()
        code = main(["health", *args])
        return code, json.loads(capsys.readouterr().out)

    return run


def now_clock() -> FakeClock:
    """The bot's clock at the real time: the CLI reads its heartbeat against the real clock."""
    return FakeClock(time.time())


@asynccontextmanager
async def healthz(h: Harness) -> AsyncIterator[Callable[[], Awaitable[tuple[int, Report]]]]:
    """The webhook's routes on a free port of a started application; a GET of /healthz."""
    await h.app.start()  # /healthz is ok only while the application runs
    port = free_port()
    server = make_web_app(h.app, "/hook", "secret", WebhookState()).listen(port, "127.0.0.1")

    def get() -> tuple[int, Report]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as r:
                return int(r.status), json.loads(r.read())
        except urllib.error.HTTPError as err:
            with err:
                return int(err.code), json.loads(err.read())

    try:
        yield lambda: asyncio.to_thread(get)  # the server runs on this loop
    finally:
        server.stop()
        await h.app.stop()


def sqlite_store(h: Harness) -> Database:
    db = h.services.db
    assert isinstance(db, Database)
    return db


async def ask(h: Harness) -> str:
    """Ann sends /quiz; the text of the bot's reply."""
    await h.feed(factories.command("/quiz", ANN, factories.private_chat(ANN)))
    return str((h.api.last_message(ANN["id"]) or {}).get("text", ""))


@pytest.mark.sqlite_only("SQLite's own page limit stands in for a full disk")
async def test_healthz_fails_while_writes_fail_and_passes_once_one_commits(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, clock=now_clock()) as h, healthz(h) as get:
        db = sqlite_store(h)
        code, report = await get()
        assert code == 200 and report["database"]["ok"] is True, report
        await fill_to_the_page_limit(db)
        code, report = await get()
        assert code == 503 and report["ok"] is False
        assert report["database"] == {**report["database"], "ok": False}
        assert report["database"]["error"] == "writes failing: disk full"
        await db.call(lambda c: c.execute("PRAGMA max_page_count=1073741823"))  # space again
        await status.write_heartbeat(h.services, h.app.bot_data.ops)
        code, report = await get()
        assert code == 200 and "error" not in report["database"], report


@pytest.mark.sqlite_only("a SQLite file on a filesystem that fills up")
async def test_a_full_filesystem_fails_health_and_healthz_until_space_returns(
    tmp_path: Path, cli_health: Callable[..., tuple[int, Report]]
) -> None:
    disk = tmp_path / "disk"
    if not mount_tmpfs(disk):
        pytest.skip("mounting a small tmpfs (a filesystem to fill) needs root")
    try:
        async with running_bot(disk, clock=now_clock()) as h, healthz(h) as get:
            assert cli_health(h.db_path)[0] == 0
            assert (await get())[0] == 200
            truncate_wal(h.db_path)  # else the next writes find room in the WAL's old pages
            filler = fill(disk)
            assert await ask(h) == texts.CANNOT_SAVE
            code, report = await get()
            assert code == 503 and report["database"]["error"] == "writes failing: disk full"
            code, report = cli_health(h.db_path)
            assert code == 1 and report["ok"] is False
            assert report["database"]["error"].startswith("disk full: ")
            filler.unlink()  # space returns: the bot recovers by itself
            await status.write_heartbeat(h.services, h.app.bot_data.ops)
            assert (await get())[0] == 200
            code, report = cli_health(h.db_path)
            assert code == 0, report
            await ask(h)
            assert (h.api.last_message(ANN["id"]) or {}).get("reply_markup")  # a question
    finally:
        umount(disk)


@pytest.mark.sqlite_only(SQLITE_FILE)
async def test_a_database_file_replaced_under_the_running_bot_fails_health_at_once(
    tmp_path: Path, cli_health: Callable[..., tuple[int, Report]]
) -> None:
    async with running_bot(tmp_path, clock=now_clock()) as h, healthz(h) as get:
        assert cli_health(h.db_path)[0] == 0
        assert (await get())[0] == 200
        # A restore copied over the live file: a complete copy, a new inode at the same path.
        truncate_wal(h.db_path)
        copy = tmp_path / "restored.sqlite3"
        shutil.copy(h.db_path, copy)
        os.replace(copy, h.db_path)
        # Both notice it, before or after the bot's next write: not the file it opened.
        code, report = await get()
        assert code == 503 and "replaced" in report["database"]["error"]
        code, report = cli_health(h.db_path)
        assert code == 1 and report["database"]["bot"]["state"] == "running"
        assert "replaced or deleted" in report["database"]["error"]
        # The bot takes nothing into a file no restart would find.
        assert await ask(h) == texts.CANNOT_SAVE
        assert sqlite_store(h).fault == "file replaced"
        code, report = await get()
        assert code == 503 and report["database"]["error"] == "writes failing: file replaced"


@pytest.mark.sqlite_only(SQLITE_FILE)
async def test_a_database_file_deleted_under_the_running_bot_fails_health_at_once(
    tmp_path: Path, cli_health: Callable[..., tuple[int, Report]]
) -> None:
    async with running_bot(tmp_path, clock=now_clock()) as h, healthz(h) as get:
        assert (await get())[0] == 200
        h.db_path.unlink()
        code, report = await get()
        assert code == 503 and "replaced" in report["database"]["error"]
        code, report = cli_health(h.db_path)
        assert code == 1 and report["database"]["error"] == "no database file"
        assert await ask(h) == texts.CANNOT_SAVE
        assert sqlite_store(h).fault == "file replaced"


async def a_database_with_pages(folder: Path) -> tuple[Path, int]:
    """A real database of the bot (it ran once, then stopped) with a table of 60 one-page rows
    written last; its path, and a page in the middle of that table."""
    async with running_bot(folder) as h:
        db = h.services.db
        # Pages freed by migrations (a dropped table or column) are used up first, so that
        # the filler's pages follow its root page at the end of the file.
        await db.write(lambda c: c.execute("CREATE TABLE sponge (b BLOB)"))
        while (free := await db.fetchone("PRAGMA freelist_count")) and int(free[0]) > 0:
            await db.write(lambda c: c.execute("INSERT INTO sponge VALUES (randomblob(3000))"))
        await db.write(lambda c: c.execute("CREATE TABLE filler (b BLOB)"))
        for _ in range(60):
            await db.write(lambda c: c.execute("INSERT INTO filler VALUES (randomblob(3000))"))
        root = await db.fetchone("SELECT rootpage FROM sqlite_master WHERE name = 'filler'")
        assert root is not None
    # Closed: the WAL is in the file. The table's leaves follow its root page, one row each.
    return h.db_path, int(root[0]) + 30


def damage(path: Path, page: int, offset: int, data: bytes) -> None:
    """Overwrite bytes of one page of the file, as a bad disk block or a stray write would."""
    header = path.read_bytes()[:100]
    page_size = int.from_bytes(header[16:18], "big")
    assert path.stat().st_size > page * page_size  # a page in the middle, not the last one
    with path.open("r+b") as f:
        f.seek((page - 1) * page_size + offset)
        f.write(data)


@pytest.mark.sqlite_only(SQLITE_FILE)
@pytest.mark.parametrize(
    ("offset", "data", "found"),
    [
        # The cells of a page zeroed: quick_check lists the page.
        (8, bytes(4000), "On tree page {page} cell 0"),
        # The page's header overwritten: quick_check stops with SQLite's error.
        (0, b"\xa5" * 512, "database disk image is malformed"),
    ],
    ids=["cells-zeroed", "header-overwritten"],
)
async def test_deep_health_and_the_start_up_say_what_quick_check_found(
    tmp_path: Path,
    cli_health: Callable[..., tuple[int, Report]],
    caplog: pytest.LogCaptureFixture,
    offset: int,
    data: bytes,
    found: str,
) -> None:
    real, page = await a_database_with_pages(tmp_path / "real")
    code, report = cli_health(real, "--deep")
    assert code == 0 and report["database"]["quick_check"] == ["ok"], report
    copy = tmp_path / "copy" / real.name
    copy.parent.mkdir()
    shutil.copy(real, copy)
    damage(copy, page, offset, data)
    said = found.format(page=page)

    code, report = cli_health(copy, "--deep")
    assert code == 1 and report["ok"] is False
    assert report["database"]["error"] == "quick_check found damage: restore a backup"
    assert any(said in line for line in report["database"]["quick_check"]), report

    # The bot starts on it (the damage is in a table it does not read) and says what it found.
    with caplog.at_level(logging.ERROR):
        async with running_bot(copy.parent) as h:
            await h.feed(factories.command("/start", ANN, factories.private_chat(ANN)))
            assert h.api.messages_to(ANN["id"])
    damaged = [
        r.getMessage() for r in caplog.records if "quick_check found damage" in r.getMessage()
    ]
    assert len(damaged) == 1 and str(copy) in damaged[0] and said in damaged[0], damaged


async def test_a_heartbeat_from_the_future_fails_health(
    tmp_path: Path, cli_health: Callable[..., tuple[int, Report]]
) -> None:
    # The bot's clock an hour ahead of the one health reads (or this one stepped back).
    async with running_bot(tmp_path, clock=FakeClock(time.time() + 3600)) as h:
        await status.write_heartbeat(h.services, h.app.bot_data.ops)
        code, report = cli_health(h.db_path)
        bot = report["database"]["bot"]
        assert code == 1 and report["ok"] is False
        assert bot["state"] == "running" and bot["heartbeat_age_s"] < -3500
        assert bot["problem"] == "the heartbeat is in the future: the wall clock moved back"
        # A heartbeat written now is fine again.
        h.clock.step(time.time() - h.clock.now())
        await status.write_heartbeat(h.services, h.app.bot_data.ops)
        code, report = cli_health(h.db_path)
        assert code == 0 and "problem" not in report["database"]["bot"], report
