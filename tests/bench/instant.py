"""An instant Bot API for benchmarks: answers every call at once, echoing what was sent."""

from __future__ import annotations

import json
import time
from typing import Any

from telegram.request import BaseRequest, RequestData

BOT = {"id": 1000001, "is_bot": True, "first_name": "quizbot", "username": "quizbot_bench_bot"}


class InstantRequest(BaseRequest):
    """No network, no fault injection: the cheapest transport PTB can have.

    Sent and edited messages come back as Telegram returns them, text and keyboard included,
    since parsing that answer is part of what every real call costs. `sends` holds the
    monotonic time of each sendMessage, for measuring a paced push. With `keep_last`, the
    newest sendMessage per chat is kept (a learner taps its buttons); without, a push to many
    chats measures the bot's memory, not this fake's.
    """

    def __init__(self, keep_last: bool = False) -> None:
        self.calls = 0
        self.sends: list[float] = []
        self._message_id = 0
        self.keep_last = keep_last
        # Per chat: the id and params of the newest sendMessage.
        self.last_sent: dict[int, tuple[int, dict[str, Any]]] = {}

    @property
    def read_timeout(self) -> float | None:
        return 1.0

    async def initialize(self) -> None:
        """Nothing to open."""

    async def shutdown(self) -> None:
        """Nothing to close."""

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        self.calls += 1
        name = url.rsplit("/", 1)[1]
        params = request_data.parameters if request_data else {}
        result: Any = True
        if name == "getMe":
            result = BOT
        elif name in ("sendMessage", "editMessageText"):
            if name == "sendMessage":
                self._message_id += 1
                self.sends.append(time.monotonic())
                if self.keep_last:
                    self.last_sent[int(params.get("chat_id", 1))] = (self._message_id, params)
            chat_id = params.get("chat_id", 1)
            result = {
                "message_id": params.get("message_id", self._message_id),
                "date": int(time.time()),
                "chat": {"id": chat_id, "type": "private" if int(chat_id) > 0 else "supergroup"},
                "from": BOT,
                "text": params.get("text", ""),
            }
            if "reply_markup" in params:
                result["reply_markup"] = params["reply_markup"]
        return 200, json.dumps({"ok": True, "result": result}).encode()
