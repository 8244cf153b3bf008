"""Group posting across bot processes on one database: two /quiz in one group that reach two
processes at once end as two /quiz in a row in one process (the first question revealed, then
the next posted), because each post holds the chat's lease row ("post:<chat id>"); a lease of
a dead holder or a lapsed one does not hold a post back, a live holder's does until released."""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from bot.storage import lease_sql
from bot.telegram.outbound.group_rounds import POST_LEASE_S
from tests import factories
from tests.botharness import Harness, running_bot
from tests.fakes import FakeBotApi
from tests.groups_support import ADMIN, GROUP, GROUP_ID, db_rows, setup_admin
from tests.test_groups_quiz import NO_PACE, singles

LEASE = f"post:{GROUP_ID}"
PACE: dict[str, Any] = dict(NO_PACE)  # two /quiz in a row are the point, not the pace rules
# The bot answers sendMessage this late: a question's send is still in flight while the
# other process handles its /quiz, which is when two posts would overlap.
SEND_DELAY_S = 0.3


@asynccontextmanager
async def processes(tmp_path: Path, api: FakeBotApi) -> AsyncIterator[tuple[Harness, Harness]]:
    """Two bot applications on the database of `tmp_path`, as two processes would run."""
    async with (
        running_bot(tmp_path, singles(), api=api, **PACE) as a,
        running_bot(tmp_path, singles(), api=api, **PACE) as b,
    ):
        # Both apps live in this test's process, and an owner with this pid that is not
        # one's own reads as an earlier, dead run (bot.schedule.lease.owner_dead): name them
        # as processes of other hosts, alive as long as their leases run.
        a.services.push.owner = "host-a:1:aa"
        b.services.push.owner = "host-b:2:bb"
        yield a, b


def quiz() -> dict[str, Any]:
    return factories.command("/quiz@quizbot_test_bot", ADMIN, GROUP)


def outcome(h: Harness) -> dict[str, Any]:
    """What the group saw and what the database recorded, free of ids and times."""
    deliveries = db_rows(
        h.db_path,
        "SELECT message_id, revealed_at FROM deliveries WHERE chat_id = ? ORDER BY id",
        (GROUP_ID,),
    )
    # The calls into the group in order, an edit named by the rank of the question it
    # touched among those posted.
    posted = [m["message_id"] for m in h.api.messages_to(GROUP_ID)]
    calls = [
        "send" if c.method == "sendMessage" else f"edit {posted.index(c.params['message_id']) + 1}"
        for c in h.api.calls
        if c.params.get("chat_id") == GROUP_ID and c.method in ("sendMessage", "editMessageText")
    ]
    return {
        # (posted, revealed) per question, oldest first.
        "deliveries": [(m is not None, r is not None) for m, r in deliveries],
        "calls": calls,
        "closed": ["Closed" in m["text"] for m in h.api.messages_to(GROUP_ID)],
        "leases": db_rows(h.db_path, "SELECT owner FROM leases WHERE name = ?", (LEASE,)),
    }


async def one_process_outcome(tmp_path: Path) -> dict[str, Any]:
    api = FakeBotApi()
    api.set_delay("sendMessage", SEND_DELAY_S)
    async with running_bot(tmp_path, singles(), api=api, **PACE) as h:
        setup_admin(h)
        await h.feed(quiz())
        await h.feed(quiz())
        return outcome(h)


async def test_two_processes_post_one_after_the_other(tmp_path: Path) -> None:
    expected = await one_process_outcome(tmp_path / "one")
    assert expected == {
        "deliveries": [(True, True), (True, False)],
        "calls": ["send", "edit 1", "send"],
        "closed": [True, False],
        "leases": [],
    }
    api = FakeBotApi()
    api.set_delay("sendMessage", SEND_DELAY_S)
    async with processes(tmp_path / "two", api) as (a, b):
        setup_admin(a)
        await asyncio.gather(a.feed(quiz()), b.feed(quiz()))
        assert outcome(a) == expected


async def test_a_dead_or_lapsed_holder_does_not_hold_a_post_back(tmp_path: Path) -> None:
    api = FakeBotApi()
    async with processes(tmp_path, api) as (a, _b):
        setup_admin(a)
        db = a.services.db
        now = time.time()
        # An earlier run of this very process (a restart), its lease still running.
        dead = f"{socket.gethostname()}:{os.getpid()}:gone"
        await db.write(lambda c: lease_sql.hold(c, LEASE, dead, now, now + POST_LEASE_S))
        started = time.monotonic()
        await a.feed(quiz())
        assert api.count("sendMessage", chat_id=GROUP_ID) == 1
        # Another host's lease that lapsed long ago.
        await db.write(lambda c: lease_sql.hold(c, LEASE, "host-x:9:xx", now - 100, now - 50))
        await a.feed(quiz())
        assert api.count("sendMessage", chat_id=GROUP_ID) == 2
        assert time.monotonic() - started < POST_LEASE_S / 4  # neither was waited for
        assert db_rows(a.db_path, "SELECT owner FROM leases WHERE name = ?", (LEASE,)) == []


async def test_a_live_holder_is_waited_for_until_it_releases(tmp_path: Path) -> None:
    api = FakeBotApi()
    async with processes(tmp_path, api) as (a, b):
        setup_admin(a)
        holder = b.services.push.owner
        now = time.time()
        assert await b.services.db.write(
            lambda c: lease_sql.hold(c, LEASE, holder, now, now + POST_LEASE_S)
        )

        async def release_later() -> None:
            await asyncio.sleep(0.5)
            assert api.count("sendMessage", chat_id=GROUP_ID) == 0  # still held back
            await b.services.db.write(lambda c: lease_sql.release(c, LEASE, holder))

        started = time.monotonic()
        await asyncio.gather(a.feed(quiz()), release_later())
        waited = time.monotonic() - started
        assert api.count("sendMessage", chat_id=GROUP_ID) == 1
        assert 0.5 <= waited < POST_LEASE_S / 4
