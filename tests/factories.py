"""Update payloads as Telegram sends them, for `Update.de_json(payload, bot)`.

    u = factories.user(42, "Ada")
    c = factories.private_chat(u)
    update = Update.de_json(factories.command("/start", u, c), app.bot)
    # a button press on a message the bot sent, read back from the fake API:
    press = factories.callback("a:7:2", u, api.message(c["id"], 1))

Every payload gets the next `update_id` of a module-wide counter. Incoming messages get ids from
their own counter starting at 1,000,000, far from the small per-chat ids `FakeBotApi` hands out,
so an incoming message never collides with one the bot sent. `FakeBotApi.push_update` assigns its
own update ids, so these payloads can be pushed as they are.

Tests read and seed the database through the storage port (`bot.storage.factory`) or the
helpers at the end of this module (`rows`, `one`, `execute`, `blocking`), never through a
driver, so that the suite can run on another backend. Only the tests about the SQLite engine,
listed in SQLITE_ENGINE_TESTS, use sqlite3 directly.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bot.storage.factory import connect_blocking, prepare_database
from bot.storage.port import Connection
from tests.backend import close_at_end, database
from tests.fakes.objects import BOT_USERNAME, JSON, bot_user, chat_member
from tests.fakes.objects import chat as _chat
from tests.fakes.objects import user as _user

_update_ids = itertools.count(1)
_message_ids = itertools.count(1_000_000)
_callback_ids = itertools.count(1)


def _update(kind: str, payload: JSON) -> JSON:
    return {"update_id": next(_update_ids), kind: payload}


def _now() -> int:
    return int(time.time())


def user(
    id: int,  # the Bot API's own field name
    first_name: str = "Test",
    username: str | None = None,
    *,
    language_code: str | None = "en",
    is_bot: bool = False,
) -> JSON:
    """A User."""
    return _user(id, first_name, username, is_bot=is_bot, language_code=language_code)


def private_chat(user: JSON) -> JSON:
    """The private chat with a user (same id as the user)."""
    return _chat(user["id"], "private", user["first_name"], user.get("username"))


def group_chat(id: int, title: str = "Study group", type: str = "supergroup") -> JSON:
    """A group or supergroup chat (supergroup ids look like -100...)."""
    return _chat(id, type, title)


def channel(id: int, title: str = "Daily quiz", username: str | None = None) -> JSON:
    """A channel chat."""
    return _chat(id, "channel", title, username)


def message(
    text: str,
    from_user: JSON | None,
    chat: JSON,
    *,
    message_id: int | None = None,
    date: int | None = None,
    entities: list[JSON] | None = None,
    **extra: Any,
) -> JSON:
    """A Message dict (not an Update); `extra` adds fields such as `reply_to_message`."""
    data: JSON = {
        "message_id": message_id if message_id is not None else next(_message_ids),
        "date": date if date is not None else _now(),
        "chat": chat,
        "text": text,
    }
    if from_user is not None:
        data["from"] = from_user
    if entities:
        data["entities"] = entities
    data.update(extra)
    return data


def text_message(
    text: str, user: JSON, chat: JSON, *, message_id: int | None = None, **extra: Any
) -> JSON:
    """An Update with a plain text message."""
    return _update("message", message(text, user, chat, message_id=message_id, **extra))


def command(
    text: str, user: JSON, chat: JSON, *, message_id: int | None = None, **extra: Any
) -> JSON:
    """An Update with a command such as `/start`, `/quiz@quizbot_test_bot 5`."""
    length = len(text.split(maxsplit=1)[0])  # `/cmd` or `/cmd@botname`, without arguments
    entity = {"type": "bot_command", "offset": 0, "length": length}
    payload = message(text, user, chat, message_id=message_id, entities=[entity], **extra)
    return _update("message", payload)


def callback(data: str, user: JSON, message: JSON) -> JSON:
    """An Update for a press on a button of `message` (a Message dict the bot sent)."""
    query: JSON = {
        "id": str(next(_callback_ids)),
        "from": user,
        "chat_instance": str(message["chat"]["id"]),
        "data": data,
        "message": message,
    }
    return _update("callback_query", query)


def my_chat_member(
    chat: JSON,
    old_status: str,
    new_status: str,
    by_user: JSON,
    *,
    bot_username: str = BOT_USERNAME,
) -> JSON:
    """An Update telling the bot its own membership changed (added, blocked, promoted...)."""
    bot = bot_user(bot_username)
    payload = {
        "chat": chat,
        "from": by_user,
        "date": _now(),
        "old_chat_member": chat_member(old_status, bot),
        "new_chat_member": chat_member(new_status, bot),
    }
    return _update("my_chat_member", payload)


def migrate_to_chat(old_chat_id: int, new_chat_id: int, by_user: JSON | None = None) -> JSON:
    """The service message in the old group saying it became supergroup `new_chat_id`."""
    old = _chat(old_chat_id, "group")
    payload = message("", by_user or user(1), old, migrate_to_chat_id=new_chat_id)
    del payload["text"]
    return _update("message", payload)


def migrate_from_chat(new_chat_id: int, old_chat_id: int, by_user: JSON | None = None) -> JSON:
    """The service message in the new supergroup naming the group it came from."""
    new = _chat(new_chat_id, "supergroup")
    payload = message("", by_user or user(1), new, migrate_from_chat_id=old_chat_id)
    del payload["text"]
    return _update("message", payload)


def channel_post(text: str, chat: JSON, *, message_id: int | None = None) -> JSON:
    """An Update with a post in a channel (sender is the channel, no `from`)."""
    payload = message(text, None, chat, message_id=message_id, sender_chat=chat)
    return _update("channel_post", payload)


def poll_answer(poll_id: str, user: JSON, option_ids: list[int]) -> JSON:
    """An Update with a user's answer to a non-anonymous poll (no chat id, as on Telegram).

    `option_persistent_ids` follow FakeBotApi's scheme: the option's index as a string.
    """
    payload = {
        "poll_id": poll_id,
        "user": user,
        "option_ids": option_ids,
        "option_persistent_ids": [str(i) for i in option_ids],
    }
    return _update("poll_answer", payload)


# Tests that are about the SQLite engine and may use sqlite3 directly (paths under tests/);
# tests/test_layers.py holds every other file to the helpers below and keeps this list exact.
SQLITE_ENGINE_TESTS = frozenset(
    {
        "test_storage.py",  # the engine's connections, batches and driver errors
        "test_db_readers.py",  # reader connections and the aiosqlite internals they use
        "test_inbox_kill9.py",  # another connection holds the write lock while taps arrive
        "test_query_plans.py",  # EXPLAIN QUERY PLAN of the hot queries
        "test_ops_backup.py",  # the online backup's copy: its journal mode and integrity
        "test_faults_database_open.py",  # files SQLite cannot open, a read-only database
        "test_faults_busy.py",  # two connections racing for the write lock
        "test_push_faults.py",  # another connection holds the write lock mid-push
        "test_shutdown_faults.py",  # another connection holds the write lock at shutdown
        "test_pg_schema.py",  # reads the SQLite catalog to compare it with PostgreSQL's
        "bench/gen_history.py",  # a scratch build of the benchmark file: no journal, old schema
        "exchange_files.py",  # Anki packages hold an SQLite collection: a file format to build
    }
)


@contextlib.contextmanager
def blocking(db_path: str | Path) -> Iterator[Connection]:
    """A blocking port connection with the bot's settings (autocommit), closed on exit; a
    path is resolved by `tests.backend.database` (the same database on PostgreSQL)."""
    conn = connect_blocking(database(db_path))
    try:
        yield conn
    finally:
        conn.close()


def migrated(db_path: str | Path) -> Connection:
    """A blocking port connection (autocommit) to the database `db_path` names, brought up to
    date first; closed after the test if the caller does not close it first."""
    target = database(db_path)
    prepare_database(target)
    return close_at_end(connect_blocking(target))


def rows(db_path: str | Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """The rows of one query, as plain tuples."""
    with blocking(db_path) as conn:
        return [tuple(row) for row in conn.execute(sql, params).fetchall()]


def one(db_path: str | Path, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
    """The first row of one query as a plain tuple, or None."""
    with blocking(db_path) as conn:
        row = conn.execute(sql, params).fetchone()
    return None if row is None else tuple(row)


def execute(db_path: str | Path, sql: str, params: Sequence[Any] = ()) -> int:
    """Run one statement and commit it; the number of rows it changed."""
    with blocking(db_path) as conn:
        return conn.execute(sql, params).rowcount
