"""The bank cache: unchanged files come from it, a change is always seen, damage is survived."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import pytest

from bot.bank import cache as bank_cache
from bot.bank import yaml_load
from bot.bank.cache import cache_path
from bot.bank.loader import LoadResult, _load_banks, load_banks
from bot.config import BUNDLED_QUESTIONS
from bot.practice.catalog import Catalog
from bot.telegram.reload import reload_catalog
from tests import sample_bank
from tests.ops_support import write_bank

HOUR_NS = 3600 * 10**9


class Parses:
    """Counts the YAML files actually parsed (a cache hit parses none)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = yaml_load.load

        def counting(source: bytes | str) -> object:
            self.count += 1
            return real(source)

        monkeypatch.setattr(yaml_load, "load", counting)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Parses:
    return Parses(monkeypatch)


def demo(tmp_path: Path) -> Path:
    """The sample bank on disk (bank.yaml and 5 question files); returns the bank folder."""
    return write_bank(tmp_path / "banks", sample_bank.bank()) / "demo"


def age(folder: Path, seconds: float = 3600) -> None:
    """Date every file back, as files that were not just edited are."""
    past = time.time() - seconds
    for path in folder.rglob("*.yaml"):
        os.utime(path, (past, past))


def stems(result: LoadResult) -> dict[str, str]:
    return {qid: q.stem for qid, q in result.banks["demo"].questions.items()}


def test_a_warm_load_parses_only_bank_yaml_and_equals_a_fresh_one(
    tmp_path: Path, parses: Parses
) -> None:
    cache = tmp_path / "bot.sqlite3-banks"
    fresh = load_banks([BUNDLED_QUESTIONS])
    cold = load_banks([BUNDLED_QUESTIONS], cache)
    assert cache.is_file()
    parses.count = 0
    warm = load_banks([BUNDLED_QUESTIONS], cache)
    assert parses.count == 1  # bank.yaml only; 160 questions from the cache
    assert not warm.problems and warm.banks == cold.banks == fresh.banks
    assert warm.files == fresh.files and warm.folders == fresh.folders


def test_an_edit_of_the_same_size_right_after_the_cache_was_written_is_seen(
    tmp_path: Path, parses: Parses
) -> None:
    folder = demo(tmp_path)
    cache = cache_path(tmp_path / "bot.sqlite3")
    file = folder / "a1.yaml"
    load_banks([folder.parent], cache)
    before = file.read_text()
    after = before.replace("Stem of a1", "Stem of A1")
    assert len(after) == len(before) and after != before
    file.write_text(after)  # may well keep the same mtime_ns: a coarse timestamp tick
    parses.count = 0
    result = load_banks([folder.parent], cache)
    assert stems(result)["a1"].startswith("Stem of A1")
    assert parses.count == 2  # bank.yaml and the edited file


def test_a_fresh_file_is_checked_by_content_when_its_stamp_has_not_moved(tmp_path: Path) -> None:
    # A file edited twice within one timestamp tick keeps size, mtime and even ctime: the
    # entry of a file changed this recently carries its digest, checked on every load.
    folder = demo(tmp_path)
    cache = tmp_path / "bot.sqlite3-banks"
    load_banks([folder.parent], cache)
    file = folder / "a1.yaml"
    stamp = file.stat()
    assert bank_cache.BankCache(cache).folder(folder).get(file, stamp) is not None
    file.write_text(file.read_text().replace("Stem of a1", "Stem of A1"))
    assert bank_cache.BankCache(cache).folder(folder).get(file, stamp) is None


def test_an_edit_with_its_mtime_set_back_is_seen(tmp_path: Path) -> None:
    folder = demo(tmp_path)
    age(folder)  # old files: their entries carry no content digest, the stamp decides
    cache = tmp_path / "bot.sqlite3-banks"
    load_banks([folder.parent], cache)
    lines = [json.loads(line) for line in cache.read_bytes().splitlines()[1:-1]]
    (entry,) = [line["entry"] for line in lines if line["file"] == "a1.yaml"]
    assert entry["sha256"] is None
    file = folder / "a1.yaml"
    stat = file.stat()
    file.write_text(file.read_text().replace("Stem of a1", "Stem of A1"))
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size and mtime
    assert stems(load_banks([folder.parent], cache))["a1"].startswith("Stem of A1")


def test_added_removed_and_broken_files_are_seen(tmp_path: Path) -> None:
    folder = demo(tmp_path)
    cache = tmp_path / "bot.sqlite3-banks"
    load_banks([folder.parent], cache)
    (folder / "b2.yaml").unlink()
    (folder / "a9.yaml").write_text((folder / "a1.yaml").read_text().replace("id: a1", "id: a9"))
    result = load_banks([folder.parent], cache)
    assert set(result.banks["demo"].questions) == {"a1", "a2", "a3", "a9", "b1"}
    (folder / "a2.yaml").write_text("id: a2\ntopic: alpha\nstem: [unclosed\n")
    broken = load_banks([folder.parent], cache)
    assert not broken.banks and [p.file.name for p in broken.problems] == ["a2.yaml"]
    assert broken.problems[0].line is not None


def test_an_edit_rewrites_its_own_line_and_copies_the_others(
    tmp_path: Path, parses: Parses
) -> None:
    folder = demo(tmp_path)
    age(folder)
    cache = tmp_path / "bot.sqlite3-banks"
    load_banks([folder.parent], cache)
    before = cache.read_bytes().splitlines()
    file = folder / "a1.yaml"
    file.write_text(file.read_text().replace("Stem of a1", "Edited stem of a1"))
    parses.count = 0
    edited = load_banks([folder.parent], cache)
    assert parses.count == 2  # bank.yaml and the edited file
    after = cache.read_bytes().splitlines()
    new = [line for line in after[1:-1] if line not in before]
    assert len(after) == len(before) and len(new) == 1 and b'"a1.yaml"' in new[0]
    parses.count = 0
    warm = load_banks([folder.parent], cache)
    assert parses.count == 1 and warm.banks == edited.banks == load_banks([folder.parent]).banks
    assert warm.banks["demo"].questions["a1"].stem.startswith("Edited stem of a1")


def test_a_cache_replaced_during_a_load_is_not_copied_from(tmp_path: Path, parses: Parses) -> None:
    folder = demo(tmp_path)
    cache = tmp_path / "bot.sqlite3-banks"
    load_banks([folder.parent], cache)
    (folder / "b2.yaml").unlink()
    loading = bank_cache.BankCache(cache)
    result = _load_banks([folder.parent], loading)
    # Another process writes the cache meanwhile (a new file, as every writer makes one),
    # with lines of the same lengths that differ from the ones this load read.
    other = tmp_path / "other"
    other.write_bytes(cache.read_bytes().replace(b"Stem of", b"Stem 0f"))
    os.replace(other, cache)
    loading.save()
    assert b"Stem 0f" not in cache.read_bytes()
    parses.count = 0
    warm = load_banks([folder.parent], cache)
    assert parses.count == 1 and not warm.problems and warm.banks == result.banks


def test_cached_questions_still_meet_the_bank_checks_with_their_lines(tmp_path: Path) -> None:
    folder = demo(tmp_path)
    cache = tmp_path / "bot.sqlite3-banks"
    load_banks([folder.parent], cache)
    meta = folder / "bank.yaml"
    # Rename topic beta: the cached beta questions now name an undeclared topic.
    meta.write_text(meta.read_text().replace("id: beta", "id: gamma"))
    result = load_banks([folder.parent], cache)
    bad = sorted((p.file.name, p.field, p.line) for p in result.problems)
    assert bad and all(field == "topic" and line is not None for _, field, line in bad)
    assert {name for name, _, _ in bad} == {"b1.yaml", "b2.yaml"}


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: data.replace(b"Stem of", b"Stem 0f", 1),  # a changed byte
        lambda data: b"not json\n" + data,
        lambda data: b"",
        lambda data: b'{"format": 1, "code": null}',
    ],
)
def test_a_damaged_cache_is_parsed_around_with_a_warning_and_repaired(
    tmp_path: Path, parses: Parses, caplog: pytest.LogCaptureFixture, damage: object
) -> None:
    folder = demo(tmp_path)
    cache = tmp_path / "bot.sqlite3-banks"
    fresh = load_banks([folder.parent], cache)
    cache.write_bytes(damage(cache.read_bytes()))  # type: ignore[operator]
    with caplog.at_level(logging.INFO, logger="bot.bank.cache"):
        again = load_banks([folder.parent], cache)
    assert again.banks == fresh.banks and not again.problems
    assert "bank cache" in caplog.text and "parsing the question files" in caplog.text
    parses.count = 0
    load_banks([folder.parent], cache)
    assert parses.count == 1  # rewritten: whole again


def test_a_cache_from_other_code_is_not_used(
    tmp_path: Path, parses: Parses, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = demo(tmp_path)
    cache = tmp_path / "bot.sqlite3-banks"
    load_banks([folder.parent], cache)
    monkeypatch.setattr(bank_cache, "CACHE_FORMAT", bank_cache.CACHE_FORMAT + 1)
    parses.count = 0
    load_banks([folder.parent], cache)
    assert parses.count == 6


def test_an_unwritable_cache_only_costs_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = demo(tmp_path)
    cache = tmp_path / "no-such-folder" / "bot.sqlite3-banks"
    with caplog.at_level(logging.WARNING, logger="bot.bank.cache"):
        result = load_banks([folder.parent], cache)
    assert len(result.banks["demo"].questions) == 5 and not result.problems
    assert "not written" in caplog.text
    assert not list(tmp_path.glob("**/*.tmp"))


def test_read_only_use_leaves_no_file(tmp_path: Path) -> None:
    folder = demo(tmp_path)
    cache = tmp_path / "bot.sqlite3-banks"
    assert len(load_banks([folder.parent], cache, write=False).banks["demo"].questions) == 5
    assert not cache.exists()


async def test_reload_through_the_cache_sees_an_edit(tmp_path: Path) -> None:
    folder = demo(tmp_path)
    cache = tmp_path / "bot.sqlite3-banks"
    catalog = Catalog(load_banks([folder.parent], cache).banks)
    file = folder / "b1.yaml"
    file.write_text(file.read_text().replace("Stem of b1", "Stem of B1"))
    outcome = await reload_catalog(catalog, [folder.parent], cache)
    assert outcome.ok and outcome.changed == 1
    assert catalog.bank("demo").questions["b1"].stem.startswith("Stem of B1")
