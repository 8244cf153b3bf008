"""A question's picture: its type read from its first bytes, its size in pixels, and whether
Telegram takes it as a photo (the limits sendPhoto documents)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_SIDES_PX = 10_000  # width + height
MAX_RATIO = 20
HEADER_BYTES = 32  # a PNG's or WebP's size is in its first 30 bytes; a JPEG's is sought
# Markers (and fill bytes) walked to a JPEG's frame header: a camera or editor writes a few dozen
# segments before it; a file of millions of tiny segments is not walked seek by seek.
MAX_JPEG_SEGMENTS = 10_000


@dataclass(frozen=True, slots=True)
class ImageInfo:
    kind: str  # "png", "jpeg" or "webp"
    width: int
    height: int


def _png(data: bytes) -> ImageInfo | None:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return ImageInfo("png", int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"))


def _jpeg_size(f: BinaryIO, end: int) -> tuple[int, int]:
    """Width and height in a JPEG's start-of-frame segment, or (0, 0) when it is not found
    before `end`. The file is walked from marker to marker by seeking: the metadata before
    the frame (EXIF, ICC profiles, thumbnails) can run to hundreds of KB, so no fixed-size
    header is sure to hold it."""
    at = 2
    for _ in range(MAX_JPEG_SEGMENTS):
        if at + 4 > end:
            break
        f.seek(at)
        head = f.read(9)
        if len(head) < 4 or head[0] != 0xFF:
            break
        marker = head[1]
        if marker == 0xFF:  # a fill byte before the marker
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length field
            at += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, or the scan: no frame header before it
            break
        length = int.from_bytes(head[2:4], "big")
        # Start-of-frame markers (baseline, progressive...) carry the size; C4, C8, CC do not.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if len(head) < 9:
                break
            return int.from_bytes(head[7:9], "big"), int.from_bytes(head[5:7], "big")
        if length < 2:  # the length counts its own 2 bytes: anything less never moves on
            break
        at += 2 + length
    return 0, 0


def _read_info(f: BinaryIO, size: int) -> ImageInfo | None:
    head = f.read(HEADER_BYTES)
    found = _png(head) or _webp(head)
    if found is not None or head[:3] != b"\xff\xd8\xff":
        return found
    # Past 10 MB the file is refused for its size anyway: no need to walk further.
    width, height = _jpeg_size(f, min(size, MAX_PHOTO_BYTES))
    return ImageInfo("jpeg", width, height)  # (0, 0) when not reached: refused below


def _webp(data: bytes) -> ImageInfo | None:
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return None
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30:
        width = int.from_bytes(data[26:28], "little") & 0x3FFF
        height = int.from_bytes(data[28:30], "little") & 0x3FFF
        return ImageInfo("webp", width, height)
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return ImageInfo("webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return ImageInfo("webp", width, height)
    return ImageInfo("webp", 0, 0)


def image_info(data: bytes) -> ImageInfo | None:
    """Type and size of a PNG, JPEG or WebP held in memory; None for anything else."""
    return _read_info(io.BytesIO(data), len(data))


def image_problem(path: Path) -> str | None:
    """Why this file cannot be a question's photo, or None when Telegram takes it."""
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            info = _read_info(f, size)
    except FileNotFoundError:
        return f"image file {path.name!r} not found beside the question"
    except OSError as exc:
        return f"image file {path.name!r} cannot be read: {exc.strerror or exc}"
    if not path.is_file():
        return f"image {path.name!r} is not a file"
    if info is None:
        return f"image {path.name!r} is not a PNG, JPEG or WebP file"
    if size > MAX_PHOTO_BYTES:
        return f"image {path.name!r} is {size / 1024 / 1024:.1f} MB, over Telegram's 10 MB"
    w, h = info.width, info.height
    if not w or not h:
        return f"image {path.name!r}: its size in pixels cannot be read"
    if w + h > MAX_SIDES_PX:
        return f"image {path.name!r} is {w}x{h} px: width + height is over {MAX_SIDES_PX}"
    if max(w, h) > MAX_RATIO * min(w, h):
        return f"image {path.name!r} is {w}x{h} px: one side is over {MAX_RATIO} times the other"
    return None
