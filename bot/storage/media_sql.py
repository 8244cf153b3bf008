"""SQL of uploaded pictures: the file_id Telegram gave each, by content key. Plain sync
functions run by `Store.write`/`read`."""

from __future__ import annotations

from bot.storage.port import Connection


def file_id(conn: Connection, content_key: str) -> str | None:
    """The file_id of the picture with this key, if it was uploaded."""
    row = conn.execute(
        "SELECT file_id FROM media_files WHERE content_key = ?", (content_key,)
    ).fetchone()
    return None if row is None else str(row[0])


def remember(conn: Connection, content_key: str, file_id: str, now: float) -> None:
    """Record (or replace) the file_id of a picture just uploaded."""
    conn.execute(
        "INSERT INTO media_files (content_key, file_id, uploaded_at) VALUES (?, ?, ?)"
        " ON CONFLICT (content_key) DO UPDATE SET file_id = excluded.file_id,"
        " uploaded_at = excluded.uploaded_at",
        (content_key, file_id, now),
    )


def forget(conn: Connection, content_key: str, file_id: str) -> None:
    """Drop a file_id Telegram refused (kept if another upload replaced it meanwhile)."""
    conn.execute(
        "DELETE FROM media_files WHERE content_key = ? AND file_id = ?", (content_key, file_id)
    )
