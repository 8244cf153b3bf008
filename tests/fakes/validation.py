"""The Bot API's input limits, checked the way Telegram reports them.

These checks are what let tests prove the bot respects Telegram's limits: a too long message, an
unescaped `<` in HTML, a 65-byte callback_data all fail here exactly as they would in production.
HTML is checked against the tags Telegram supports; the text length is measured after parsing
(tags removed, entities unescaped), as Telegram does.
"""

from __future__ import annotations

import json
import re
from typing import Any

TEXT_LIMIT = 4096
CALLBACK_DATA_LIMIT = 64
CALLBACK_ANSWER_LIMIT = 200
CAPTION_LIMIT = 1024
PHOTO_BYTES_LIMIT = 10 * 1024 * 1024
DOCUMENT_BYTES_LIMIT = 50 * 1024 * 1024  # what a bot may upload
KEYBOARD_BUTTONS_LIMIT = 100
ROW_BUTTONS_LIMIT = 8
POLL_QUESTION_LIMIT = 300
POLL_OPTION_LIMIT = 100
POLL_OPTIONS_MIN, POLL_OPTIONS_MAX = 2, 12
POLL_EXPLANATION_LIMIT = 200

SUPPORTED_TAGS = frozenset(
    {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre"}
    | {"tg-spoiler", "span", "blockquote", "tg-emoji"}
)

_TAG = re.compile(
    r"<(/?)([A-Za-z][A-Za-z0-9-]*)"
    r"((?:\s+[A-Za-z_:][-A-Za-z0-9_:.]*(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*)"
    r"\s*>"
)
_ATTR = re.compile(
    r"([A-Za-z_:][-A-Za-z0-9_:.]*)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'=<>`]+)))?"
)
_ENTITY = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z]+);")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


class ApiError(Exception):
    """A Bot API error answer: raised inside the fake, turned into an HTTP error body."""

    def __init__(
        self, error_code: int, description: str, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.parameters = parameters or {}

    def body(self) -> dict[str, Any]:
        """The JSON body Telegram answers with."""
        data: dict[str, Any] = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.parameters:
            data["parameters"] = self.parameters
        return data


def bad_request(reason: str) -> ApiError:
    """A 400 with Telegram's `Bad Request: ` prefix."""
    return ApiError(400, f"Bad Request: {reason}")


def _entity_error(reason: str) -> ApiError:
    return bad_request(f"can't parse entities: {reason}")


def _unescape(chunk: str) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith(("#x", "#X")):
            return chr(int(name[2:], 16))
        if name.startswith("#"):
            return chr(int(name[1:]))
        # Telegram knows only these four named entities; others stay as typed.
        return _NAMED.get(name, match.group(0))

    return _ENTITY.sub(one, chunk)


def _check_tag(name: str, attrs: str, offset: int) -> None:
    if name not in SUPPORTED_TAGS:
        raise _entity_error(f'Unsupported start tag "{name}" at byte offset {offset}')
    values = {
        m.group(1).lower(): m.group(2) or m.group(3) or m.group(4) or ""
        for m in _ATTR.finditer(attrs)
    }
    if name == "span" and values.get("class") != "tg-spoiler":
        raise _entity_error(f'Tag "span" must have class "tg-spoiler" at byte offset {offset}')
    if name == "tg-emoji" and not values.get("emoji-id"):
        raise _entity_error(
            f'Tag "tg-emoji" must have attribute "emoji-id" at byte offset {offset}'
        )


def html_to_plain(text: str) -> str:
    """Validate Telegram HTML and return the text the user sees; raise `ApiError` if invalid."""
    plain: list[str] = []
    open_tags: list[str] = []
    pos = 0
    while (lt := text.find("<", pos)) != -1:
        plain.append(_unescape(text[pos:lt]))
        offset = len(text[:lt].encode())
        match = _TAG.match(text, lt)
        if match is None:
            raise _entity_error(f"Unexpected character at byte offset {offset}")
        closing, name, attrs = match.group(1) == "/", match.group(2).lower(), match.group(3)
        if closing:
            if not open_tags:
                raise _entity_error(f"Unexpected end tag at byte offset {offset}")
            if open_tags[-1] != name:
                raise _entity_error(
                    f'Unmatched end tag at byte offset {offset}, expected "</{open_tags[-1]}>", '
                    f'found "</{name}>"'
                )
            open_tags.pop()
        else:
            _check_tag(name, attrs, offset)
            open_tags.append(name)
        pos = match.end()
    plain.append(_unescape(text[pos:]))
    if open_tags:
        raise _entity_error(f'Can\'t find end tag corresponding to start tag "{open_tags[-1]}"')
    return "".join(plain)


def message_text(text: Any, parse_mode: str | None) -> str:
    """Check a message text like sendMessage does and return its plain (parsed) form."""
    if not isinstance(text, str) or not text.strip():
        raise bad_request("message text is empty")
    plain = html_to_plain(text) if (parse_mode or "").upper() == "HTML" else text
    if not plain.strip():
        raise bad_request("message text is empty")
    if len(plain) > TEXT_LIMIT:
        raise bad_request("message is too long")
    return plain


def reply_markup(markup: Any) -> dict[str, Any] | None:
    """Decode a reply_markup if needed and check every callback_data is 1-64 bytes."""
    if markup is None:
        return None
    if isinstance(markup, str):
        markup = json.loads(markup)
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    rows = markup.get("inline_keyboard", [])
    if sum(len(row) for row in rows) > KEYBOARD_BUTTONS_LIMIT:
        raise bad_request("too many buttons in the inline keyboard")
    for row in rows:
        if len(row) > ROW_BUTTONS_LIMIT:
            raise bad_request("too many buttons in a row of the inline keyboard")
        for button in row:
            data = button.get("callback_data")
            if data is not None and not 1 <= len(str(data).encode()) <= CALLBACK_DATA_LIMIT:
                raise bad_request("BUTTON_DATA_INVALID")
    return markup


def callback_answer_text(text: Any) -> None:
    """answerCallbackQuery allows at most 200 characters of text."""
    if isinstance(text, str) and len(text) > CALLBACK_ANSWER_LIMIT:
        raise bad_request("MESSAGE_TOO_LONG")


def poll_options(params: dict[str, Any]) -> list[str]:
    """Check a sendPoll's question, options and explanation; return the option texts."""
    question = params.get("question")
    if not isinstance(question, str) or not question.strip():
        raise bad_request("poll question must be non-empty")
    if len(question) > POLL_QUESTION_LIMIT:
        raise bad_request("poll question length must not exceed 300")
    raw = params.get("options") or []
    texts = [o.get("text", "") if isinstance(o, dict) else str(o) for o in raw]
    if not POLL_OPTIONS_MIN <= len(texts) <= POLL_OPTIONS_MAX:
        raise bad_request("poll must have 2-12 options")
    if any(not t.strip() or len(t) > POLL_OPTION_LIMIT for t in texts):
        raise bad_request("poll options length must not exceed 100")
    if len(params.get("explanation") or "") > POLL_EXPLANATION_LIMIT:
        raise bad_request("explanation length must not exceed 200")
    return texts


def photo_caption(caption: Any, parse_mode: str | None) -> str:
    """A photo caption: at most 1024 characters after entity parsing."""
    plain = html_to_plain(str(caption)) if (parse_mode or "").upper() == "HTML" else str(caption)
    if len(plain) > CAPTION_LIMIT:
        raise bad_request("message caption is too long")
    return plain


def photo_size(data: bytes) -> tuple[int, int]:
    """Width and height of an uploaded PNG, checked like Telegram's photo limits (size, sides
    adding up to at most 10000 px, aspect ratio at most 20)."""
    if len(data) > PHOTO_BYTES_LIMIT:
        raise bad_request("PHOTO_INVALID_DIMENSIONS")
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise bad_request("IMAGE_PROCESS_FAILED")
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if (
        not width
        or not height
        or width + height > 10000
        or max(width, height) > 20 * min(width, height)
    ):
        raise bad_request("PHOTO_INVALID_DIMENSIONS")
    return width, height


def document_size(data: bytes) -> int:
    """An uploaded document's size, refused like Telegram over 50 MB (413) or when empty."""
    if len(data) > DOCUMENT_BYTES_LIMIT:
        raise ApiError(413, "Request Entity Too Large")
    if not data:
        raise bad_request("file must be non-empty")
    return len(data)
