"""Bot API JSON objects shared by the fake API and `tests/factories.py`.

Every builder returns a plain dict shaped like the Bot API's JSON, with the fields that
python-telegram-bot 22.8 requires to `de_json` it (it rejects, e.g., an administrator without
`can_post_stories`), so the fake and the factories can never disagree on an object's shape.
"""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]

BOT_ID = 1000001
BOT_USERNAME = "quizbot_test_bot"
BOT_FIRST_NAME = "Quiz Bot"

MEMBER_STATUSES = ("creator", "administrator", "member", "restricted", "left", "kicked")


def user(
    user_id: int,
    first_name: str | None = None,
    username: str | None = None,
    *,
    is_bot: bool = False,
    language_code: str | None = None,
) -> JSON:
    """A User object; the first name defaults to `User <id>`."""
    data: JSON = {"id": user_id, "is_bot": is_bot, "first_name": first_name or f"User {user_id}"}
    if username is not None:
        data["username"] = username
    if language_code is not None:
        data["language_code"] = language_code
    return data


def bot_user(username: str = BOT_USERNAME) -> JSON:
    """The bot's own User object, as it appears in `from` of the messages it sends."""
    return user(BOT_ID, BOT_FIRST_NAME, username, is_bot=True)


def chat_type_for(chat_id: int) -> str:
    """The chat type Telegram's id ranges imply: private > 0, supergroup -100..., group < 0."""
    if chat_id > 0:
        return "private"
    return "supergroup" if str(chat_id).startswith("-100") else "group"


def chat(
    chat_id: int,
    chat_type: str | None = None,
    title: str | None = None,
    username: str | None = None,
) -> JSON:
    """A Chat object; private chats get a first name, the others a title."""
    kind = chat_type or chat_type_for(chat_id)
    data: JSON = {"id": chat_id, "type": kind}
    if kind == "private":
        data["first_name"] = title or f"User {chat_id}"
    else:
        data["title"] = title or f"{kind.capitalize()} {chat_id}"
    if username is not None:
        data["username"] = username
    return data


def chat_full_info(chat_data: JSON) -> JSON:
    """A ChatFullInfo (what getChat returns): a Chat plus the fields PTB 22.8 requires."""
    return {
        **chat_data,
        "accent_color_id": 0,
        "max_reaction_count": 11,
        "accepted_gift_types": {
            "unlimited_gifts": False,
            "limited_gifts": False,
            "unique_gifts": False,
            "premium_subscription": False,
            "gifts_from_channels": False,
        },
    }


_ADMIN_RIGHTS = (
    "can_manage_chat",
    "can_delete_messages",
    "can_manage_video_chats",
    "can_restrict_members",
    "can_promote_members",
    "can_change_info",
    "can_invite_users",
    "can_post_stories",
    "can_edit_stories",
    "can_delete_stories",
    "can_pin_messages",
)

_RESTRICTED_RIGHTS = (
    "can_change_info",
    "can_invite_users",
    "can_pin_messages",
    "can_send_messages",
    "can_send_polls",
    "can_send_other_messages",
    "can_add_web_page_previews",
    "can_manage_topics",
    "can_send_audios",
    "can_send_documents",
    "can_send_photos",
    "can_send_videos",
    "can_send_video_notes",
    "can_send_voice_notes",
    "can_edit_tag",
    "can_react_to_messages",
)


def chat_member(status: str, member: JSON) -> JSON:
    """A ChatMember of the given status for the `member` User, with the flags PTB requires."""
    data: JSON = {"status": status, "user": member}
    if status == "creator":
        data["is_anonymous"] = False
    elif status == "administrator":
        # An admin with every right but promoting others: the common "bot admin" shape.
        data.update(dict.fromkeys(_ADMIN_RIGHTS, True), can_be_edited=False, is_anonymous=False)
        data["can_promote_members"] = False
    elif status == "restricted":
        data.update(dict.fromkeys(_RESTRICTED_RIGHTS, False), is_member=True, until_date=0)
    elif status == "kicked":
        data["until_date"] = 0
    elif status not in ("member", "left"):
        raise ValueError(f"unknown chat member status {status!r}; use one of {MEMBER_STATUSES}")
    return data
