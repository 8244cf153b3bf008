"""WAL checkpoints away from the writer's thread.

SQLite's own automatic checkpoint runs inside the COMMIT that takes the WAL past
`wal_autocheckpoint` pages (1,000 by default): that commit syncs the WAL, copies it into the
database file and syncs that too (15-45 ms measured on a shared 2-core machine, 2 ms of it
CPU), and every write queued behind it waits. Then the first write after a complete
checkpoint starts the WAL over from its beginning and syncs the WAL's new header (~5 ms on
this machine, far more when the disk is busy): another wait, for whichever write comes next.

Here the writer checkpoints only as a backstop, when the WAL reaches `cap_pages`. A
`Checkpointer` thread with a connection of its own copies the WAL into the database file after
writes, at most once per `every` seconds: PASSIVE, it takes no write lock and never waits for a
reader, so no write waits for it. When a pass has copied every frame and no write is queued,
the writer starts the WAL over at once with a one-page write of its own (`restart_wal`), which
takes the header sync, so the next request's write does not; that write is not followed by a
pass, or its page, copied, would make the next request start the WAL over again. The WAL stays
bounded: started over after a pass that caught up, or by the backstop under writes that never
let one catch up (the backstop then copies only what came since the last pass). A reader that
holds a snapshot open keeps the frames it may need, whatever checkpoints.

A bulk writer does not leave the WAL the pauses it needs: between its transactions it asks for
a pass now and waits for it (`WalKeeper.settle`, paced by bot/storage/wal_pace.py) while other
writes go on; when writes landed during the passes, the writer copies their few pages itself
and starts the WAL over, a short hold (two or three syncs) instead of a backstop's copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)
# A pass copies at most a backstop's worth of WAL: seconds even on a busy disk.
SETTLE_WAIT_S = 10.0
# Passes a bulk writer waits for before the writer copies what writes beside it added.
SETTLE_PASSES = 2


@dataclass(frozen=True, slots=True)
class WalPolicy:
    """When the WAL is copied into the database file and started over."""

    # The writer's backstop: 16 MiB of WAL with 4 KiB pages. Under requests the background
    # passes keep the WAL far below it (next-question p99 2.4 ms with 4,096 or 16,384 pages,
    # 15 ms at SQLite's default 1,000). A sustained burst (planning a million daily pushes)
    # outruns the passes, and the backstop's copy inside a commit grows with the cap: writes
    # beside that planning waited p99 80 / 190 / 510 ms with 1,000 / 4,096 / 16,384 pages.
    # Such a writer now waits for passes instead (`burst_pages`), so it never gets here.
    cap_pages: int = 4_096
    # A WAL started over is cut back to this size on disk: the same as the cap, for cutting
    # a file back is a metadata change the journal waits for (47 ms measured, on the writer).
    kept_pages: int = 4_096
    every: float = 1.0  # at most one background checkpoint a second, and only after writes
    # A bulk writer (planning the daily push) that would take the WAL past this many pages
    # waits, between its transactions, for a pass to copy the WAL so that it starts over
    # (`WalPacer`): the backstop then never runs inside a commit. A million planned at load
    # 6-9, interleaved with the backstop alone (medians of 3): a one-row write beside it p99
    # 311 -> 52 ms, the planning's round trip p99 289 -> 56 ms, the WAL at most 29 -> 6 MB,
    # 16 % more CPU. 2,048 pages: half the waits, each twice as long, p99 no better. 0: off.
    burst_pages: int = 1_024


def configure_writer(conn: sqlite3.Connection, *, policy: WalPolicy) -> None:
    """The writer checkpoints only as a backstop, at `cap_pages` (a checkpoint thread copies
    the WAL before that); a WAL started over is cut back to `kept_pages` on disk."""
    page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    conn.execute(f"PRAGMA wal_autocheckpoint = {int(policy.cap_pages)}")
    conn.execute(f"PRAGMA journal_size_limit = {int(policy.kept_pages) * page}")


def restart_wal(conn: sqlite3.Connection) -> None:
    """A one-page write, the first after a complete checkpoint, that starts the WAL over: the
    database header's user version (unused by the migrations) set to what it is."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    conn.execute(f"PRAGMA user_version = {version}")


@dataclass(frozen=True, slots=True)
class Pass:
    """One background checkpoint: the writes it covers (`seq`, see `poke`), the WAL's frames
    and how many of them are in the database file now."""

    seq: int
    frames: int
    copied: int

    @property
    def complete(self) -> bool:
        """Every frame is in the database file: the next write may start the WAL over."""
        return self.frames > 0 and self.copied == self.frames


class Checkpointer:
    """A thread that runs PASSIVE checkpoints on its own connection after writes."""

    def __init__(
        self,
        connect: Callable[[], sqlite3.Connection],
        *,
        every: float,
        on_pass: Callable[[Pass], None] | None = None,
    ) -> None:
        self._connect = connect
        self.every = every
        self._on_pass = on_pass
        self._wake = threading.Event()
        self._hurry = threading.Event()  # a pass is wanted now, whatever the cadence
        self._stopping = threading.Event()
        self._seq = 0
        self.last: Pass | None = None
        self._thread = threading.Thread(target=self._run, name="quizbot-checkpoint", daemon=True)

    def start(self) -> None:
        """Start the thread (it opens its connection there)."""
        self._thread.start()

    @property
    def alive(self) -> bool:
        """The thread runs (it ends when stopped or when it cannot open the database)."""
        return self._thread.is_alive()

    def poke(self, seq: int) -> None:
        """Writes up to number `seq` were committed: checkpoint them soon."""
        self._seq = seq
        if not self._wake.is_set():  # set() takes a lock and notifies even when it is set
            self._wake.set()

    def hurry(self, seq: int) -> None:
        """Like `poke`, but the pass runs as soon as the one in progress (if any) is done."""
        self._seq = seq
        self._hurry.set()
        self._wake.set()

    def stop(self) -> None:
        """Stop the thread and close its connection; waits for a pass in progress (blocking)."""
        self._stopping.set()
        self._hurry.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        try:
            conn = self._connect()
        except sqlite3.Error:
            # Without it the writer's backstop still bounds the WAL.
            log.exception("checkpoint thread: cannot open the database")
            return
        try:
            while True:
                self._wake.wait()
                if self._stopping.is_set():
                    return
                self._wake.clear()
                self._hurry.clear()
                self._pass(conn)
                # The cadence bound: writes that come meanwhile wait for the next pass,
                # unless a bulk writer is waiting for one.
                self._hurry.wait(self.every)
                if self._stopping.is_set():
                    return
        finally:
            conn.close()

    def _pass(self, conn: sqlite3.Connection) -> None:
        seq = self._seq
        try:
            _busy, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as err:
            # A full disk or a failing device: SQLite's message says which, and the writes'
            # own fault line says the rest; a traceback would only repeat this line.
            log.warning("background checkpoint failed (the writer's backstop still runs): %s", err)
            return
        done = Pass(seq, int(frames), int(copied))
        self.last = done
        if self._on_pass is not None:
            self._on_pass(done)


class WalKeeper:
    """The event loop's side: counts the writer's commits, pokes the checkpoint thread, and
    starts the WAL over (through `restart`, a write) once a pass copied all of it and no
    write is queued or running. Arrivals do not care how long the writer has been idle, so
    waiting for a quiet spell would not make a write landing during the restart rarer."""

    def __init__(
        self,
        connect: Callable[[], sqlite3.Connection],
        policy: WalPolicy,
        *,
        restart: Callable[[], Awaitable[object]],
        catch_up: Callable[[], Awaitable[tuple[int, int, int]]],
        writing: Callable[[], bool],
    ) -> None:
        self.policy = policy
        self._restart = restart
        self._catch_up = catch_up
        self._writing = writing
        self._loop = asyncio.get_running_loop()
        self._commits = 0
        self._quiet = False  # the next commit is the restart write's: no pass after it
        self._restarting: asyncio.Task[None] | None = None
        self._closed = False
        # settle() callers: the commit count their pass must cover, and where to say it came.
        self._settling: list[tuple[int, asyncio.Future[Pass | None]]] = []
        self.checkpointer = Checkpointer(connect, every=policy.every, on_pass=self._passed)
        self.checkpointer.start()

    def committed(self) -> None:
        """The writer committed a transaction (called on the event loop)."""
        self._commits += 1
        if self._quiet:
            # A write that shared the restart's transaction is copied by the next pass.
            self._quiet = False
            return
        self.checkpointer.poke(self._commits)

    def _passed(self, done: Pass) -> None:
        # On the checkpoint thread: hand over to the loop, which owns the counters.
        with contextlib.suppress(RuntimeError):  # a closed loop has nothing to restart for
            self._loop.call_soon_threadsafe(self._maybe_restart)

    async def settle(self) -> Pass | None:
        """Copy the whole WAL and start it over, for a bulk writer waiting between two of its
        transactions: passes now on the checkpoint thread while other writes go on, and the
        write that starts the WAL over. None if no pass came within SETTLE_WAIT_S (the
        checkpoint thread is gone) or the keeper closed."""
        done: Pass | None = None
        for _ in range(SETTLE_PASSES):
            done = await self._pass_now()
            if done is None or self._closed:
                return None
            if done.complete and done.seq == self._commits:  # nothing written since it began
                if self._restarting is None or self._restarting.done():
                    self._quiet = True
                    self._restarting = self._loop.create_task(self._restart_wal())
                await asyncio.gather(self._restarting, return_exceptions=True)
                return done
        # Writes landed during every pass, so none could let the WAL start over: copy the
        # little they added on the writer itself, then start over there, in one hand-off.
        try:
            _busy, frames, copied = await self._catch_up()
        except sqlite3.Error:
            log.warning("could not start the WAL over after a bulk write", exc_info=True)
            return done
        return Pass(self._commits, frames, copied)

    async def _pass_now(self) -> Pass | None:
        if not self.checkpointer.alive:
            return None
        waiter: asyncio.Future[Pass | None] = self._loop.create_future()
        self._settling.append((self._commits, waiter))
        self.checkpointer.hurry(self._commits)
        try:
            return await asyncio.wait_for(waiter, SETTLE_WAIT_S)
        except TimeoutError:
            return None
        finally:
            self._settling = [(s, w) for s, w in self._settling if w is not waiter]

    def _maybe_restart(self) -> None:
        done = self.checkpointer.last
        if done is not None:
            for seq, waiter in self._settling:
                if done.seq >= seq and not waiter.done():
                    waiter.set_result(done)
        if (
            self._closed
            or done is None
            or not done.complete
            or done.seq != self._commits  # written since: the next pass will tell
            or self._writing()
            or (self._restarting is not None and not self._restarting.done())
        ):
            return
        self._quiet = True
        self._restarting = self._loop.create_task(self._restart_wal())

    async def _restart_wal(self) -> None:
        try:
            await self._restart()
        except Exception:  # a busy or failing write: the next pass tries again
            self._quiet = False
            log.warning("could not start the WAL over", exc_info=True)

    async def close(self) -> None:
        """Stop restarting and stop the checkpoint thread (after a pass in progress)."""
        self._closed = True
        for _, waiter in self._settling:
            if not waiter.done():
                waiter.set_result(None)
        if self._restarting is not None:
            await asyncio.gather(self._restarting, return_exceptions=True)
        await self._loop.run_in_executor(None, self.checkpointer.stop)
