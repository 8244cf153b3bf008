"""Turning the Bot API's wire formats back into Python values.

python-telegram-bot posts form fields: a string value is sent as is and everything else (ints,
bools, lists, `reply_markup`) as a JSON-encoded string. So `chat_id=123` arrives as "123" and must
become 123, while `text=123` must stay "123". `decode_params` JSON-decodes every field except the
known free-text ones; a value that is not valid JSON (`@channel`, a file id) stays a string.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

# Fields whose value is free text or an opaque id: never JSON-decoded.
FREE_TEXT_FIELDS = frozenset(
    {
        "text",
        "caption",
        "question",
        "explanation",
        "description",
        "short_description",
        "name",
        "title",
        "url",
        "secret_token",
        "query",
        "callback_query_id",
        "inline_query_id",
        "inline_message_id",
        "parse_mode",
        "explanation_parse_mode",
        "question_parse_mode",
        "description_parse_mode",
        "caption_parse_mode",
        "language_code",
        "custom_title",
        "ip_address",
        "action",
        "emoji",
        "first_name",
        "last_name",
        "phone_number",
        "vcard",
        "address",
        "payload",
        "currency",
        "start_parameter",
        "invite_link",
        "business_connection_id",
        "next_offset",
        "switch_pm_text",
        "switch_pm_parameter",
        "error_message",
        "game_short_name",
        "sticker_set_name",
        "set_name",
        "message_effect_id",
    }
)


def decode_params(raw: Mapping[str, str]) -> dict[str, Any]:
    """Decode form or query-string fields as sent by PTB into Python values."""
    decoded: dict[str, Any] = {}
    for key, value in raw.items():
        if key in FREE_TEXT_FIELDS or not isinstance(value, str):
            decoded[key] = value
            continue
        try:
            decoded[key] = json.loads(value)
        except ValueError:
            decoded[key] = value
    return decoded
