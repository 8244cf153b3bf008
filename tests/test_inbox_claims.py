"""Inbox claims among several processes on one database, on both backends: an update is held
by the process that stored it, taken over only when its lease lapsed or its owner is dead, and
of several processes claiming at once exactly one gets each update."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.practice.clock import SystemClock
from bot.storage import inbox_sql
from bot.storage.factory import open_database
from bot.storage.port import Connection, Store
from bot.telegram.inbox import LEASE_S, Inbox

T0 = 1_800_000_000.0
ALIVE = "elsewhere:1:aaaa"  # another host's owner: only its lease expiry frees its rows
GONE = "thishost-not:1:bbbb"


@pytest.fixture(params=["sqlite", "postgres"])
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "postgres":
        target = request.getfixturevalue("pg_url")
    else:
        target = f"sqlite:///{tmp_path / 'q.sqlite3'}"
    async with open_database(target) as store:
        yield store


def update(update_id: int) -> tuple[int, str]:
    return update_id, json.dumps({"update_id": update_id})


def states(conn: Connection) -> dict[int, tuple[str, str | None]]:
    rows = conn.execute("SELECT update_id, state, owner FROM inbox").fetchall()
    return {int(r[0]): (str(r[1]), r[2]) for r in rows}


async def test_a_held_update_is_taken_over_only_once_its_lease_lapses(db: Store) -> None:
    await db.write(lambda c: inbox_sql.receive(c, [update(1), update(2)], T0, ALIVE, T0 + 15))
    # Within the lease: nothing to claim, for anybody.
    assert await db.write(lambda c: inbox_sql.claim(c, "me:2:cc", T0 + 10, T0 + 25)) == []
    # The owner renews one of them; the other lapses and goes to the first claimer only.
    assert await db.write(lambda c: inbox_sql.renew(c, ALIVE, T0 + 30)) == 2
    await db.write(lambda c: c.execute("UPDATE inbox SET lease_until = ? WHERE update_id = 2",
                                       (T0 + 15,)))  # fmt: skip
    claimed = await db.write(lambda c: inbox_sql.claim(c, "me:2:cc", T0 + 20, T0 + 35))
    assert [i for i, _ in claimed] == [2]
    assert json.loads(claimed[0][1]) == {"update_id": 2}
    assert await db.write(lambda c: inbox_sql.claim(c, "you:3:dd", T0 + 21, T0 + 36)) == []
    assert await db.read(states) == {1: ("new", ALIVE), 2: ("new", "me:2:cc")}
    # Done: nobody claims it again, even long after.
    await db.write(lambda c: inbox_sql.mark_done(c, [1, 2], T0 + 22))
    assert await db.write(lambda c: inbox_sql.claim(c, "you:3:dd", T0 + 99, T0 + 114)) == []


async def test_a_dead_owners_updates_are_claimed_at_once(db: Store) -> None:
    await db.write(lambda c: inbox_sql.receive(c, [update(5)], T0, GONE, T0 + 15))
    await db.write(lambda c: inbox_sql.receive(c, [update(6)], T0, ALIVE, T0 + 15))
    assert sorted(await db.read(lambda c: inbox_sql.open_owners(c, T0 + 1))) == sorted(
        [ALIVE, GONE]
    )
    claimed = await db.write(lambda c: inbox_sql.claim(c, "me:2:cc", T0 + 1, T0 + 16, [GONE]))
    assert [i for i, _ in claimed] == [5]


async def test_an_update_stored_twice_stays_its_first_owners(db: Store) -> None:
    first = await db.write(lambda c: inbox_sql.receive(c, [update(9)], T0, "a:1:x", T0 + 15))
    again = await db.write(lambda c: inbox_sql.receive(c, [update(9)], T0, "b:2:y", T0 + 15))
    assert (first, again) == ([9], [])
    assert await db.read(states) == {9: ("new", "a:1:x")}


async def test_processes_sweeping_at_once_claim_each_update_once(db: Store) -> None:
    # Updates of a process that died long ago (leases lapsed): four live processes sweep.
    ids = list(range(100, 160))
    long_ago = 1_600_000_000.0
    await db.write(
        lambda c: inbox_sql.receive(c, [update(i) for i in ids], long_ago, ALIVE, long_ago + 15)
    )
    inboxes = [Inbox(db, SystemClock(), owner=f"proc{n}:1:t") for n in range(4)]
    claimed = await asyncio.gather(*(inbox.sweep() for inbox in inboxes for _ in range(3)))
    got = [u["update_id"] for batch in claimed for u in batch]
    assert sorted(got) == ids  # each exactly once
    owners = {owner for _, owner in (await db.read(states)).values()}
    assert ALIVE not in owners


async def test_a_live_process_keeps_what_it_stored(db: Store) -> None:
    now = [T0]
    mine = Inbox(db, SystemClock(), owner="mine:1:t", wall=lambda: now[0])
    other = Inbox(db, SystemClock(), owner="other:1:t", wall=lambda: now[0])
    assert await mine.receive([update(42)]) == {42}
    # Long past the first lease, but renewed on each sweep: the other never takes it.
    for _ in range(4):
        now[0] += LEASE_S * 0.8
        assert await mine.sweep() == []
        assert await other.sweep() == []
    # The owner stops renewing (it died on another host): the other takes it over.
    now[0] += LEASE_S + 1
    assert [u["update_id"] for u in await other.sweep()] == [42]


async def test_processes_count_each_other_and_share_the_bots_budgets(db: Store) -> None:
    now = [T0]
    shares: dict[str, list[int]] = {"a": [], "b": []}
    first, second = (
        Inbox(db, SystemClock(), owner=f"{name}:1:x", wall=lambda: now[0]) for name in "ab"
    )
    first.on_processes = shares["a"].append
    second.on_processes = shares["b"].append
    await first.sweep()
    assert first.processes == 1 and shares["a"] == []  # alone: nothing to share
    await second.sweep()
    await first.sweep()
    assert (first.processes, second.processes) == (2, 2)
    assert shares == {"a": [2], "b": [2]}
    # A clean stop counts out at once; a killed process once its lease lapsed.
    await second.close()
    await first.sweep()
    assert shares["a"] == [2, 1]
    await second.sweep()
    await first.sweep()
    now[0] += LEASE_S + 1  # the second process died after its sweep
    await first.sweep()
    assert shares["a"] == [2, 1, 2, 1]
    # A process of this host whose pid is gone counts out at the next sweep, lease or not.
    dead = await asyncio.create_subprocess_exec("true")
    await dead.wait()
    await Inbox(
        db, SystemClock(), owner=f"{socket.gethostname()}:{dead.pid}:z", wall=lambda: now[0]
    ).sweep()
    await first.sweep()
    assert first.processes == 1 and shares["a"] == [2, 1, 2, 1]
