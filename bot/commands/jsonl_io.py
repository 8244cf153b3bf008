"""`quizbot play --jsonl` on streams: read request lines, write one reply line each, flush.

The protocol itself (parse, service call, reply) is `bot.commands.jsonl`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import logging
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from bot.commands.jsonl import JsonlSession, Reply, error
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock, SystemClock
from bot.practice.readiness_service import ReadinessService
from bot.practice.service import PracticeService
from bot.storage.db import DatabaseBusy
from bot.storage.inline_db import BatchFailed, InlineDatabase
from bot.storage.memory_cache import MemoryCache

log = logging.getLogger(__name__)
READ_SIZE = 1 << 16  # bytes of requests read at once: up to some hundreds of lines a batch
# What json.dumps(reply, ensure_ascii=False, separators=(",", ":")) writes, without building
# an encoder for every reply (dumps does when given any option).
encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


async def serve(session: JsonlSession, stdin: TextIO, out: TextIO) -> int:
    """Answer each line of stdin with one line on out, in order, until EOF.

    Lines that arrived together (a client that sends several requests before it reads the
    replies) are served in one transaction, their replies written once it is committed.
    """
    db = session.service.db
    for lines in request_batches(stdin):
        if len(lines) > 1 and isinstance(db, InlineDatabase):
            replies = await answer_batch(session, db, lines)
        else:
            replies = [await answer(session, line) for line in lines]
        # Replies to lines that came together leave together: one write, one flush (a flush
        # per line cost a system call each, and no reply waits in a buffer either way).
        out.write("".join([encode(reply) + "\n" for reply in replies]))
        out.flush()
    return 0


def request_batches(stdin: TextIO) -> Iterator[list[str]]:
    """Request lines as they come: every complete line already sent, together (one line at
    a time from a stream without a file descriptor)."""
    try:
        fd = stdin.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        while line := stdin.readline():
            yield [line]
        return
    pending = bytearray()
    while chunk := os.read(fd, READ_SIZE):
        pending += chunk
        end = pending.rfind(b"\n") + 1
        if end:
            # Split at newline bytes, which never occur inside a UTF-8 character: decoding
            # line by line gives what decoding the stream would.
            text = pending[:end].decode("utf-8", errors="replace")
            del pending[:end]
            # Not str.splitlines: it also splits at \r, \u2028 and more, which JSON allows.
            yield [line + "\n" for line in text[:-1].split("\n")]
    if pending:
        yield [pending.decode("utf-8", errors="replace")]  # the last line, without a newline


async def answer(session: JsonlSession, line: str) -> Reply:
    """The reply to one line, whatever goes wrong."""
    try:
        return await session.handle(line)
    except DatabaseBusy:
        return error("the database is busy (another process holds its write lock); try again")
    except Exception as err:  # a bug or a broken database: say so, keep serving
        log.exception("request failed: %s", line.strip()[:200])
        return error(f"internal error: {err}")


async def answer_batch(session: JsonlSession, db: InlineDatabase, lines: list[str]) -> list[Reply]:
    """The replies to lines served in one transaction (group commit).

    The batch runs first without a savepoint per request. If a request's write raises, its
    partial work is in the transaction: the batch is rolled back, the session put back where
    it was (its random draws and simulated clock included, so the replies are the same), and
    the batch served again with a savepoint per request, which undoes only that one's work.
    """
    mark = session.mark()
    try:
        return await _serve_batch(session, db, lines, savepoints=False)
    except BatchFailed:
        session.rewind(mark)
    return await _serve_batch(session, db, lines, savepoints=True)


async def _serve_batch(
    session: JsonlSession, db: InlineDatabase, lines: list[str], *, savepoints: bool
) -> list[Reply]:
    replies: list[Reply] = []
    try:
        with db.batch(savepoints=savepoints):
            for line in lines:
                replies.append(await answer(session, line))
                if db.batch_failed:
                    break  # all of it is rolled back and served again
        return replies
    except BatchFailed:
        raise
    except DatabaseBusy:
        message = "the database is busy (another process holds its write lock); try again"
    except Exception as err:  # the commit failed: none of the batch's writes happened
        log.exception("a batch of %d requests failed", len(lines))
        message = f"internal error: {err}"
    session.forget()
    # The simulated clock is no database write: an advance stands.
    kept = [r if r["type"] == "clock" else error(message) for r in replies]
    return kept + [error(message)] * (len(lines) - len(replies))


async def play_jsonl(
    catalog: Catalog,
    db_path: Path,
    bank_id: str | None,
    seed: int | None,
    start: dt.datetime | None,
    stdin: TextIO,
    out: TextIO,
) -> int:
    """Open the database and serve requests until EOF, on explicit streams for tests."""
    clock = FakeClock(start) if start is not None else None
    # One client, nothing else on the loop: transactions run on this thread (no hand-off).
    db = InlineDatabase(db_path)
    async with db:
        return await serve(new_session(db, catalog, bank_id, seed, clock), stdin, out)


def new_session(
    db: InlineDatabase,
    catalog: Catalog,
    bank_id: str | None,
    seed: int | None,
    clock: FakeClock | None,
) -> JsonlSession:
    """The program's session on an open database (the wall clock without `clock`)."""
    now = clock or SystemClock()
    # The only writer of its learners in this process: their memory states stay at hand
    # between picks (checked against other writers in every transaction).
    service = PracticeService(
        db, catalog, clock=now, rng=random.Random(seed), memory_cache=MemoryCache()
    )
    readiness = ReadinessService(db, catalog, clock=now)
    return JsonlSession(service, readiness, catalog.bank(bank_id), clock)


def run_jsonl(
    catalog: Catalog,
    db_path: Path,
    bank_id: str | None,
    seed: int | None,
    start: dt.datetime | None,
) -> int:
    """`quizbot play --jsonl` on the process's stdin and stdout."""
    # UTF-8 whatever the locale says; a byte that is not UTF-8 becomes U+FFFD rather than
    # ending the run.
    stdin, stdout = sys.stdin, sys.stdout
    if isinstance(stdin, io.TextIOWrapper):
        stdin.reconfigure(encoding="utf-8", errors="replace")
    if isinstance(stdout, io.TextIOWrapper):
        stdout.reconfigure(encoding="utf-8")
    return asyncio.run(play_jsonl(catalog, db_path, bank_id, seed, start, stdin, stdout))
