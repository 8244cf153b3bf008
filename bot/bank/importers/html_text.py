"""HTML fragments of LMS and flashcard exports as plain text, and plain text as HTML again."""

from __future__ import annotations

import html
import re

_BREAK = re.compile(r"<br\s*/?>", re.I)
_BLOCK_END = re.compile(r"</(?:p|div|li|h[1-6])>\s*", re.I)
_TAG = re.compile(r"<[^>]*>")


def to_text(fragment: str) -> str:
    """The text a reader sees: line breaks for <br> and block ends, tags dropped, entities
    decoded; white space inside lines is kept (an export writes it on purpose)."""
    text = _BREAK.sub("\n", fragment)
    text = _BLOCK_END.sub("\n", text)
    # Editors pad with &nbsp; where a space was meant; a literal no-break space stays one.
    text = _TAG.sub("", text).replace("&nbsp;", " ")
    return html.unescape(text).strip("\n")


def to_html(text: str) -> str:
    """Plain text as an HTML fragment that `to_text` reads back unchanged."""
    return html.escape(text, quote=False).replace("\n", "<br>")
