"""A file of parsed and validated questions, so a start or a reload re-parses only what changed.

Parsing YAML is most of the time spent loading a large bank; reading back the validated
questions as JSON (checked again by pydantic-core, which is fast) is several times cheaper.

Never stale: a question is taken from the cache only when its file's size, mtime_ns and
ctime_ns (which no program can set back) are what they were when it was parsed. A file whose
mtime was within RACY_NS of the moment the cache was written could be changed again within
the same timestamp tick, so its entry also carries the file's SHA-256, checked on every load.
The cache is keyed by the code that parses and validates (a change to it throws the cache
away), and the whole body is checksummed: anything unreadable is ignored with a warning and
the files are parsed, never a crash.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sys
import time
from functools import cache
from pathlib import Path
from typing import BinaryIO

import pydantic
from pydantic import TypeAdapter
from typing_extensions import TypedDict  # pydantic reads TypedDicts only from here before 3.12

from bot.bank import limits, models, parsing, yaml_load
from bot.bank.models import FROM_CACHE, Question
from bot.bank.parsing import file_sha256

log = logging.getLogger(__name__)

# Bump when the file's layout changes; a change to the parsing or the models is seen anyway.
CACHE_FORMAT = 1
# Two seconds covers the coarsest file timestamps in use (FAT) and a kernel's timestamp tick.
RACY_NS = 2_000_000_000
SUFFIX = "-banks"


class Entry(TypedDict):
    """One question file as it was when parsed, and its validated question."""

    size: int
    mtime_ns: int
    ctime_ns: int
    sha256: str | None
    question: Question


class Line(TypedDict):
    """One line of the file: a question file of a bank folder (resolved) and its entry."""

    folder: str
    file: str
    entry: Entry


# bank folder (resolved) -> question file path relative to it -> entry
Folders = dict[str, dict[str, Entry]]
# Where a line lies in the cache file: offset and length in bytes.
Span = tuple[int, int]
_TRAILER = b'{"sha256":'


@cache
def _lines() -> TypeAdapter[Line]:
    # Built on first use: commands that never touch the cache do not pay for the schema.
    return TypeAdapter(Line)


def _line(adapter: TypeAdapter[Line], folder: str, name: str, entry: Entry) -> bytes:
    """One line of the file."""
    line = Line(folder=folder, file=name, entry=entry)
    return adapter.dump_json(line, exclude_defaults=True) + b"\n"


def _stamp(stat: os.stat_result) -> tuple[int, ...]:
    # The writer always replaces the file, so the same inode, size and mtime is the same file.
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def cache_path(db: Path | str) -> Path:
    """Where the cache of the bot using database `db` lives: beside a SQLite file, like its
    -wal; in the working folder for a server database (a URL)."""
    if isinstance(db, str):
        return Path("quizbot-server-db" + SUFFIX)
    return db.with_name(db.name + SUFFIX)


def _code_key() -> str | None:
    """Identifies the code that turns a file into a question; None if it cannot be read."""
    digest = hashlib.sha256(f"{CACHE_FORMAT}|{pydantic.VERSION}|{sys.version_info[:2]}".encode())
    try:
        for module in (models, limits, yaml_load, parsing):
            digest.update(Path(module.__file__ or "").read_bytes())
    except OSError:
        return None
    return digest.hexdigest()


class FolderCache:
    """The cache of one bank folder during one load: hits are kept, misses are stored."""

    def __init__(self, folder: Path, old: dict[str, Entry], spans: dict[str, Span]) -> None:
        self.folder = folder
        self.old = old
        self.new: dict[str, Entry] = {}
        # Where the cache file holds the line of each old entry: one taken over unchanged is
        # copied back from there instead of being serialized again.
        self.spans = spans
        self.changed = False
        self._prefix = os.path.join(str(folder), "")
        self._now_ns = time.time_ns()

    def _key(self, path: Path) -> str:
        # The loader's paths are the folder joined with the rest: slicing is 40x relpath.
        name = str(path)
        return name[len(self._prefix) :] if name.startswith(self._prefix) else name

    def get(self, path: Path, stat: os.stat_result) -> Question | None:
        """The cached question of `path` if the file is as it was when it was parsed."""
        key = self._key(path)
        entry = self.old.get(key)
        if (
            entry is None
            or entry["size"] != stat.st_size
            or entry["mtime_ns"] != stat.st_mtime_ns
            or entry["ctime_ns"] != stat.st_ctime_ns
        ):
            return None
        if entry["sha256"] is not None:
            try:
                same = file_sha256(path.read_bytes()) == entry["sha256"]
            except OSError:
                return None
            if not same:
                return None
        self.new[key] = entry
        return entry["question"]

    def racy(self, stat: os.stat_result) -> bool:
        """Whether a file with this stamp could change again without its stamp moving, so
        its entry must carry the SHA-256 of the bytes parsed (see `put`)."""
        return stat.st_mtime_ns > self._now_ns - RACY_NS

    def put(
        self,
        path: Path,
        stat: os.stat_result,
        question: Question,
        sha256: str | None,
    ) -> None:
        """Remember a question just parsed from a file read after `stat` was taken (so a
        change while reading leaves a stamp that no longer matches: parsed again next time);
        `sha256` is the digest of the bytes parsed, required when the stamp is racy."""
        if sha256 is None and self.racy(stat):
            raise ValueError(f"{path}: a file changed this recently needs its digest")
        key = self._key(path)
        self.new[key] = Entry(
            size=stat.st_size,
            mtime_ns=stat.st_mtime_ns,
            ctime_ns=stat.st_ctime_ns,
            sha256=sha256,
            question=question,
        )
        self.spans.pop(key, None)
        self.changed = True


class BankCache:
    """The cache file: read once at the start of a load, written after it if anything changed."""

    def __init__(self, path: Path, *, write: bool = True) -> None:
        self.path = path
        self.write = write
        self.key = _code_key()
        self._spans: dict[str, dict[str, Span]] = {}
        self._stamp: tuple[int, ...] | None = None
        self._old: Folders = self._read() if self.key is not None else {}
        self._folders: dict[str, FolderCache] = {}

    def _read(self) -> Folders:
        try:
            file = self.path.open("rb")
        except FileNotFoundError:
            return {}
        except OSError as err:
            log.warning(
                "bank cache %s unreadable (%s); parsing the question files", self.path, err
            )
            return {}
        with file:
            try:
                self._stamp = _stamp(os.fstat(file.fileno()))
                return self._parse(file)
            except Exception as err:  # whatever is wrong with the file, the YAML is the truth
                self._spans = {}
                log.warning(
                    "bank cache %s is damaged (%s); parsing the question files",
                    self.path,
                    (str(err).splitlines() or [type(err).__name__])[0][:200],
                )
                return {}

    def _parse(self, file: BinaryIO) -> Folders:
        """A header line, one line per question file, a trailer with the lines' digest. Line by
        line, so loading never holds the whole file and its parse tree at once; where each
        line lies is kept, for the save to copy unchanged entries without serializing them."""
        first = file.readline()
        header = json.loads(first)
        if header.get("format") != CACHE_FORMAT or header.get("code") != self.key:
            log.info("bank cache %s is from other code; parsing the question files", self.path)
            return {}
        adapter = _lines()
        digest = hashlib.sha256()
        folders: Folders = {}
        spans = self._spans
        offset = len(first)
        for raw in file:
            if raw.startswith(_TRAILER):
                if json.loads(raw)["sha256"] != digest.hexdigest() or file.read(1):
                    raise ValueError("checksum mismatch")
                return folders
            digest.update(raw)
            # Validated again (pydantic-core, from JSON): a cache that passes is a valid bank.
            line = adapter.validate_json(raw, context=FROM_CACHE)
            folders.setdefault(line["folder"], {})[line["file"]] = line["entry"]
            spans.setdefault(line["folder"], {})[line["file"]] = (offset, len(raw))
            offset += len(raw)
        raise ValueError("cut short")

    def folder(self, folder: Path) -> FolderCache:
        """The cache of one bank folder for this load."""
        key = str(folder.resolve())
        if key not in self._folders:
            self._folders[key] = FolderCache(
                folder, self._old.get(key, {}), self._spans.get(key, {})
            )
        return self._folders[key]

    def changed(self) -> bool:
        """Whether this load parsed, added or dropped anything the file does not hold."""
        if set(self._folders) != set(self._old):
            return True
        return any(f.changed or len(f.new) != len(f.old) for f in self._folders.values())

    def _old_file(self) -> BinaryIO | None:
        """The cache file this load read, if it is still there unchanged, to copy lines from."""
        try:
            file = self.path.open("rb", buffering=1 << 16)
        except OSError:
            return None
        if self._stamp is None or _stamp(os.fstat(file.fileno())) != self._stamp:
            file.close()
            return None
        return file

    def save(self) -> None:
        """Write the entries of this load (atomically) when they differ from the file's."""
        if not self.write or self.key is None or not self.changed():
            return
        adapter = _lines()
        digest = hashlib.sha256()
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        old = self._old_file()
        try:
            with tmp.open("wb") as out:
                header = {"format": CACHE_FORMAT, "code": self.key}
                out.write(json.dumps(header).encode() + b"\n")
                for key, folder in self._folders.items():
                    for name, entry in folder.new.items():
                        span = folder.spans.get(name) if old is not None else None
                        raw = b""
                        if span is not None and old is not None:
                            # Mostly in the order read: the seek stays inside the read-ahead.
                            old.seek(span[0])
                            raw = old.read(span[1])
                        if len(raw) != (span[1] if span else -1) or not raw.endswith(b"\n"):
                            raw = _line(adapter, key, name, entry)
                        digest.update(raw)
                        out.write(raw)
                out.write(_TRAILER + json.dumps(digest.hexdigest()).encode() + b"}\n")
            os.replace(tmp, self.path)
        except OSError as err:
            log.warning(
                "bank cache %s not written (%s); the next start parses again", self.path, err
            )
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        finally:
            if old is not None:
                old.close()
