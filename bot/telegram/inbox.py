"""The durable inbox: an update is in the database before Telegram is told it arrived.

Telegram forgets an update once it is acknowledged: by the webhook's 200, or in polling by the
next getUpdates, whose offset confirms everything before it. A bot killed between that and the
end of the update's handling lost the learner's tap. So:
- polling: the getUpdates request (`InboxRequest`, wrapping the real one) stores the batch it
  fetched in one transaction before PTB sees it, so it is stored before the next getUpdates can
  confirm it; updates stored before (a batch fetched again after a crash) are dropped there;
- webhook: the handler stores the update before it answers 200 (`Inbox.receive`);
- once handled (`InboxProcessor`, PTB's update processor), an update is marked done, in
  batches; at start-up, what was stored and not handled is handled (`Inbox.unhandled`).
A crash after the handling and before its done mark handles the update again: answers count
once (one per learner and delivery), so a tap is not counted twice.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Coroutine
from typing import Any

from telegram import Update
from telegram.ext import SimpleUpdateProcessor
from telegram.request import BaseRequest, RequestData

from bot.practice.clock import Clock
from bot.storage import inbox_sql
from bot.storage.port import Connection, Store

log = logging.getLogger(__name__)
DONE_FLUSH_S = 1.0  # done marks wait at most this long to share a transaction
KEEP_DONE_S = 86400.0  # Telegram re-sends an update for up to a day at most


class Inbox:
    """Updates stored as they arrive and marked done once handled."""

    def __init__(self, db: Store, clock: Clock) -> None:
        self.db = db
        self.clock = clock
        self._done: list[int] = []
        self._flush: asyncio.Task[None] | None = None
        self.seen_before: set[int] = set()  # fetched again: not to be handled twice

    async def receive(self, updates: list[tuple[int, str]]) -> set[int]:
        """Store (update_id, JSON) pairs durably; the ids not stored before."""
        if not updates:
            return set()
        now = self.clock.now()
        return set(await self.db.write(lambda c: inbox_sql.receive(c, updates, now)))

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
        """Stop the timer and write what is pending."""
        if self._flush is not None and not self._flush.done():
            self._flush.cancel()
            await asyncio.gather(self._flush, return_exceptions=True)
        await self.flush()

    async def unhandled(self) -> list[dict[str, Any]]:
        """Updates stored and not handled before the last stop, oldest first."""
        rows = await self.db.read(inbox_sql.unhandled)
        return [json.loads(payload) for _, payload in rows]


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
        fresh = await inbox.receive(pairs)
        # Updates stored before (fetched again after a crash, handled from the inbox) go on to
        # PTB, so that its next offset confirms them, and are dropped by the processor.
        inbox.seen_before.update(i for i, _ in pairs if i not in fresh)
        return body


class InboxProcessor(SimpleUpdateProcessor):
    """PTB's update processor (32 at once), marking each update done once handled."""

    def __init__(self, max_concurrent_updates: int) -> None:
        super().__init__(max_concurrent_updates)
        self.inbox: Inbox | None = None  # set once the database is open

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
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
