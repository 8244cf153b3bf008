"""`FakeBotApi`: an in-memory, thread-safe model of the Telegram Bot API for tests.

`handle(method, params) -> (http_status, json_body)` answers like Telegram: `{"ok": true,
"result": ...}` or `{"ok": false, "error_code": 400, "description": "Bad Request: ..."}`. Method
names are case-insensitive. Serve it over HTTP with `tests.fakes.server.FakeBotApiServer` or
in-process with `tests.fakes.request.FakeRequest`.

Inspecting what the bot did (all return copies, safe from any thread):
    calls, calls_of(method), count(method, chat_id=None)   every call, failed ones included
    send_counts                      successful sendMessage/sendPoll per chat_id (Counter)
    messages_to(chat_id), last_message(chat_id), last_text(chat_id), message(chat_id, message_id)
    photo(chat_id, message_id), photos_to(chat_id)   bytes of uploaded photos (sendPhoto; one
        sent again by the file_id an upload returned too: its call's `photo` param is that id,
        an upload's is "<file NAME N bytes>"); editMessageCaption edits a photo's caption
    documents_to(chat_id)            document messages and their uploaded bytes (sendDocument)
        Telegram-shaped Message dicts, current state (edits applied, deleted ones left out);
        `text` is what the user sees (HTML parsed). `source_text(chat_id, message_id)` is the
        text as the bot sent it, tags included.
    poll(poll_id), my_commands(scope=None, language_code=""), webhook_url, webhook_secret

Setting the scene:
    push_update(update) -> update_id       queue an update for getUpdates (long poll wakes up)
    set_chat(chat_id, type=..., title=..., username=...)
    set_member_status(chat_id, user_id, status, user=None)   the bot's own id is BOT_ID
    mark_uneditable(chat_id, message_id)   "message can't be edited" from now on

Faults:
    fail_next(method, error_code, description, chat_id=None, times=1, retry_after=None,
              migrate_to_chat_id=None)     method "*" matches any method
    rate_limit(retry_after=N, times=k, method=None, chat_id=None)   429 Too Many Requests
    limit_groups(per_minute=20)            429 for sends and edits over the limit in a group
    block(chat_id) / unblock(chat_id)      403 "bot was blocked by the user" on sends and edits
    migrate(chat_id, new_chat_id)          400 "group chat was upgraded..." + migrate_to_chat_id
    set_delay(method, seconds)             the answer is held back (server/FakeRequest do it):
                                           the call is processed at once, as a slow Telegram
                                           that still delivers a message the client timed out on
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from typing import Any

from tests.fakes import objects
from tests.fakes.methods import METHOD_NAMES, ApiMethods
from tests.fakes.objects import BOT_ID, BOT_USERNAME, JSON
from tests.fakes.state import Call, ChatId, Fault
from tests.fakes.validation import ApiError

__all__ = ["BOT_ID", "BOT_USERNAME", "ApiError", "Call", "ChatId", "FakeBotApi", "Response"]

Response = tuple[int, dict[str, Any]]
# Methods whose failure modes (blocked, bot left the group) depend on the target chat.
_SEND = frozenset({"sendmessage", "sendpoll", "sendphoto", "senddocument"})
_EDIT = frozenset({"editmessagetext", "editmessagecaption", "editmessagereplymarkup", "stoppoll"})


class FakeBotApi(ApiMethods):
    """In-memory Bot API; see the module docstring for the full API."""

    def __init__(
        self, username: str = BOT_USERNAME, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__(username, clock)
        self._handlers: dict[str, tuple[str, Callable[[dict[str, Any]], Any]]] = {
            name.lower(): (name, getattr(self, f"_{name}")) for name in METHOD_NAMES
        }

    # ----------------------------------------------------------------- dispatch
    def handle(
        self, method: str, params: dict[str, Any], files: dict[str, bytes] | None = None
    ) -> Response:
        """Answer one Bot API call: (HTTP status, JSON body); `files` are multipart uploads."""
        key = method.lower()
        name, handler = self._handlers.get(key, (method, None))
        with self._lock:
            self._calls.append(Call(name, copy.deepcopy(params), time.monotonic()))
            try:
                if handler is None:
                    raise ApiError(404, "Not Found: method not found")
                self._inject_faults(key, params)
                self._uploads = files or {}
                result = handler(params)
                if params.get("message_thread_id") and isinstance(result, dict):
                    self._in_topic(result, int(params["message_thread_id"]))
            except ApiError as error:
                return error.error_code, error.body()
            return 200, {"ok": True, "result": result}

    def _in_topic(self, result: dict[str, Any], thread: int) -> None:
        """A message sent into a forum topic says so, as Telegram's does (stored and echoed)."""
        key = (result.get("chat", {}).get("id"), result.get("message_id"))
        stored = self._messages.get(key)  # type: ignore[arg-type]
        for message in (result, stored.message if stored is not None else {}):
            message["message_thread_id"] = thread
            message["is_topic_message"] = True

    def delay_for(self, method: str) -> float:
        """Seconds the transport should hold back the answer to `method`."""
        with self._lock:
            return self._delays.get(method.lower(), 0.0)

    def _inject_faults(self, method: str, params: dict[str, Any]) -> None:
        for fault in self._faults:
            if fault.times > 0 and fault.matches(method, params):
                fault.times -= 1
                self._faults = [f for f in self._faults if f.times > 0]
                raise fault.error
        if "chat_id" not in params:
            return
        chat_id = self._chat_id(params)
        if chat_id in self._migrated:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self._migrated[chat_id]},
            )
        if method in _SEND | _EDIT:
            if chat_id in self._blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            status = self._members.get((chat_id, BOT_ID), ("member", {}))[0]
            if status in ("left", "kicked"):
                kind = self._chat(chat_id)["type"]
                verb = "is not a member of" if status == "left" else "was kicked from"
                raise ApiError(403, f"Forbidden: bot {verb} the {kind} chat")
            if chat_id < 0 and self._group_limit:
                self._take_group_budget(chat_id)

    def _take_group_budget(self, chat_id: int) -> None:
        """Telegram's about-20-a-minute in one group, on the fake's clock."""
        now = self.clock()
        sends = self._group_sends[chat_id]
        while sends and sends[0] <= now - 60:
            sends.popleft()
        if len(sends) >= self._group_limit:
            wait = max(1, math.ceil(sends[0] + 60 - now))
            raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        sends.append(now)

    # ----------------------------------------------------------------- scene setup
    def push_update(self, update: JSON) -> int:
        """Queue an update for getUpdates; its `update_id` is assigned here and returned."""
        with self._lock:
            update_id = next(self._next_update_id)
            self._updates.append({**copy.deepcopy(update), "update_id": update_id})
            self._updates_ready.notify_all()
            return update_id

    def interrupt_polls(self) -> None:
        """Make every long-polling getUpdates return now (used when a server shuts down)."""
        with self._lock:
            self._poll_interrupts += 1
            self._updates_ready.notify_all()

    def set_chat(
        self,
        chat_id: int,
        *,
        type: str | None = None,  # the Bot API's own field name
        title: str | None = None,
        username: str | None = None,
    ) -> None:
        """Override the Chat object for `chat_id` (e.g. a channel, or a username for @lookup)."""
        with self._lock:
            self._chats[chat_id] = objects.chat(chat_id, type, title, username)

    def set_member_status(
        self, chat_id: int, user_id: int, status: str, user: JSON | None = None
    ) -> None:
        """Set what getChatMember reports; for `BOT_ID`, "left"/"kicked" make sends 403."""
        if user is None:
            user = objects.bot_user(self.username) if user_id == BOT_ID else objects.user(user_id)
        objects.chat_member(status, user)  # validates the status early
        with self._lock:
            self._members[(chat_id, user_id)] = (status, user)

    def mark_uneditable(self, chat_id: int, message_id: int) -> None:
        """From now on editing this message fails with "message can't be edited"."""
        with self._lock:
            self._stored(chat_id, message_id, "message to edit not found").editable = False

    # ----------------------------------------------------------------- faults
    def fail_next(
        self,
        method: str,
        error_code: int,
        description: str,
        *,
        chat_id: ChatId | None = None,
        times: int = 1,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
    ) -> None:
        """Fail the next `times` calls of `method` ("*" for any), optionally only for `chat_id`."""
        parameters: dict[str, Any] = {}
        if retry_after is not None:
            parameters["retry_after"] = retry_after
        if migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = migrate_to_chat_id
        error = ApiError(error_code, description, parameters)
        with self._lock:
            self._faults.append(Fault(method.lower(), chat_id, times, error))

    def rate_limit(
        self,
        retry_after: int = 1,
        times: int = 1,
        *,
        method: str | None = None,
        chat_id: ChatId | None = None,
    ) -> None:
        """Answer 429 to the next `times` calls that carry a chat_id (or of `method`)."""
        error = ApiError(
            429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
        )
        with self._lock:
            self._faults.append(Fault(method and method.lower(), chat_id, times, error))

    def limit_groups(self, per_minute: int = 20) -> None:
        """From now on, sends and edits into a group (a negative chat id) over `per_minute` in
        a rolling minute of the fake's clock get 429 with the seconds until one is free."""
        with self._lock:
            self._group_limit = per_minute

    def block(self, chat_id: int) -> None:
        """The user blocked the bot: sends and edits to `chat_id` get 403."""
        with self._lock:
            self._blocked.add(chat_id)

    def unblock(self, chat_id: int) -> None:
        """The user restarted the bot."""
        with self._lock:
            self._blocked.discard(chat_id)

    def migrate(self, chat_id: int, new_chat_id: int) -> None:
        """The group became a supergroup: calls with the old id get 400 + migrate_to_chat_id."""
        with self._lock:
            self._migrated[chat_id] = new_chat_id

    def set_delay(self, method: str, seconds: float) -> None:
        """Hold back answers to `method` by `seconds` (applied by the transport)."""
        with self._lock:
            self._delays[method.lower()] = seconds

    # ----------------------------------------------------------------- inspection
    @property
    def calls(self) -> list[Call]:
        """Every call so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._calls)

    def calls_of(self, method: str) -> list[Call]:
        """The calls of one method (case-insensitive)."""
        return [c for c in self.calls if c.method.lower() == method.lower()]

    def count(self, method: str, chat_id: ChatId | None = None) -> int:
        """How many calls of `method` (to `chat_id`, if given) arrived, failed ones included."""
        calls = self.calls_of(method)
        return sum(1 for c in calls if chat_id is None or c.params.get("chat_id") == chat_id)

    def sends_by_chat(self) -> dict[ChatId, int]:
        """Successful sendMessage/sendPoll per chat so far (a copy, taken under the lock)."""
        with self._lock:
            return dict(self.send_counts)

    def clear_calls(self) -> None:
        """Forget recorded calls and send counts (state such as messages is kept)."""
        with self._lock:
            self._calls.clear()
            self.send_counts.clear()

    def message(self, chat_id: int, message_id: int) -> JSON:
        """The Message dict as the bot sent it (edits applied); KeyError if unknown."""
        with self._lock:
            return copy.deepcopy(self._messages[(chat_id, message_id)].message)

    def source_text(self, chat_id: int, message_id: int) -> str | None:
        """The text of a message as the bot sent it (HTML tags and entities included)."""
        with self._lock:
            return self._messages[(chat_id, message_id)].source_text

    def messages_to(self, chat_id: int) -> list[JSON]:
        """Messages in `chat_id` that still exist, oldest first."""
        with self._lock:
            found = [
                s.message
                for (chat, _), s in sorted(self._messages.items())
                if chat == chat_id and not s.deleted
            ]
            return copy.deepcopy(found)

    def last_message(self, chat_id: int) -> JSON | None:
        """The newest existing message in `chat_id`, if any."""
        messages = self.messages_to(chat_id)
        return messages[-1] if messages else None

    def last_text(self, chat_id: int) -> str | None:
        """The text the user sees in the newest existing text message of `chat_id`."""
        texts = [m["text"] for m in self.messages_to(chat_id) if "text" in m]
        return texts[-1] if texts else None

    def last_words(self, chat_id: int) -> str | None:
        """What the user reads in the newest message of `chat_id` with words: its text, or a
        photo's or document's caption."""
        words = [m.get("text", m.get("caption")) for m in self.messages_to(chat_id)]
        found = [w for w in words if w is not None]
        return found[-1] if found else None

    def photo(self, chat_id: int, message_id: int) -> bytes:
        """The bytes of a photo the bot uploaded (sendPhoto with a file)."""
        with self._lock:
            return self._photos[(chat_id, message_id)]

    def photos_to(self, chat_id: int) -> list[tuple[JSON, bytes]]:
        """Photo messages in `chat_id` with their uploaded bytes, oldest first."""
        with self._lock:
            found = [
                (copy.deepcopy(self._messages[key].message), data)
                for key, data in sorted(self._photos.items())
                if key[0] == chat_id and not self._messages[key].deleted
            ]
            return found

    def documents_to(self, chat_id: int) -> list[tuple[JSON, bytes]]:
        """Document messages in `chat_id` with their uploaded bytes, oldest first."""
        with self._lock:
            return [
                (copy.deepcopy(self._messages[key].message), data)
                for key, data in sorted(self._documents.items())
                if key[0] == chat_id and not self._messages[key].deleted
            ]

    def poll(self, poll_id: str) -> JSON:
        """The current Poll object of a poll the bot sent."""
        with self._lock:
            chat_id, message_id = self._polls[poll_id]
            return copy.deepcopy(self._messages[(chat_id, message_id)].message["poll"])

    def my_commands(self, scope: JSON | None = None, language_code: str = "") -> list[JSON]:
        """The command list set with setMyCommands for a scope and language."""
        with self._lock:
            return copy.deepcopy(self._commands.get(self._scope_key(scope, language_code), []))

    @property
    def webhook_url(self) -> str:
        """The webhook URL set by the bot ("" when polling)."""
        with self._lock:
            return str(self._webhook.get("url", ""))

    @property
    def webhook_secret(self) -> str | None:
        """The secret_token the bot gave to setWebhook."""
        with self._lock:
            return self._webhook.get("secret_token")

    @property
    def pending_updates(self) -> int:
        """Updates pushed but not yet confirmed by a later getUpdates offset."""
        with self._lock:
            return len(self._updates)
