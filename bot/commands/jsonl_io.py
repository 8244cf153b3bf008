"""`quizbot play --jsonl` on streams: read request lines, write one reply line each, flush.

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

from bot.commands.interrupt import read_line
from bot.commands.jsonl import JsonlSession, Reply, error
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock, SystemClock
from bot.practice.core import Core, open_core
from bot.storage.port import DatabaseBusy

log = logging.getLogger(__name__)
# What json.dumps(reply, ensure_ascii=False, separators=(",", ":")) writes, without building
# an encoder for every reply (dumps does when given any option).
encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


async def serve(session: JsonlSession, stdin: TextIO, out: TextIO) -> int:
    """Answer each line of stdin with one line on out, in order, until EOF."""
    while line := read_line(stdin):
        out.write(encode(await answer(session, line)) + "\n")
        out.flush()
    return 0


async def answer(session: JsonlSession, line: str) -> Reply:
    """The reply to one line, whatever goes wrong."""
    try:
        return await session.handle(line)
    except DatabaseBusy:
        return error("the database is busy (another process holds its write lock); try again")
    except Exception as err:  # a bug or a broken database: say so, keep serving
        log.exception("request failed: %s", line.strip()[:200])
        return error(f"internal error: {err}")


async def play_jsonl(
    catalog: Catalog,
    db_path: Path | str,
    bank_id: str | None,
    seed: int | None,
    start: dt.datetime | None,
    stdin: TextIO,
    out: TextIO,
) -> int:
    """Open the database and serve requests until EOF, on explicit streams for tests."""
    clock = FakeClock(start) if start is not None else None
    async with open_core(
        catalog, db_path, clock=clock or SystemClock(), rng=random.Random(seed)
    ) as core:
        return await serve(new_session(core, bank_id, clock), stdin, out)


def new_session(core: Core, bank_id: str | None, clock: FakeClock | None) -> JsonlSession:
    """The program's session over open services (`clock`: the simulated one, if any)."""
    bank = core.catalog.bank(bank_id)
    return JsonlSession(core.practice, core.readiness, bank, clock, core.fits)


def run_jsonl(
    catalog: Catalog,
    db_path: Path | str,
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
