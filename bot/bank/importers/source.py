"""Reading an import file safely: its size checked before it is read, its text as UTF-8."""

from __future__ import annotations

from pathlib import Path

from bot.bank.problems import not_utf8

# Far above any real question file (a 5,000-question Moodle export is a few MB), low enough
# that a mistaken or hostile file is refused before it costs memory.
MAX_SOURCE_BYTES = 16 * 1024 * 1024


class SourceError(Exception):
    """The file cannot be imported at all; `line` is where, when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def read_bytes(path: Path, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The file's bytes, refused unread when it is larger than `limit`."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None
    if size > limit:
        raise SourceError(f"{size:,} bytes, over the {limit:,}-byte limit for an import file")
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)  # the file may have grown since stat
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise SourceError(f"over the {limit:,}-byte limit for an import file")
    return data


def decode(data: bytes) -> str:
    """UTF-8 text without a BOM, or SourceError naming the line of the first bad byte."""
    bad = not_utf8(data)
    if bad is not None:
        raise SourceError(bad[1], bad[0])
    return data.decode("utf-8").removeprefix("\ufeff")


def read_text(path: Path) -> str:
    """The file's text: size-limited, UTF-8."""
    return decode(read_bytes(path))
