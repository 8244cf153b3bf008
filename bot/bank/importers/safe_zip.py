"""Take one member out of an untrusted zip file without letting it fill the disk or memory.

Refused: more entries than any real package holds, an entry whose name is a path out of the
archive (`../x`, `/etc/x`, `C:\\x`), a declared size over the limit, a compression ratio no real
file reaches (zip bombs), and a member that inflates past what it declared.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

MAX_ENTRIES = 20_000
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
# An Anki collection is SQLite, whose free pages compress well; nothing real reaches this.
MAX_RATIO = 100
_CHUNK = 1024 * 1024


class ZipRefused(Exception):
    """The archive is not imported; the message says why."""


def _unsafe_name(name: str) -> bool:
    parts = re.split(r"[\\/]", name)
    return (
        name.startswith(("/", "\\"))
        or re.match(r"^[A-Za-z]:", name) is not None
        or ".." in parts
        or "\x00" in name
    )


def checked_entries(data: bytes) -> zipfile.ZipFile:
    """The archive, once every entry's name, size and ratio passed the checks."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ZipRefused(f"not a zip file ({exc})") from None
    entries = archive.infolist()
    if len(entries) > MAX_ENTRIES:
        raise ZipRefused(f"{len(entries):,} entries, over the {MAX_ENTRIES:,} an import may hold")
    declared = 0
    for entry in entries:
        if _unsafe_name(entry.filename):
            raise ZipRefused(f"entry {entry.filename!r} is a path out of the archive")
        declared += entry.file_size
        if entry.compress_size and entry.file_size / entry.compress_size > MAX_RATIO:
            ratio = entry.file_size / entry.compress_size
            raise ZipRefused(
                f"entry {entry.filename!r} inflates {ratio:,.0f} times, over the {MAX_RATIO} "
                "a real file reaches (a zip bomb?)"
            )
    if declared > MAX_UNPACKED_BYTES:
        raise ZipRefused(
            f"the entries declare {declared:,} bytes unpacked, over the {MAX_UNPACKED_BYTES:,} "
            "an import may hold"
        )
    return archive


def extract(archive: zipfile.ZipFile, name: str, target: Path) -> None:
    """Copy one member to `target`, stopping as soon as it outgrows its declared size."""
    entry = archive.getinfo(name)
    written = 0
    try:
        with archive.open(entry) as source, target.open("wb") as sink:
            while chunk := source.read(_CHUNK):
                written += len(chunk)
                if written > entry.file_size or written > MAX_UNPACKED_BYTES:
                    raise ZipRefused(
                        f"entry {name!r} inflates past the {entry.file_size:,} bytes it declares"
                    )
                sink.write(chunk)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
        raise ZipRefused(f"entry {name!r} cannot be unpacked ({exc})") from None
