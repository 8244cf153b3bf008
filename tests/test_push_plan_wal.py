"""Planning the daily push beside learners' writes: every one of those writes commits while
planning runs, and SQLite's own checkpoints keep the WAL file bounded."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from bot.domain import due, zones
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.groups import GroupService
from bot.practice.service import PracticeService
from bot.schedule.pacer import ClaimPacing
from bot.schedule.push import PushService
from bot.storage.push_log import Claim, Outcome
from bot.storage.sqlite.database import AUTOCHECKPOINT_PAGES, Database, connect_sync
from bot.storage.sqlite.migrations import apply_migrations
from tests.botharness import make_settings
from tests.push_support import insert_private_subscriptions
from tests.sample_bank import bank as sample_bank

START = dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC)
SUBSCRIBERS = 6_000
CHATS = range(10_000, 10_000 + SUBSCRIBERS)
PAGE = 4096


def frames(pages: int) -> int:
    """Bytes of a WAL holding `pages` frames (a 32-byte header, a 24-byte header per frame)."""
    return 32 + pages * (PAGE + 24)


class NoCourier:
    """Planning sends nothing."""

    async def deliver(self, claim: Claim, pacing: ClaimPacing) -> Outcome:
        raise AssertionError("planning must not send")


def seed(path: Path) -> None:
    """SUBSCRIBERS subscriptions due at 06:30 UTC, set up at 04:00."""
    path.parent.mkdir(parents=True, exist_ok=True)
    now = (START - dt.timedelta(hours=2)).timestamp()
    tz = zones.zone("UTC")
    assert tz is not None
    occ = due.next_due("06:30", tz, now)
    conn = connect_sync(path)
    try:
        apply_migrations(conn)
        conn.execute("BEGIN")
        insert_private_subscriptions(
            conn,
            ((chat, "06:30", "UTC", occ.local_date, occ.at) for chat in CHATS),
            now,
        )
        conn.execute("COMMIT")
        conn.execute("CREATE TABLE side (k INTEGER PRIMARY KEY, v TEXT)")
    finally:
        conn.close()


async def plan_beside_writes(tmp_path: Path) -> tuple[int, int, int, int]:
    """Plan every subscription with small answer-sized writes going on beside it; returns
    (planned, WAL bytes at the end, side writes done while planning ran, side rows)."""
    path = tmp_path / "bot.sqlite3"
    seed(path)
    db = Database(path)
    await db.open()
    clock = FakeClock(START + dt.timedelta(hours=1))
    bank = Catalog({b.id: b for b in (sample_bank(),)})
    push = PushService(
        db,
        make_settings(tmp_path),
        NoCourier(),
        practice=PracticeService(db, bank, clock=clock),
        groups=GroupService(db, bank, clock=clock),
        clock=clock,
    )
    push.plan_batch = 150  # many transactions; the batch still grows while they are quick
    planning = True
    during = 0

    async def answers() -> None:
        nonlocal during
        n = 0
        while planning:
            n += 1
            await db.write(lambda c, n=n: c.execute("INSERT INTO side VALUES (?, 'x')", (n,)))
            during += planning
            await asyncio.sleep(0.001)

    try:
        side = asyncio.create_task(answers())
        planned = await push.plan(clock.now())
        planning = False
        await side
        wal = await asyncio.to_thread(lambda: Path(f"{path}-wal").stat().st_size)
        rows = await db.read(lambda c: c.execute("SELECT COUNT(*) FROM side").fetchone()[0])
        logged = await db.read(lambda c: c.execute("SELECT COUNT(*) FROM push_log").fetchone()[0])
    finally:
        await db.close()
    assert logged == planned
    return planned, wal, during, int(rows)


async def test_planning_beside_writes_commits_them_and_keeps_the_wal_bounded(
    tmp_path: Path,
) -> None:
    planned, wal, during, rows = await plan_beside_writes(tmp_path)
    assert planned == SUBSCRIBERS
    # Answers were written between planning transactions, and every one of them committed.
    assert during > 0
    assert rows >= during
    # Checkpointed at AUTOCHECKPOINT_PAGES and cut back to that size: a planning
    # transaction's own pages may come on top, never the whole run's.
    assert wal <= frames(2 * AUTOCHECKPOINT_PAGES), f"{(wal - 32) // (PAGE + 24)} pages"
