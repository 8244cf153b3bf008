"""A question's picture: its type read from its first bytes, its size in pixels, and whether
Telegram takes it as a photo (the limits sendPhoto documents)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_SIDES_PX = 10_000  # width + height
MAX_RATIO = 20
HEADER_BYTES = 64 * 1024  # a JPEG's size marker can come after its metadata


@dataclass(frozen=True, slots=True)
class ImageInfo:
    kind: str  # "png", "jpeg" or "webp"
    width: int
    height: int


def _png(data: bytes) -> ImageInfo | None:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return ImageInfo("png", int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"))


def _jpeg(data: bytes) -> ImageInfo | None:
    if data[:3] != b"\xff\xd8\xff":
        return None
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length field
            at += 2
            continue
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        # Start-of-frame markers (baseline, progressive...) carry the size; C4, C8, CC do not.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height = int.from_bytes(data[at + 5 : at + 7], "big")
            width = int.from_bytes(data[at + 7 : at + 9], "big")
            return ImageInfo("jpeg", width, height)
        at += 2 + length
    return ImageInfo("jpeg", 0, 0)  # a JPEG whose size we did not reach: refused below


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
    """Type and size of a PNG, JPEG or WebP from its first bytes; None for anything else."""
    return _png(data) or _jpeg(data) or _webp(data)


def image_problem(path: Path) -> str | None:
    """Why this file cannot be a question's photo, or None when Telegram takes it."""
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            head = f.read(HEADER_BYTES)
    except FileNotFoundError:
        return f"image file {path.name!r} not found beside the question"
    except OSError as exc:
        return f"image file {path.name!r} cannot be read: {exc.strerror or exc}"
    if not path.is_file():
        return f"image {path.name!r} is not a file"
    info = image_info(head)
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
