"""The durable inbox: an update is in the database before Telegram is told it arrived.

Telegram forgets an update once it is acknowledged: by the webhook's 200, or in polling by the
next getUpdates, whose offset confirms everything before it. A bot killed between that and the
end of the update's handling lost the learner's tap. So:
- polling: the getUpdates request (`InboxRequest`, wrapping the real one) stores the batch it
  fetched in one transaction before PTB sees it, so it is stored before the next getUpdates can
  confirm it; updates stored before (a batch fetched again after a crash) are dropped there;
- webhook: the handler stores the update before it answers 200 (`Inbox.receive`);
- once handled (`InboxProcessor`, PTB's update processor), an update is marked done, in
  batches.
A crash after the handling and before its done mark handles the update again: answers count
once (one per learner and delivery), so a tap is not counted twice.

Several processes on one database: the process that stores an update holds it (a lease it
renews while the update waits or is handled), and only it handles it. Every few seconds each
process claims what nobody holds (`Inbox.sweep`): updates of a process that died (its lease
lapsed, or its pid is gone on this host), which covers the restart of a lone process too.
Leases are on the wall clock that the processes share, never the bot's clock (tests step it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram import Update
from telegram.ext import SimpleUpdateProcessor
from telegram.request import BaseRequest, RequestData

from bot.practice.clock import Clock
from bot.schedule.lease import owner_dead, owner_id
from bot.storage import inbox_sql, lease_sql
from bot.storage.port import Connection, Store

log = logging.getLogger(__name__)
DONE_FLUSH_S = 1.0  # done marks wait at most this long to share a transaction
KEEP_DONE_S = 86400.0  # Telegram re-sends an update for up to a day at most
# An update is its process's for LEASE_S; the process renews every SWEEP_S and claims what
# nobody holds as often, so a dead process's updates are handled within LEASE_S + SWEEP_S.
LEASE_S = 15.0
SWEEP_S = 2.5
REPLAYED_KEPT = 10_000  # updates remembered as replayed; Telegram's callbacks expire long before


class Inbox:
    """Updates stored as they arrive and marked done once handled."""

    def __init__(
        self,
        db: Store,
        clock: Clock,
        owner: str | None = None,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.clock = clock
        self.owner = owner or owner_id()
        self.wall = wall
        self._done: list[int] = []
        self._flush: asyncio.Task[None] | None = None
        self.seen_before: set[int] = set()  # fetched again: not to be handled twice
        # Taps (callback query ids) handled again from the inbox after their process died:
        # an answer it recorded is this very tap's, not a second one.
        self.replayed_taps: set[str] = set()
        # Updates claimed from a process that died: its flood gate let them in already.
        self.replayed: set[int] = set()
        # Bot processes on this database, counted at every sweep (this one among them); told
        # to `on_processes` when it changes, so that the bot-wide budgets are shared out.
        self.processes = 1
        self.on_processes: Callable[[int], None] | None = None
        # Told about updates that could not be stored (their senders hear nothing was saved).
        self.on_unsaved: Callable[[list[dict[str, Any]]], Coroutine[Any, Any, None]] | None = None
        self._telling: set[asyncio.Task[None]] = set()

    def unsaved(self, payloads: list[dict[str, Any]]) -> None:
        """Updates not stored: `on_unsaved` runs in the background, so that the refusal to
        Telegram (no offset moved, a 503) goes out at once."""
        if self.on_unsaved is None or not payloads:
            return
        task = asyncio.get_running_loop().create_task(self.on_unsaved(payloads))
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def receive(self, updates: list[tuple[int, str]]) -> set[int]:
        """Store (update_id, JSON) pairs durably; the ids not stored before."""
        if not updates:
            return set()
        now, until = self.clock.now(), self.wall() + LEASE_S
        return set(
            await self.db.write(lambda c: inbox_sql.receive(c, updates, now, self.owner, until))
        )

    def handled(self, update_id: int) -> None:
        """Mark an update done soon (with others handled meanwhile)."""
        self._done.append(update_id)
        if self._flush is None or self._flush.done():
            self._flush = asyncio.get_running_loop().create_task(self._flush_soon())

    async def _flush_soon(self) -> None:
        await asyncio.sleep(DONE_FLUSH_S)
        await self.flush()

    async def flush(self) -> None:
        """Write the done marks now (at shutdown, or from the timer)."""
        done, self._done = self._done, []
        if not done:
            return
        now = self.clock.now()

        def write(conn: Connection) -> None:
            inbox_sql.mark_done(conn, done, now)
            inbox_sql.prune(conn, now - KEEP_DONE_S)

        try:
            await self.db.write(write)
        except Exception as err:  # handled again after a restart at worst
            log.warning("inbox: %d done marks not saved: %s", len(done), err)

    async def close(self) -> None:
        """Stop the timer and write what is pending; this process counts no more."""
        if self._flush is not None and not self._flush.done():
            self._flush.cancel()
            await asyncio.gather(self._flush, return_exceptions=True)
        await self.flush()
        name = lease_sql.PROCESS + self.owner
        await self.db.write(lambda conn: lease_sql.release(conn, name, self.owner))

    async def sweep(self) -> list[dict[str, Any]]:
        """Renew this process's leases, then claim the updates nobody holds (stored and not
        handled by a process that died or stopped); the claimed ones, oldest first. Counts
        the live processes on the way."""
        now = self.wall()
        until = now + LEASE_S

        def write(conn: Connection) -> tuple[list[tuple[int, str]], int]:
            inbox_sql.renew(conn, self.owner, until)
            owners = inbox_sql.open_owners(conn, now)
            dead = [o for o in owners if owner_dead(o, self.owner)]
            processes = lease_sql.live_processes(
                conn, self.owner, now, until, lambda o: owner_dead(o, self.owner)
            )
            return inbox_sql.claim(conn, self.owner, now, until, dead), processes

        rows, processes = await self.db.write(write)
        if processes != self.processes:
            self.processes = processes
            if self.on_processes is not None:
                self.on_processes(processes)
        claimed = [json.loads(payload) for _, payload in rows]
        if len(self.replayed) > REPLAYED_KEPT:
            self.replayed.clear()
            self.replayed_taps.clear()
        self.replayed.update(update_id for update_id, _ in rows)
        for update in claimed:
            tap = update.get("callback_query") if isinstance(update, dict) else None
            if isinstance(tap, dict) and isinstance(tap.get("id"), str):
                self.replayed_taps.add(tap["id"])
        return claimed

    async def sweep_forever(self, deliver: Callable[[list[dict[str, Any]]], None]) -> None:
        """`sweep` every SWEEP_S, handing what it claimed to `deliver` (the update queue)."""
        while True:
            try:
                claimed = await self.sweep()
            except Exception as err:  # the database is away: try again on the next round
                log.warning("inbox: leases not renewed, nothing claimed: %s", err)
            else:
                if claimed:
                    log.info("inbox: %d updates nobody was handling are handled now", len(claimed))
                    deliver(claimed)
            await asyncio.sleep(SWEEP_S)


class InboxRequest(BaseRequest):
    """The getUpdates request with the inbox behind it: each fetched batch is stored before
    PTB sees it; updates stored before are noted in `Inbox.seen_before`, so that the processor
    drops them. Other calls pass through."""

    def __init__(self, inner: BaseRequest) -> None:
        self.inner = inner
        self.inbox: Inbox | None = None  # set once the database is open

    @property
    def read_timeout(self) -> float | None:
        """The wrapped request's."""
        return self.inner.read_timeout

    async def initialize(self) -> None:
        """Initialize the wrapped request."""
        await self.inner.initialize()

    async def shutdown(self) -> None:
        """Shut the wrapped request down."""
        await self.inner.shutdown()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """The wrapped call; a getUpdates answer is stored on its way back."""
        status, body = await self.inner.do_request(
            url, method, request_data, read_timeout, write_timeout, connect_timeout, pool_timeout
        )
        inbox = self.inbox
        if inbox is None or status != 200 or not url.endswith("/getUpdates"):
            return status, body
        return status, await self._stored(inbox, body)

    @staticmethod
    async def _stored(inbox: Inbox, body: bytes) -> bytes:
        reply = json.loads(body)
        updates = reply.get("result") if isinstance(reply, dict) else None
        if not reply.get("ok") or not isinstance(updates, list) or not updates:
            return body
        pairs = [(int(u["update_id"]), json.dumps(u, ensure_ascii=False)) for u in updates]
        # A failure here raises into PTB's polling loop, which retries the same getUpdates:
        # nothing is confirmed that was not stored.
        try:
            fresh = await inbox.receive(pairs)
        except Exception:
            inbox.unsaved([u for u in updates if isinstance(u, dict)])
            raise
        # Updates stored before (fetched again after a crash, handled from the inbox) go on to
        # PTB, so that its next offset confirms them, and are dropped by the processor.
        inbox.seen_before.update(i for i, _ in pairs if i not in fresh)
        return body


class InboxProcessor(SimpleUpdateProcessor):
    """PTB's update processor (32 at once), marking each update done once handled.

    Updates of one sender are handled one after the other, in the order they came: with
    concurrent handling, a learner's "toggle C" could be recorded after their "Submit" and
    the submit refused. Different senders still run side by side."""

    def __init__(self, max_concurrent_updates: int) -> None:
        super().__init__(max_concurrent_updates)
        self.inbox: Inbox | None = None  # set once the database is open
        self._senders: dict[int, tuple[asyncio.Lock, int]] = {}  # lock, updates holding it

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        sender = _sender(update)
        if sender is None:
            await self._handle(update, coroutine)
            return
        lock, users = self._senders.get(sender, (asyncio.Lock(), 0))
        self._senders[sender] = (lock, users + 1)
        try:
            async with lock:  # asyncio's locks wake their waiters first come, first served
                await self._handle(update, coroutine)
        finally:
            lock, users = self._senders[sender]
            if users == 1:
                del self._senders[sender]
            else:
                self._senders[sender] = (lock, users - 1)

    async def _handle(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Handle the update (unless the inbox has it already), then mark it done."""
        inbox = self.inbox
        if inbox is not None and isinstance(update, Update):
            if update.update_id in inbox.seen_before:
                inbox.seen_before.discard(update.update_id)
                if isinstance(coroutine, Coroutine):
                    coroutine.close()
                return
            await coroutine
            inbox.handled(update.update_id)
            return
        await coroutine


def _sender(update: object) -> int | None:
    """Whose updates must keep their order: the user's, else the chat's (a channel post)."""
    if not isinstance(update, Update):
        return None
    if update.effective_user is not None:
        return update.effective_user.id
    return update.effective_chat.id if update.effective_chat is not None else None
