"""Split Telegram HTML into messages that fit, never inside a tag or an entity."""

from __future__ import annotations

import html
import re

from bot.bank.limits import TELEGRAM_MESSAGE_CHARS

_TOKEN = re.compile(r"(<[^>]+>|&[#a-zA-Z0-9]+;)")
_TAG_NAME = re.compile(r"</?\s*([a-zA-Z-]+)")


def visible_length(text: str) -> int:
    """Length as Telegram counts it: after tags are parsed and entities decoded."""
    return len(html.unescape(re.sub(r"<[^>]+>", "", text)))


def split_html(text: str, limit: int = TELEGRAM_MESSAGE_CHARS) -> list[str]:
    """Cut text into parts of at most limit visible chars.

    Prefers blank lines, then line ends, then spaces; a tag still open at a cut is closed at the
    end of one part and opened again at the start of the next, so each part parses on its own.
    """
    # The raw length bounds the visible one: most messages never need the slower count.
    if len(text) <= limit or visible_length(text) <= limit:
        return [text]
    parts: list[str] = []
    rest = text
    while visible_length(rest) > limit:
        cut = _cut_point(rest, limit)
        head, rest = rest[:cut], rest[cut:]
        open_tags = _open_tags(head)
        closing = "".join(f"</{_TAG_NAME.match(t).group(1)}>" for t in reversed(open_tags))  # type: ignore[union-attr]
        parts.append(head.rstrip() + closing)
        rest = "".join(open_tags) + rest.lstrip()
    if rest.strip():
        parts.append(rest)
    return parts


def _cut_point(text: str, limit: int) -> int:
    """Index to cut at so the head has at most limit visible chars, at the nicest boundary."""
    budget = limit - 32  # room for closing the tags still open at the cut
    visible = 0
    pos = 0
    hard = 0  # last position between two visible chars
    best: dict[str, int] = {}
    for piece in _TOKEN.split(text):
        if piece.startswith("<"):
            pos += len(piece)
            continue
        if piece.startswith("&") and piece.endswith(";"):
            if visible + 1 > budget:
                break
            visible += 1
            pos += len(piece)
            hard = pos
            continue
        for ch in piece:
            if visible + 1 > budget:
                break
            visible += 1
            pos += 1
            hard = pos
            if ch == "\n":
                best["\n"] = pos
                if text[pos - 2 : pos] == "\n\n":
                    best["\n\n"] = pos
            elif ch == " ":
                best[" "] = pos
        else:
            continue
        break
    for sep in ("\n\n", "\n", " "):
        # a boundary in the last quarter of the budget is worth a slightly shorter part
        if best.get(sep, 0) > hard * 3 // 4:
            return best[sep]
    return max(hard, 1)


def _open_tags(head: str) -> list[str]:
    """Opening tags in head that are not closed by its end, outermost first."""
    stack: list[str] = []
    for tag in re.findall(r"<[^>]+>", head):
        m = _TAG_NAME.match(tag)
        if not m:
            continue
        if tag.startswith("</"):
            name = m.group(1).lower()
            for i in range(len(stack) - 1, -1, -1):
                if _TAG_NAME.match(stack[i]).group(1).lower() == name:  # type: ignore[union-attr]
                    del stack[i]
                    break
        elif not tag.endswith("/>"):
            stack.append(tag)
    return stack
