"""Limits of the webhook server that hold whatever sits in front of it (a proxy or nothing):
connection cap, header/body timeouts, body size, a bounded backlog, recent update_id dedupe,
and logs that cannot flood the disk.

Why these numbers: a Telegram update is a few KB (a 4096-character message with entities,
a poll, a callback with its message) — 256 KiB is generous and stops a 4 MB post at once.
Telegram opens at most `max_connections` (default 40) connections to a webhook; 256 leaves
room for health checks and a proxy's keep-alive pool and stays far below the usual 1,024
file descriptors, so a flood of half-open connections meets our cap, not the process's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from typing import Any

from tornado import iostream
from tornado.httpserver import HTTPServer

MAX_BODY_BYTES = 256 * 1024
MAX_HEADER_BYTES = 16 * 1024
HEADER_TIMEOUT_S = 10.0  # all headers within this (also the idle keep-alive limit)
BODY_TIMEOUT_S = 10.0
MAX_CONNECTIONS = 256
# Updates acknowledged (200) whose handler has not finished (queued, waiting for one of the 32
# update slots, or running): what a kill -9 can lose. Past it the server answers 503 and
# Telegram delivers the update again later. 96 = the 32 slots' worth three times over.
MAX_BACKLOG = 96
RECENT_UPDATE_IDS = 4096
LOG_EVERY_S = 10.0


class CappedHTTPServer(HTTPServer):
    """Tornado's HTTP server with a cap on open connections: one over the cap is closed at
    once (no file descriptor is held for it), and counted."""

    def __init__(self, *args: Any, max_connections: int = MAX_CONNECTIONS, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_connections = max_connections
        self._streams: set[iostream.IOStream] = set()
        self.refused_connections = 0
        self.last_refused_at: float | None = None
        self.on_refused = RateLimitedLog(logging.getLogger(__name__))

    @property
    def open_connections(self) -> int:
        """Connections open now."""
        # The HTTP connection owns the stream's close callback, so closed ones are pruned
        # here instead (at most MAX_CONNECTIONS to look at, once per accepted connection).
        self._streams = {s for s in self._streams if not s.closed()}
        return len(self._streams)

    def handle_stream(self, stream: iostream.IOStream, address: tuple[Any, ...]) -> None:
        """Count the connection; over the cap, close it before reading anything."""
        if self.open_connections >= self.max_connections:
            self.refused_connections += 1
            self.last_refused_at = time.monotonic()
            self.on_refused.log(
                "webhook: %d connections open, the cap: refusing new ones", self.open_connections
            )
            stream.close()
            return
        self._streams.add(stream)
        super().handle_stream(stream, address)


class RateLimitedLog:
    """At most one line per LOG_EVERY_S for one kind of event; the next line says how many
    were held back (a flood of bad requests must not become a flood of log lines)."""

    def __init__(
        self, logger: logging.Logger, every: float = LOG_EVERY_S, level: int = logging.WARNING
    ) -> None:
        self.logger = logger
        self.every = every
        self.level = level
        self._last = -float("inf")
        self._held = 0

    def log(self, msg: str, *args: object) -> None:
        """Log now, or count it for the next line."""
        now = time.monotonic()
        if now - self._last < self.every:
            self._held += 1
            return
        if self._held:
            msg += f" (and {self._held} more like it held back)"
        self._last, self._held = now, 0
        self.logger.log(self.level, msg, *args)


class RecentIds:
    """The last RECENT_UPDATE_IDS update_ids seen: Telegram (or a replaying client) posting the
    same update again gets 200 and is not handled twice."""

    def __init__(self, size: int = RECENT_UPDATE_IDS) -> None:
        self.size = size
        self._seen: OrderedDict[int, None] = OrderedDict()

    def seen(self, update_id: int) -> bool:
        """True if already seen; remembers it otherwise."""
        if update_id in self._seen:
            return True
        self._seen[update_id] = None
        if len(self._seen) > self.size:
            self._seen.popitem(last=False)
        return False

    def forget(self, update_id: int) -> None:
        """Not seen after all (it was refused): its next delivery is handled."""
        self._seen.pop(update_id, None)


class CountingQueue(asyncio.Queue[object]):
    """The Application's update queue, counting updates put and not yet done: PTB takes each
    update off the queue at once into a task that waits for an update slot, so the queue's
    size says nothing; `task_done()` comes only when the handler has finished.

    `put` waits while `limit` updates are unfinished. In polling mode that holds the Updater
    before its next getUpdates, and that call is what confirms the previous batch to Telegram:
    so at most `limit` confirmed updates are unhandled at any time (what a kill -9 can lose),
    instead of everything fetched while handlers were slow.
    """

    def __init__(self, limit: int = MAX_BACKLOG) -> None:
        super().__init__()
        self.limit = limit
        self.unfinished = 0
        self._room = asyncio.Event()

    async def put(self, item: object) -> None:
        """Queue an update once fewer than `limit` are unfinished."""
        while self.unfinished >= self.limit:
            self._room.clear()
            await self._room.wait()
        self.put_nowait(item)

    def put_nowait(self, item: object) -> None:
        """Queue an update now (a stop marker, or after put's wait)."""
        super().put_nowait(item)
        self.unfinished += 1

    def task_done(self) -> None:
        """An update's handling finished."""
        super().task_done()
        self.unfinished -= 1
        self._room.set()
