"""Hostile or broken import files are refused with a clear message, and nothing is written:
entity bombs and external entities in XML, zip bombs and path entries in Anki packages, a
file over the size limit, invalid UTF-8."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from bot.bank.importers import safe_zip
from bot.cli import main
from tests import exchange_files as fx

MAPS = ["--map", "Question=stem", "--map", "Choices=options", "--map", "Correct=answer"]

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE quiz [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<quiz><question type="multichoice">
<questiontext><text>&lol9;</text></questiontext></question></quiz>
"""
EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<quiz><question type="multichoice">
<questiontext><text>&secret;</text></questiontext></question></quiz>
"""


def refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str, file: Path, *extra: str
) -> list[str]:
    """Run the import; assert it failed and left no bank folder; return stderr's lines."""
    out = tmp_path / "out"
    code = main(["import", fmt, str(file), "--bank", "fx", "--out", str(out), *extra])
    err = capsys.readouterr().err.splitlines()
    assert code == 1, err
    assert not out.exists()
    return err


@pytest.mark.parametrize(
    ("text", "line"), [(BILLION_LAUGHS, 2), (EXTERNAL_ENTITY, 2)], ids=["laughs", "external"]
)
def test_xml_with_a_doctype_is_refused(
    text: str, line: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "q.xml"
    file.write_text(text, encoding="utf-8")
    err = refused(capsys, tmp_path, "moodle", file)
    assert err[0] == f"{file}:{line}: a DOCTYPE declaration refused: an import file needs none"


def test_undeclared_entity_is_not_well_formed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "q.xml"
    file.write_text("<quiz>\n<question>&nope;</question></quiz>", encoding="utf-8")
    err = refused(capsys, tmp_path, "moodle", file)
    assert err[0] == f"{file}:2: not well-formed XML: undefined entity"


def test_zip_bomb_is_refused_by_its_ratio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = tmp_path / "bomb.apkg"
    with zipfile.ZipFile(deck, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("collection.anki21", bytes(20 * 1024 * 1024))
    assert deck.stat().st_size < 100_000
    err = refused(capsys, tmp_path, "anki", deck, *MAPS)
    assert err[0].startswith(f"{deck}: entry 'collection.anki21' inflates ")
    assert "a zip bomb?" in err[0]


def test_declared_size_and_entry_count_are_limited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    deck = fx.apkg(tmp_path / "deck.apkg")
    monkeypatch.setattr(safe_zip, "MAX_UNPACKED_BYTES", 1000)
    err = refused(capsys, tmp_path, "anki", deck, *MAPS)
    assert "bytes unpacked, over the 1,000 an import may hold" in err[0]
    monkeypatch.undo()
    monkeypatch.setattr(safe_zip, "MAX_ENTRIES", 1)
    err = refused(capsys, tmp_path, "anki", deck, *MAPS)
    assert err[0] == f"{deck}: 2 entries, over the 1 an import may hold"


def test_member_inflating_past_its_declared_size_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = fx.apkg(tmp_path / "deck.apkg")
    data = bytearray(deck.read_bytes())
    with zipfile.ZipFile(deck) as archive:
        entry = archive.getinfo("collection.anki21")
    real = entry.file_size.to_bytes(4, "little")
    # Declare a quarter of the real size, in the local header and the central directory.
    lie = (entry.file_size // 4).to_bytes(4, "little")
    assert data.count(real) >= 2
    deck.write_bytes(bytes(data).replace(real, lie))
    err = refused(capsys, tmp_path, "anki", deck, *MAPS)
    assert err[0].startswith(f"{deck}: entry 'collection.anki21' ")


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/evil", "media/../../x", "C:\\evil"])
def test_path_entries_are_refused(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = fx.apkg(tmp_path / "deck.apkg")
    with zipfile.ZipFile(deck, "a") as archive:
        archive.writestr(zipfile.ZipInfo(name), b"x")
    err = refused(capsys, tmp_path, "anki", deck, *MAPS)
    assert err[0] == f"{deck}: entry {name!r} is a path out of the archive"
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path.parent / "x").exists()


def test_not_a_collection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deck = tmp_path / "deck.apkg"
    with zipfile.ZipFile(deck, "w") as archive:
        archive.writestr("collection.anki21b", b"zstd data")
    err = refused(capsys, tmp_path, "anki", deck, *MAPS)
    assert "Support older Anki versions" in err[0]
    with zipfile.ZipFile(deck, "w") as archive:
        archive.writestr("collection.anki21", b"not sqlite at all")
    err = refused(capsys, tmp_path, "anki", deck, *MAPS)
    assert err[0].startswith(f"{deck}: the collection inside is not an Anki database")


def test_the_package_is_read_from_a_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = fx.apkg(tmp_path / "deck.apkg")
    before = deck.read_bytes()
    args = ["import", "anki", str(deck), "--bank", "fx", "--out", str(tmp_path / "fx")]
    code = main([*args, *MAPS, "--fill-missing", "To be written."])
    assert code == 0, capsys.readouterr().err
    assert deck.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck.apkg", "fx"]


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("moodle", "big.xml"),
        ("gift", "big.gift"),
        ("aiken", "big.txt"),
        ("anki", "big.apkg"),
        ("csv", "big.csv"),
    ],
)
def test_a_50_mb_file_is_refused_unread(
    fmt: str,
    name: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    big = tmp_path / name
    with big.open("wb") as handle:  # sparse: the size is there, the disk is not used
        handle.truncate(50 * 1024 * 1024)
    real_open = Path.open

    def no_reading(self: Path, *args: Any, **kwargs: Any) -> Any:
        assert self != big, "the size is checked before the file is opened"
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", no_reading)
    # CSV has its own command, without --format; only Anki maps fields.
    extra = [] if fmt == "csv" else ["--format", fmt, *(MAPS if fmt == "anki" else [])]
    err = refused(capsys, tmp_path, fmt, big, *extra)
    assert err[0] == (
        f"{big}: 52,428,800 bytes, over the 16,777,216-byte limit for an import file"
    )


@pytest.mark.parametrize("fmt", ["moodle", "gift", "aiken"])
def test_invalid_utf8_names_the_line(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = {"moodle": fx.MOODLE, "gift": fx.GIFT, "aiken": fx.AIKEN}[fmt].encode("utf-8")
    lines = text.split(b"\n")
    lines[2] = lines[2][:3] + b"\xff" + lines[2][3:]
    file = tmp_path / "bad.txt"
    file.write_bytes(b"\n".join(lines))
    err = refused(capsys, tmp_path, fmt, file, "--format", fmt)
    assert err[0].startswith(f"{file}:3: not UTF-8: byte 0xff at offset ")
    assert "(line 3, column 4)" in err[0]


@pytest.mark.parametrize(
    ("column", "value", "what"),
    [
        ("models", "[]", "col.models is a JSON array, not an object of models by id"),
        ("decks", "[]", "col.decks is a JSON array, not an object of decks by id"),
        ("models", '"text"', "col.models is a JSON string, not an object of models by id"),
        ("models", "[" * 200_000 + "]" * 200_000, "col.models is JSON nested too deeply"),
    ],
    ids=["models-list", "decks-list", "models-string", "models-deep"],
)
def test_a_crafted_collection_is_refused_with_what_is_wrong(
    column: str, value: str, what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = fx.apkg_with_col(tmp_path, column, value)
    err = refused(capsys, tmp_path, "anki", deck, *MAPS)
    assert err == [
        f"{deck}: the collection inside is not an Anki database Anki wrote ({what})",
        "nothing written: 1 problem",
    ]
