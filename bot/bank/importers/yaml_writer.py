"""Human-friendly YAML for question files and bank.yaml: key order kept, long text as blocks."""

from __future__ import annotations

import datetime as dt
import re
import textwrap
from collections.abc import Mapping
from typing import Any

import yaml

from bot.bank import yaml_load
from bot.bank.models import Question

WIDTH = 96
# Characters a YAML stream may hold as they are (YAML 1.1 "printable", which PyYAML enforces),
# minus the ones a double-quoted scalar gives a meaning to, line breaks (U+2028/9 are line
# breaks to YAML) and the BOM.
_UNQUOTABLE = re.compile(
    '[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]|["\\\\]'
)
_SHORT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def question_document(question: Question) -> dict[str, Any]:
    """The question as the mapping written to its file, keys in model order, defaults trimmed."""
    data: dict[str, Any] = question.model_dump(mode="json", exclude_none=True)
    # An option is wrong unless it says otherwise, as in hand-written files.
    # Flags at their defaults (wrong, not pinned, shuffled) are left out, as in hand-written files.
    data["options"] = [
        {k: v for k, v in option.items() if k not in ("correct", "pin") or v}
        for option in data["options"]
    ]
    if data.get("shuffle", True):
        data.pop("shuffle", None)
    if not data.get("references"):
        data.pop("references", None)
    if question.reviewed is not None:
        data["reviewed"] = question.reviewed
    return data


def dump(data: Mapping[str, Any], header: str = "") -> str:
    """YAML text for `data` that loads back to exactly `data`."""
    lines: list[str] = []
    _mapping(data, 0, lines, None)
    text = header + "\n".join(lines) + "\n"
    if _loads_back(text, data):
        return text
    # Our layout is only an embellishment; never trade correctness for it.
    body = yaml.safe_dump(dict(data), sort_keys=False, allow_unicode=False, width=WIDTH)
    text = header + body
    if not _loads_back(text, data):
        raise ValueError("cannot write this text as YAML that reads back the same")
    return text


def _loads_back(text: str, data: Mapping[str, Any]) -> bool:
    try:
        return bool(yaml_load.load(text) == data)
    except yaml.YAMLError:
        return False


def quoted(value: str) -> str:
    """A double-quoted YAML scalar for any text: every character that is not plain is escaped."""
    return '"' + _UNQUOTABLE.sub(_escape, value) + '"'


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    # Full code points (\U for astral ones): YAML has no surrogate-pair escapes like JSON's.
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _mapping(data: Mapping[str, Any], indent: int, lines: list[str], first: str | None) -> None:
    pad = " " * indent
    for i, (key, value) in enumerate(data.items()):
        prefix = (first if i == 0 and first is not None else pad) + f"{_inline(key)}:"
        _value(prefix, value, indent, lines)


def _value(prefix: str, value: Any, indent: int, lines: list[str]) -> None:
    if isinstance(value, dict) and value:
        lines.append(prefix)
        _mapping(value, indent + 2, lines, None)
    elif isinstance(value, list) and value:
        flow = "[" + ", ".join(_inline(v) for v in value) + "]"
        if all(_is_simple(v) for v in value) and len(prefix) + 1 + len(flow) <= WIDTH:
            lines.append(f"{prefix} {flow}")
            return
        lines.append(prefix)
        dash = " " * (indent + 2) + "- "
        for item in value:
            if isinstance(item, dict) and item:
                _mapping(item, indent + 4, lines, dash)
            else:
                _value(dash.rstrip(), item, indent + 4, lines)
    elif isinstance(value, str):
        _string(prefix, value, indent, lines)
    else:
        lines.append(f"{prefix} {_inline(value)}")


def _is_simple(value: Any) -> bool:
    return not isinstance(value, (dict, list)) and "\n" not in str(value)


def _string(prefix: str, value: str, indent: int, lines: list[str]) -> None:
    inline = _inline(value)
    body = " " * (indent + 2)
    if "\n" not in value and len(prefix) + 1 + len(inline) <= WIDTH:
        lines.append(f"{prefix} {inline}")
    elif _folded_safe(value):
        # Folded: wrapped lines join with a space, and one empty line stands for one newline.
        lines.append(f"{prefix} >-")
        width = max(WIDTH - len(body), 40)
        for i, part in enumerate(value.split("\n")):
            if i:
                lines.append("")
            wrapped = textwrap.wrap(part, width, break_long_words=False, break_on_hyphens=False)
            lines.extend(body + line for line in wrapped)
    elif "\n" in value and _literal_safe(value):
        lines.append(f"{prefix} |-")
        lines.extend(body + line if line else "" for line in value.split("\n"))
    else:
        lines.append(f"{prefix} {inline}")


def _literal_safe(value: str) -> bool:
    parts = value.split("\n")
    return (
        not value[:1].isspace()
        and not value.endswith("\n")
        and all(p == p.rstrip() and (p.isprintable() or not p) for p in parts)
        and "\t" not in value
    )


def _folded_safe(value: str) -> bool:
    # Folding joins wrapped lines with one space, so runs of spaces or edge spaces would change,
    # and an indented line would be kept as it is rather than folded.
    return value == value.strip() and all(
        part == part.strip() and "  " not in part and part.isprintable()
        for part in value.split("\n")
    )


def _inline(value: Any) -> str:
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str) and ("\n" in value or not value.isprintable()):
        return quoted(value)
    text = yaml.safe_dump([value], width=10**6, allow_unicode=True)
    return text.removeprefix("- ").removesuffix("\n").removesuffix("\n...")
