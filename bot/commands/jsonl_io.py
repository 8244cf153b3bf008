"""`quizbot play --jsonl` on streams: read a request line, write its reply line, flush, repeat.

The protocol itself (parse, service call, reply) is `bot.commands.jsonl`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import logging
import random
import sys
from pathlib import Path
from typing import TextIO

from bot.commands.jsonl import JsonlSession, error
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock, SystemClock
from bot.practice.readiness_service import ReadinessService
from bot.practice.service import PracticeService
from bot.storage.db import DatabaseBusy
from bot.storage.inline_db import InlineDatabase
from bot.storage.memory_cache import MemoryCache

log = logging.getLogger(__name__)


async def serve(session: JsonlSession, stdin: TextIO, out: TextIO) -> int:
    """Answer each line of stdin with one line on out until EOF."""
    while True:
        line = stdin.readline()
        if not line:
            return 0
        try:
            reply = await session.handle(line)
        except DatabaseBusy:
            reply = error("the database is busy (another process holds its write lock); try again")
        except Exception as err:  # a bug or a broken database: say so, keep serving
            log.exception("request failed: %s", line.strip()[:200])
            reply = error(f"internal error: {err}")
        out.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n")
        out.flush()


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
    async with InlineDatabase(db_path) as db:
        now = clock or SystemClock()
        # The only writer of its learners in this process: their memory states stay at hand
        # between picks (checked against other writers in every transaction).
        service = PracticeService(
            db, catalog, clock=now, rng=random.Random(seed), memory_cache=MemoryCache()
        )
        readiness = ReadinessService(db, catalog, clock=now)
        session = JsonlSession(service, readiness, catalog.bank(bank_id), clock)
        return await serve(session, stdin, out)


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
