"""Which exchange format a file is in, from its first bytes and then its extension."""

from __future__ import annotations

import re
from pathlib import Path

FORMATS = ("moodle", "gift", "aiken", "anki")
NAMES = {"moodle": "Moodle XML", "gift": "GIFT", "aiken": "Aiken", "anki": "an Anki package"}
_EXTENSIONS = {".xml": "moodle", ".gift": "gift", ".apkg": "anki", ".colpkg": "anki"}
_SNIFF_BYTES = 64 * 1024
_GIFT = re.compile(r"^\s*(::|\$CATEGORY:)|[^\\]\{\s*[=~]", re.M)
_AIKEN = re.compile(r"^\s*ANSWER\s*:\s*[A-Z]", re.M)


def detect(path: Path) -> str | None:
    """ "moodle", "gift", "aiken" or "anki" for the file, or None when nothing says."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return None
    if head.startswith(b"PK\x03\x04"):
        return "anki"
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if text.startswith(("<?xml", "<quiz")):
        return "moodle"
    if _GIFT.search(text):
        return "gift"
    if _AIKEN.search(text):
        return "aiken"
    return _EXTENSIONS.get(path.suffix.lower())
