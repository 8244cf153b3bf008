"""The state behind `FakeBotApi` and the helpers its method handlers share.

Everything here runs with `ApiState._lock` held (the public methods in `botapi.py` take it), so
nothing in this module locks on its own.
"""

from __future__ import annotations

import copy
import itertools
import json
import threading
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fakes import objects
from tests.fakes.objects import BOT_ID, BOT_USERNAME, JSON
from tests.fakes.validation import ApiError, bad_request

ChatId = int | str


@dataclass(frozen=True)
class Call:
    """One recorded API call; `at` is `time.monotonic()` when it arrived."""

    method: str
    params: dict[str, Any]
    at: float


@dataclass
class Fault:
    """An injected error for the next `times` matching calls."""

    method: str | None  # lower-case name, "*" for any, None for any call with a chat_id
    chat_id: ChatId | None
    times: int
    error: ApiError

    def matches(self, method: str, params: dict[str, Any]) -> bool:
        if self.method is None and "chat_id" not in params:
            return False
        if self.method not in (None, "*", method):
            return False
        return self.chat_id is None or params.get("chat_id") == self.chat_id


@dataclass
class Stored:
    """A message the bot sent, with what the fake needs to judge edits."""

    message: JSON  # Telegram-shaped, as returned to the bot
    source_text: str | None
    parse_mode: str | None
    editable: bool = True
    deleted: bool = False


class ApiState:
    """All mutable state of the fake, guarded by one lock."""

    def __init__(
        self, username: str = BOT_USERNAME, clock: Callable[[], float] = time.time
    ) -> None:
        self.username = username
        self.clock = clock  # message dates; inject to control them
        self._lock = threading.Lock()
        self._updates_ready = threading.Condition(self._lock)
        self._calls: list[Call] = []
        self.send_counts: Counter[ChatId] = Counter()
        self._updates: list[JSON] = []
        self._next_update_id = itertools.count(1)
        self._poll_interrupts = 0
        self._messages: dict[tuple[int, int], Stored] = {}
        self._last_message_id: defaultdict[int, int] = defaultdict(int)
        self._polls: dict[str, tuple[int, int]] = {}
        self._next_poll_id = itertools.count(5000000001)
        self._chats: dict[int, JSON] = {}
        self._members: dict[tuple[int, int], tuple[str, JSON]] = {}
        self._blocked: set[int] = set()
        self._migrated: dict[int, int] = {}
        self._faults: list[Fault] = []
        self._group_limit = 0  # sends and edits a minute per group (0: no limit)
        self._group_sends: defaultdict[int, deque[float]] = defaultdict(deque)
        self._delays: dict[str, float] = {}
        self._commands: dict[tuple[str, str], list[JSON]] = {}
        self._webhook: JSON = {}
        self._uploads: dict[str, bytes] = {}  # files of the call being handled
        self._photos: dict[tuple[int, int], bytes] = {}
        self._file_ids: dict[str, bytes] = {}  # every photo uploaded, by the file_id it got
        self._documents: dict[tuple[int, int], bytes] = {}

    def _chat_id(self, params: dict[str, Any]) -> int:
        raw = params.get("chat_id")
        if isinstance(raw, bool) or raw is None or raw == "":
            raise bad_request("chat_id is empty")
        if isinstance(raw, int):
            return raw
        text = str(raw)
        if text.startswith("@"):
            for chat_id, chat in self._chats.items():
                if chat.get("username", "").lower() == text[1:].lower():
                    return chat_id
            raise bad_request("chat not found")
        try:
            return int(text)
        except ValueError:
            raise bad_request("chat not found") from None

    def _chat(self, chat_id: int) -> JSON:
        return copy.deepcopy(self._chats.get(chat_id) or objects.chat(chat_id))

    def _stored(self, chat_id: int, message_id: Any, missing: str) -> Stored:
        stored = self._messages.get((chat_id, message_id))
        if stored is None or stored.deleted:
            raise bad_request(missing)
        return stored

    def _sent(
        self, chat_id: int, fields: JSON, source: str | None = None, parse_mode: Any = None
    ) -> tuple[int, int]:
        """A message the bot sent: made, stored and counted; its (chat id, message id) key."""
        message = self._new_message(chat_id, fields)
        key = (chat_id, message["message_id"])
        self._messages[key] = Stored(message, source, parse_mode)
        self.send_counts[chat_id] += 1
        return key

    def _new_message(self, chat_id: int, fields: JSON) -> JSON:
        self._last_message_id[chat_id] += 1
        chat = self._chat(chat_id)
        message: JSON = {
            "message_id": self._last_message_id[chat_id],
            "date": int(self.clock()),
            "chat": chat,
        }
        # Channel posts carry the channel as sender, not the bot.
        if chat["type"] == "channel":
            message["sender_chat"] = chat
        else:
            message["from"] = objects.bot_user(self.username)
        message.update(fields)
        return message

    @staticmethod
    def _scope_key(scope: Any, language_code: Any) -> tuple[str, str]:
        scope = scope or {"type": "default"}
        return json.dumps(scope, sort_keys=True), str(language_code or "")

    def _member_of(self, chat_id: int, user_id: int) -> JSON:
        status, user = self._members.get((chat_id, user_id), ("member", {}))
        if not user:
            user = objects.bot_user(self.username) if user_id == BOT_ID else objects.user(user_id)
        return objects.chat_member(status, user)
