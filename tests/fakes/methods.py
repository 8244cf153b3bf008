"""The Bot API methods `FakeBotApi` implements, one handler per method.

Each `_<methodName>(params)` runs with the lock held, returns the `result` Telegram would send
and raises `ApiError` for an error answer. Results are JSON-ready dicts PTB can `de_json`.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.fakes import objects, validation
from tests.fakes.objects import BOT_ID, JSON
from tests.fakes.state import ApiState, Stored
from tests.fakes.validation import ApiError, bad_request

CHAT_ACTIONS = frozenset(
    (
        "typing", "upload_photo", "record_video", "upload_video", "record_voice",
        "upload_voice", "upload_document", "choose_sticker", "find_location",
        "record_video_note", "upload_video_note",
    )
)  # fmt: skip

# Bot API method names, in their canonical spelling.
METHOD_NAMES = (
    "getMe",
    "getUpdates",
    "deleteWebhook",
    "setWebhook",
    "getWebhookInfo",
    "setMyCommands",
    "getMyCommands",
    "deleteMyCommands",
    "sendMessage",
    "editMessageText",
    "editMessageReplyMarkup",
    "deleteMessage",
    "answerCallbackQuery",
    "getChatMember",
    "getChat",
    "getChatAdministrators",
    "sendPoll",
    "sendPhoto",
    "editMessageCaption",
    "sendDocument",
    "sendChatAction",
    "stopPoll",
    "leaveChat",
    "close",
    "logOut",
)

LONG_POLL_CAP = 1.0  # seconds; keeps shutting down a polling bot quick
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)
_CONFLICT = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete "
    "the webhook first"
)
Params = dict[str, Any]


class ApiMethods(ApiState):
    """Bot API method handlers over `ApiState`."""

    # ------------------------------------------------------------- bot and updates
    def _getMe(self, params: Params) -> JSON:
        return {
            **objects.bot_user(self.username),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _getUpdates(self, params: Params) -> list[JSON]:
        if self._webhook.get("url"):
            raise ApiError(409, _CONFLICT)
        offset = int(params.get("offset") or 0)
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = min(float(params.get("timeout") or 0), LONG_POLL_CAP)
        if offset > 0:
            # An offset confirms every update before it: Telegram forgets them.
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif offset < 0:
            self._updates = self._updates[offset:]
        interrupts = self._poll_interrupts
        # Condition.wait releases the lock, so pushes and other calls go on meanwhile.
        self._updates_ready.wait_for(
            lambda: bool(self._updates) or self._poll_interrupts != interrupts, timeout
        )
        return copy.deepcopy(self._updates[:limit])

    def _setWebhook(self, params: Params) -> bool:
        url = params.get("url") or ""
        if params.get("drop_pending_updates"):
            self._updates.clear()
        self._webhook = {key: value for key, value in params.items() if value is not None}
        self._webhook["url"] = url
        return True

    def _deleteWebhook(self, params: Params) -> bool:
        if params.get("drop_pending_updates"):
            self._updates.clear()
        self._webhook = {}
        return True

    def _getWebhookInfo(self, params: Params) -> JSON:
        info: JSON = {
            "url": self._webhook.get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        if info["url"]:
            info["max_connections"] = self._webhook.get("max_connections", 40)
            if "allowed_updates" in self._webhook:
                info["allowed_updates"] = self._webhook["allowed_updates"]
        return info

    def _setMyCommands(self, params: Params) -> bool:
        commands = params.get("commands") or []
        if len(commands) > 100:
            raise bad_request("BOT_COMMANDS_TOO_MUCH")
        for command in commands:
            name, text = str(command.get("command", "")), str(command.get("description", ""))
            valid_name = 1 <= len(name) <= 32 and all(c.isalnum() or c == "_" for c in name)
            if not valid_name or name.lower() != name or not 1 <= len(text) <= 256:
                raise bad_request("BOT_COMMAND_INVALID")
        key = self._scope_key(params.get("scope"), params.get("language_code"))
        self._commands[key] = copy.deepcopy(list(commands))
        return True

    def _getMyCommands(self, params: Params) -> list[JSON]:
        key = self._scope_key(params.get("scope"), params.get("language_code"))
        return copy.deepcopy(self._commands.get(key, []))

    def _deleteMyCommands(self, params: Params) -> bool:
        self._commands.pop(self._scope_key(params.get("scope"), params.get("language_code")), None)
        return True

    def _close(self, params: Params) -> bool:
        return True

    def _logOut(self, params: Params) -> bool:
        return True

    # ------------------------------------------------------------- messages
    def _sendMessage(self, params: Params) -> JSON:
        chat_id = self._chat_id(params)
        parse_mode = params.get("parse_mode")
        plain = validation.message_text(params.get("text"), parse_mode)
        markup = validation.reply_markup(params.get("reply_markup"))
        fields: JSON = {"text": plain}
        # A sent Message carries only an inline keyboard: ForceReply and reply keyboards act
        # on the client and are not echoed back.
        if markup is not None and "inline_keyboard" in markup:
            fields["reply_markup"] = markup
        key = self._sent(chat_id, fields, params["text"], parse_mode)
        return copy.deepcopy(self._messages[key].message)

    def _editMessageText(self, params: Params) -> JSON | bool:
        parse_mode = params.get("parse_mode")
        plain = validation.message_text(params.get("text"), parse_mode)
        markup = validation.reply_markup(params.get("reply_markup"))
        if params.get("inline_message_id"):
            return True
        stored = self._editable(params)
        if "text" not in stored.message:
            raise bad_request("there is no text in the message to edit")
        same_text = (stored.source_text, stored.parse_mode) == (params["text"], parse_mode)
        if same_text and stored.message.get("reply_markup") == markup:
            raise bad_request(NOT_MODIFIED)
        stored.source_text, stored.parse_mode = params["text"], parse_mode
        stored.message["text"] = plain
        return self._apply_edit(stored, markup)

    def _editMessageReplyMarkup(self, params: Params) -> JSON | bool:
        markup = validation.reply_markup(params.get("reply_markup"))
        if params.get("inline_message_id"):
            return True
        stored = self._editable(params)
        if stored.message.get("reply_markup") == markup:
            raise bad_request(NOT_MODIFIED)
        return self._apply_edit(stored, markup)

    def _deleteMessage(self, params: Params) -> bool:
        chat_id = self._chat_id(params)
        self._stored(
            chat_id, params.get("message_id"), "message to delete not found"
        ).deleted = True
        return True

    def _answerCallbackQuery(self, params: Params) -> bool:
        if not params.get("callback_query_id"):
            raise bad_request("QUERY_ID_INVALID")
        validation.callback_answer_text(params.get("text"))
        return True

    def _editable(self, params: Params) -> Stored:
        chat_id = self._chat_id(params)
        stored = self._stored(chat_id, params.get("message_id"), "message to edit not found")
        if not stored.editable:
            raise bad_request("message can't be edited")
        return stored

    def _apply_edit(self, stored: Stored, markup: JSON | None) -> JSON:
        # An edit without reply_markup removes the inline keyboard, as on Telegram.
        if markup is None:
            stored.message.pop("reply_markup", None)
        else:
            stored.message["reply_markup"] = markup
        stored.message["edit_date"] = int(self.clock())
        return copy.deepcopy(stored.message)

    def _upload(self, params: Params, kind: str) -> tuple[int, Any, JSON, bytes]:
        """What a sendPhoto/sendDocument shares: chat, parse mode, caption, the uploaded bytes."""
        chat_id = self._chat_id(params)
        parse_mode = params.get("parse_mode")
        caption = params.get("caption")
        fields: JSON = {}
        if caption:
            fields["caption"] = validation.photo_caption(caption, parse_mode)
        data = self._uploads.get(kind)
        if data is None:
            raise bad_request("wrong remote file identifier specified")  # only uploads here
        return chat_id, parse_mode, fields, data

    def _sendPhoto(self, params: Params) -> JSON:
        if "photo" in self._uploads:
            chat_id, parse_mode, fields, data = self._upload(params, "photo")
            width, height = validation.photo_size(data)
            unique = f"photo{len(self._file_ids) + 1}"
            file_id = f"{unique}-id"
            self._file_ids[file_id] = data
        else:
            # A file_id this bot got from an earlier upload: sent again without the bytes.
            file_id = str(params.get("photo", ""))
            known = self._file_ids.get(file_id)
            if known is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
            self._uploads = {"photo": known}
            chat_id, parse_mode, fields, data = self._upload(params, "photo")
            width, height = validation.photo_size(data)
            unique = file_id.removesuffix("-id")
        markup = validation.reply_markup(params.get("reply_markup"))
        if markup is not None:
            fields["reply_markup"] = markup
        fields["photo"] = [
            {
                "file_id": file_id,
                "file_unique_id": unique,
                "width": width,
                "height": height,
                "file_size": len(data),
            }
        ]
        key = self._sent(chat_id, fields, params.get("caption"), parse_mode)
        self._photos[key] = data
        return copy.deepcopy(self._messages[key].message)

    def _editMessageCaption(self, params: Params) -> JSON | bool:
        parse_mode = params.get("parse_mode")
        caption = params.get("caption")
        plain = validation.photo_caption(caption, parse_mode) if caption else ""
        markup = validation.reply_markup(params.get("reply_markup"))
        if params.get("inline_message_id"):
            return True
        stored = self._editable(params)
        if "text" in stored.message:
            raise bad_request("there is no caption in the message to edit")
        same = (stored.source_text, stored.parse_mode) == (caption, parse_mode)
        if same and stored.message.get("reply_markup") == markup:
            raise bad_request(NOT_MODIFIED)
        stored.source_text, stored.parse_mode = caption, parse_mode
        if plain:
            stored.message["caption"] = plain
        else:
            stored.message.pop("caption", None)
        return self._apply_edit(stored, markup)

    def _sendChatAction(self, params: Params) -> bool:
        self._chat_id(params)
        if params.get("action") not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        return True

    def _sendDocument(self, params: Params) -> JSON:
        chat_id, parse_mode, fields, data = self._upload(params, "document")
        name = str(params.get("document", "")).split(" ")[1:2] or ["document"]
        unique = f"document{len(self._documents) + 1}"
        fields["document"] = {
            "file_id": f"{unique}-id",
            "file_unique_id": unique,
            "file_name": name[0],
            "file_size": validation.document_size(data),
        }
        key = self._sent(chat_id, fields, None, parse_mode)
        self._documents[key] = data
        return copy.deepcopy(self._messages[key].message)

    # ------------------------------------------------------------- polls
    def _sendPoll(self, params: Params) -> JSON:
        chat_id = self._chat_id(params)
        texts = validation.poll_options(params)
        if not 1 <= len(str(params.get("question") or "")) <= 300:
            raise bad_request("POLL_QUESTION_INVALID")
        is_anonymous = params.get("is_anonymous", True) is not False
        if not is_anonymous and self._chat(chat_id)["type"] == "channel":
            raise bad_request("non-anonymous polls can't be sent to channel chats")
        poll: JSON = {
            "id": str(next(self._next_poll_id)),
            "question": params["question"],
            "options": [
                {"text": text, "voter_count": 0, "persistent_id": str(i)}
                for i, text in enumerate(texts)
            ],
            "total_voter_count": 0,
            "is_closed": bool(params.get("is_closed", False)),
            "is_anonymous": is_anonymous,
            "type": params.get("type") or "regular",
            "allows_multiple_answers": bool(params.get("allows_multiple_answers", False)),
            "allows_revoting": bool(params.get("allows_revoting", False)),
            "members_only": bool(params.get("members_only", False)),
        }
        correct = params.get("correct_option_ids")
        if correct is None and params.get("correct_option_id") is not None:
            correct = [params["correct_option_id"]]  # pre-9.6 spelling
        if poll["type"] == "quiz":
            if not correct or any(not 0 <= int(i) < len(texts) for i in correct):
                raise bad_request("wrong correct option ids specified")
            poll["correct_option_ids"] = [int(i) for i in correct]
        for key in ("explanation", "open_period", "close_date"):
            if params.get(key) is not None:
                poll[key] = params[key]
        fields: JSON = {"poll": poll}
        markup = validation.reply_markup(params.get("reply_markup"))
        if markup is not None:
            fields["reply_markup"] = markup
        key = self._sent(chat_id, fields)
        self._polls[poll["id"]] = key
        return copy.deepcopy(self._messages[key].message)

    def _stopPoll(self, params: Params) -> JSON:
        chat_id = self._chat_id(params)
        stored = self._stored(
            chat_id, params.get("message_id"), "message with poll to stop not found"
        )
        poll = stored.message.get("poll")
        if poll is None:
            raise bad_request("message with poll to stop not found")
        if poll["is_closed"]:
            raise bad_request("poll has already been closed")
        poll["is_closed"] = True
        return copy.deepcopy(poll)

    # ------------------------------------------------------------- chats
    def _getChat(self, params: Params) -> JSON:
        return objects.chat_full_info(self._chat(self._chat_id(params)))

    def _getChatMember(self, params: Params) -> JSON:
        chat_id = self._chat_id(params)
        user_id = params.get("user_id")
        if not isinstance(user_id, int) or isinstance(user_id, bool):
            raise bad_request("invalid user_id specified")
        return self._member_of(chat_id, user_id)

    def _getChatAdministrators(self, params: Params) -> list[JSON]:
        chat_id = self._chat_id(params)
        if self._chat(chat_id)["type"] == "private":
            raise bad_request("there are no administrators in the private chat")
        return [
            self._member_of(chat, user_id)
            for (chat, user_id), (status, _) in sorted(self._members.items())
            if chat == chat_id and status in ("creator", "administrator")
        ]

    def _leaveChat(self, params: Params) -> bool:
        chat_id = self._chat_id(params)
        if self._chat(chat_id)["type"] == "private":
            raise bad_request("chat member status can't be changed in private chats")
        self._members[(chat_id, BOT_ID)] = ("left", objects.bot_user(self.username))
        return True
