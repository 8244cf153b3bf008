"""The file_ids of pictures the bot uploaded, so each is uploaded once. No Telegram here."""

from __future__ import annotations

from bot.practice.clock import Clock
from bot.storage import media_sql
from bot.storage.port import Store


class MediaFiles:
    """Each call one database round trip."""

    def __init__(self, db: Store, clock: Clock) -> None:
        self.db, self.clock = db, clock

    async def file_id(self, content_key: str) -> str | None:
        """The file_id to send instead of uploading, if this picture went up before."""
        return await self.db.read(lambda c: media_sql.file_id(c, content_key))

    async def remember(self, content_key: str, file_id: str) -> None:
        """The picture went up and Telegram calls it `file_id`."""
        now = self.clock.now()
        await self.db.write(lambda c: media_sql.remember(c, content_key, file_id, now))

    async def forget(self, content_key: str, file_id: str) -> None:
        """Telegram refused this file_id: upload the picture again next time."""
        await self.db.write(lambda c: media_sql.forget(c, content_key, file_id))
