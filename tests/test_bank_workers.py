"""Parsing on two cores gives exactly what one process gives, helper trouble included."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from bot.bank import workers
from bot.bank.loader import LoadResult, load_banks
from tests.bench.bench_bank import generate

QUESTIONS = 40


def broken_bank(root: Path) -> Path:
    """A generated bank with a few files broken in different ways."""
    bank = generate(root, QUESTIONS)
    part = bank / "part-000"
    (part / "q00003.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    (part / "q00011.yaml").write_text("- a list\n", encoding="utf-8")
    text = (part / "q00017.yaml").read_text(encoding="utf-8")
    (part / "q00017.yaml").write_text(text.replace("correct: true", "correct: yes-ish"))
    text = (part / "q00029.yaml").read_text(encoding="utf-8")
    (part / "q00029.yaml").write_text(text.replace("topic: ", "topic: undeclared-"))
    (part / "q00033.yaml").write_bytes(b"id: caf\xe9\n")
    return bank


def in_one_process(bank: Path, monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> LoadResult:
    with monkeypatch.context() as m:
        m.setattr(workers, "PARALLEL_MIN_FILES", 10**9)
        return load_banks([bank], **kwargs)


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every parse of two files or more is shared with a helper, in chunks of three files."""
    monkeypatch.setattr(workers, "PARALLEL_MIN_FILES", 2)
    monkeypatch.setattr(workers, "CHUNK_FILES", 3)
    monkeypatch.setattr(workers, "_cores", lambda: 2)


def same(a: LoadResult, b: LoadResult) -> None:
    assert [str(p) for p in a.problems] == [str(p) for p in b.problems]
    assert a.banks == b.banks and a.files == b.files


@pytest.mark.usefixtures("shared")
def test_a_shared_parse_reports_every_problem_as_one_process_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = broken_bank(tmp_path)
    parallel = load_banks([bank])
    alone = in_one_process(bank, monkeypatch)
    same(parallel, alone)
    text = "\n".join(str(p) for p in parallel.problems)
    # Each broken file is named with its line, question and field where it has them.
    assert "q00003.yaml:2: -: -: YAML syntax" in text
    assert "q00011.yaml:1: -: -: question file is a list" in text
    assert "q00017.yaml:16: bench-00017: options.1.correct: Input should be a valid bool" in text
    assert "q00029.yaml:3: bench-00029: topic: topic 'undeclared-" in text
    assert "q00033.yaml:1: -: -: not UTF-8" in text


@pytest.mark.usefixtures("shared")
def test_a_shared_parse_fills_the_cache_that_the_next_load_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = generate(tmp_path, QUESTIONS)
    cache = tmp_path / "bot.sqlite3-banks"
    # Files just written carry their digest in the cache: the helper computes it.
    first = load_banks([bank], cache)
    assert not first.problems and len(first.banks["bench"].questions) == QUESTIONS
    assert cache.stat().st_size > 0
    written = cache.read_bytes()
    warm = in_one_process(bank, monkeypatch, cache=cache)
    same(warm, first)
    assert cache.read_bytes() == written  # nothing changed, nothing rewritten
    assert written.count(b'"sha256":"') == QUESTIONS + 1  # each entry's digest, the trailer
    # Lines built around the helper's JSON are the lines this process would have written.
    alone = tmp_path / "alone.sqlite3-banks"
    in_one_process(bank, monkeypatch, cache=alone)
    assert alone.read_bytes() == written


@pytest.mark.usefixtures("shared")
def test_a_spawned_helper_gives_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Inside the bot, other threads run and the helper is spawned rather than forked.
    monkeypatch.setattr(workers, "_context", lambda: multiprocessing.get_context("spawn"))
    bank = broken_bank(tmp_path)
    same(load_banks([bank]), in_one_process(bank, monkeypatch))


def dying_helper(paths: Any, digests: Any, size: int, counter: Any, out: Any) -> None:
    """A helper that takes a chunk and dies before sending it."""
    workers._claim(counter, -(-len(paths) // size))
    os._exit(3)


@pytest.mark.usefixtures("shared")
def test_the_chunks_of_a_helper_that_dies_are_parsed_by_the_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers, "_helper", dying_helper)
    bank = broken_bank(tmp_path)
    same(load_banks([bank]), in_one_process(bank, monkeypatch))
