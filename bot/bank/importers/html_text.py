"""HTML fragments of LMS and flashcard exports as plain text, and plain text as HTML again."""

from __future__ import annotations

import html
import re
from urllib.parse import unquote

_BREAK = re.compile(r"<br\s*/?>", re.I)
_BLOCK_END = re.compile(r"</(?:p|div|li|h[1-6]|tr|table)>\s*", re.I)
# Between two cells of a row: a separator, or "H100" and "80 GB" would read "H10080 GB".
_CELL_GAP = re.compile(r"</t[dh]>\s*(?=<t[dh][\s>])", re.I)
# An exponent or index carries meaning: O(n<sup>2</sup>) must not read O(n2).
_SCRIPT = re.compile(r"<(sup|sub)\b[^>]*>(.*?)</\1\s*>", re.I | re.S)
_SUPER = str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ")
_SUB = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_TAG = re.compile(r"<[^>]*>")
_IMAGE = re.compile(r"<img\b[^>]*>", re.I)
_SRC = re.compile(r"""\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
_NAME_CHARS = 60


def to_text(fragment: str) -> str:
    """The text a reader sees: line breaks for <br> and block ends, tags dropped, entities
    decoded; white space inside lines is kept (an export writes it on purpose)."""
    text = _SCRIPT.sub(_script, fragment)
    text = _CELL_GAP.sub(" | ", text)
    text = _BREAK.sub("\n", text)
    text = _BLOCK_END.sub("\n", text)
    # Editors pad with &nbsp; where a space was meant; a literal no-break space stays one.
    text = _TAG.sub("", text).replace("&nbsp;", " ")
    return html.unescape(text).strip("\n")


def _script(found: re.Match[str]) -> str:
    """A superscript or subscript as Unicode's when it has one for every character (n², x₁),
    else as ^ or _ before it (QKᵀ would need a letter most fonts lack: QK^T)."""
    kind, inner = found.group(1).lower(), html.unescape(_TAG.sub("", found.group(2))).strip()
    table = _SUPER if kind == "sup" else _SUB
    if inner and all(ord(c) in table for c in inner):
        return html.escape(inner.translate(table), quote=False)
    mark = "^" if kind == "sup" else "_"
    return html.escape(mark + (inner if len(inner) == 1 else f"({inner})"), quote=False)


def to_html(text: str) -> str:
    """Plain text as an HTML fragment that `to_text` reads back unchanged."""
    return html.escape(text, quote=False).replace("\n", "<br>")


def embedded_images(fragment: str) -> list[str]:
    """The pictures an HTML fragment shows with <img>, by file name: `to_text` drops the tag,
    so the question would refer to a figure that is not there. A Moodle export names the file
    "@@PLUGINFILE@@/diagram.png", an Anki note "paste-1a2b.jpg"."""
    names = []
    for tag in _IMAGE.findall(fragment):
        found = _SRC.search(tag)
        src = html.unescape(next((g for g in found.groups() if g), "")) if found else ""
        if src.startswith("data:"):
            names.append("a data: URL")
        else:
            name = unquote(src.rsplit("/", 1)[-1].split("?", 1)[0]).strip()
            names.append(name[:_NAME_CHARS] or "no file named")
    return names


def images_not_imported(names: list[str]) -> str:
    """The warning for pictures `embedded_images` found: what is lost, and how to keep it."""
    unique = list(dict.fromkeys(names))
    which = ", ".join(unique)
    if len(unique) == 1:
        return (
            f"an embedded image ({which}) is not imported: put the picture in the bank folder "
            "and name it in the question's image: field"
        )
    return (
        f"embedded images ({which}) are not imported (a question shows one picture): put it "
        "in the bank folder and name it in the question's image: field"
    )
