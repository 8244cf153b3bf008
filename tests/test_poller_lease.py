"""The poller role lease on both backends: one holder at a time, renewed by its holder, taken
over once it lapsed or its holder is dead, given up on a clean stop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import lease_sql
from bot.storage.factory import open_database
from bot.storage.port import Store
from bot.telegram.polling import LEASE_S, PollerLease

T0 = 1_800_000_000.0


@pytest.fixture(params=["sqlite", "postgres"])
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "postgres":
        target = request.getfixturevalue("pg_url")
    else:
        target = f"sqlite:///{tmp_path / 'q.sqlite3'}"
    async with open_database(target) as store:
        yield store


async def test_one_holder_until_the_lease_lapses(db: Store) -> None:
    now = [T0]
    a = PollerLease(db, owner="host-a:1:aa", wall=lambda: now[0])
    b = PollerLease(db, owner="host-b:1:bb", wall=lambda: now[0])
    assert await a.hold() is True
    assert await b.hold() is False
    for _ in range(5):  # renewed in time: a keeps it for as long as it lives
        now[0] += LEASE_S * 0.5
        assert (await a.hold(), await b.hold()) == (True, False)
    now[0] += LEASE_S + 0.1  # a stopped renewing (another host: only expiry frees it)
    assert (await b.hold(), await a.hold()) == (True, False)
    assert await db.read(lambda c: lease_sql.holder(c, "poller")) == (
        "host-b:1:bb",
        now[0] + LEASE_S,
    )
    await b.release()
    assert await a.hold() is True  # at once, no lease to wait for


async def test_a_dead_holder_on_this_host_is_replaced_at_once(db: Store) -> None:
    gone = "x:1:t"
    await db.write(lambda c: lease_sql.hold(c, "poller", gone, T0, T0 + LEASE_S))
    # Within its lease, yet named dead: taken. Anyone else's live lease is not.
    assert await db.write(lambda c: lease_sql.hold(c, "poller", "me:2:u", T0 + 1, T0 + 11, gone))
    assert not await db.write(
        lambda c: lease_sql.hold(c, "poller", "you:3:v", T0 + 2, T0 + 12, gone)
    )
