"""Parse many question files on two cores: the loading process and one helper share the work.

YAML parsing is nearly all of a cold load, and one process uses one core. Above
PARALLEL_MIN_FILES files a helper process is started; both take chunks of files from a shared
counter (whoever is faster takes more, so a slow start of the helper costs nothing but its own
time), and the helper sends its questions back as JSON, which the loader reads back through
pydantic-core in a tenth of the time the parse took. Anything wrong with the helper (it cannot
start, dies, or hangs) only means the loader parses those chunks itself.

The helper is forked when the loader runs in a process with a single thread (the start of
`quizbot run`, `quizbot validate`): that costs a few milliseconds. With other threads running
(a reload inside the bot) forking is unsafe, so it is spawned, which costs an interpreter start
and the imports (~0.3 s of the other core's time).
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.bank.models import FROM_CACHE, Question
from bot.bank.parsing import FileResult, parse_questions
from bot.bank.problems import Problem

if TYPE_CHECKING:
    from multiprocessing.context import ForkContext, SpawnContext
    from multiprocessing.process import BaseProcess

# Below this many files to parse, a helper's start and the hand-back cost more than they save.
PARALLEL_MIN_FILES = 1_000
CHUNK_FILES = 100
# How long the loader waits for a helper that has stopped sending before it parses its part.
STALL_SECONDS = 30.0

# A question file's outcome as the helper sends it: the question as JSON, problems, digest.
Shipped = tuple[bytes | None, list[Problem], str | None]


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _context() -> ForkContext | SpawnContext:
    import multiprocessing

    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def parse_files(
    paths: Sequence[Path], digests: Sequence[bool] = (), *, keep_json: bool = False
) -> list[FileResult]:
    """`parse_questions` over `paths`, on two cores when there are many files; `keep_json`
    keeps the JSON of questions a helper sent (for the bank cache) in their results."""
    if len(paths) < PARALLEL_MIN_FILES or _cores() < 2:
        return _in_chunks(paths, digests)
    # Imported only here: most loads are small or come from the cache (~30 ms saved).
    import multiprocessing

    if multiprocessing.parent_process() is not None:  # a helper starts no helpers of its own
        return _in_chunks(paths, digests)
    return _Shared(paths, digests, keep_json).run()


def _in_chunks(paths: Sequence[Path], digests: Sequence[bool]) -> list[FileResult]:
    # A chunk's sources and parse trees wait for one validation call: chunks keep that small.
    results: list[FileResult] = []
    for start in range(0, len(paths), CHUNK_FILES):
        end = start + CHUNK_FILES
        results.extend(parse_questions(paths[start:end], digests[start:end]))
    return results


def _claim(counter: Any, chunks: int) -> int | None:
    """The next chunk nobody has taken yet, or None when all are taken."""
    lock = counter.get_lock()
    # A helper killed while holding the lock must not hang the loader: it parses the rest.
    if not lock.acquire(timeout=STALL_SECONDS):
        return None
    try:
        index = int(counter.value)
        if index >= chunks:
            return None
        counter.value = index + 1
        return index
    finally:
        lock.release()


def _ship(result: FileResult) -> Shipped:
    question = result.question
    raw = None if question is None else question.model_dump_json(exclude_defaults=True).encode()
    return raw, result.problems, result.sha256


def _helper(
    paths: Sequence[Path], digests: Sequence[bool], size: int, counter: Any, out: Any
) -> None:
    """The helper process: parse chunks of `size` files until none is left, sending each."""
    # Everything it builds stays alive until it exits: the cyclic collector would find nothing.
    gc.disable()
    chunks = -(-len(paths) // size)
    while (index := _claim(counter, chunks)) is not None:
        start, end = index * size, (index + 1) * size
        shipped = [_ship(r) for r in parse_questions(paths[start:end], digests[start:end])]
        out.put((index, shipped))
    out.put(None)


class _Shared:
    """One parse shared by this process and a helper process."""

    def __init__(self, paths: Sequence[Path], digests: Sequence[bool], keep_json: bool) -> None:
        self.paths = list(paths)
        self.digests = list(digests)
        self.keep_json = keep_json
        self.size = CHUNK_FILES
        self.chunks = -(-len(self.paths) // self.size)
        self.done: dict[int, list[FileResult]] = {}

    def _parse(self, index: int) -> list[FileResult]:
        start, end = index * self.size, (index + 1) * self.size
        return parse_questions(self.paths[start:end], self.digests[start:end])

    def _receive(self, item: tuple[int, list[Shipped]]) -> None:
        index, shipped = item
        self.done[index] = [
            FileResult(
                None
                if raw is None
                # Checked in full by the helper; read back like the bank cache's questions.
                else Question.model_validate_json(raw, context=FROM_CACHE),
                problems,
                sha,
                raw if self.keep_json else None,
            )
            for raw, problems, sha in shipped
        ]

    def run(self) -> list[FileResult]:
        import pickle

        context = _context()
        counter = context.Value("i", 0)
        out = context.Queue()
        process = context.Process(
            target=_helper,
            args=(self.paths, self.digests, self.size, counter, out),
            name="quizbot-bank-parse",
            daemon=True,
        )
        helper: BaseProcess | None = process
        try:
            process.start()
        except (OSError, RuntimeError, TypeError, ValueError, pickle.PicklingError):
            helper = None  # no helper then: this process parses everything
        try:
            self._share(counter, out, helper)
        finally:
            if helper is not None:
                helper.join(1.0)
                if helper.is_alive():
                    helper.kill()
                    helper.join()
            out.close()
        for index in range(self.chunks):
            if index not in self.done:  # the helper's, had it died or hung
                self.done[index] = self._parse(index)
        return [r for i in range(self.chunks) for r in self.done[i]]

    def _share(self, counter: Any, out: Any, helper: BaseProcess | None) -> None:
        import queue

        finished = helper is None
        while (index := _claim(counter, self.chunks)) is not None:
            self.done[index] = self._parse(index)
            # Read back what the helper sent meanwhile, so little is left for the end.
            while not finished:
                try:
                    item = out.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    finished = True
                else:
                    self._receive(item)
        stalled_at = time.monotonic() + STALL_SECONDS
        while not finished:
            try:
                # Short waits: a helper that dies while one runs is noticed in 0.1 s, not 30.
                item = out.get(timeout=0.1)
            except queue.Empty:
                dead = helper is None or not helper.is_alive()
                if dead or time.monotonic() >= stalled_at:
                    return  # dead or stuck: its chunks are parsed by the caller
                continue
            stalled_at = time.monotonic() + STALL_SECONDS
            if item is None:
                finished = True
            else:
                self._receive(item)
