"""The database file: owner-only on creation (it and its backups hold names and answers), and
the durability an operator chose."""

from __future__ import annotations

import stat
from pathlib import Path

from bot.storage.sqlite.backup import backup_database
from bot.storage.sqlite.database import Database, prepare


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_a_new_database_and_its_wal_are_readable_by_the_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "new" / "quizbot.sqlite3"
    async with Database(path) as db:
        await db.write(lambda c: c.execute("INSERT INTO bot_status VALUES ('k', 'v', 0)"))
        assert mode(path) == 0o600
        assert mode(Path(f"{path}-wal")) == 0o600
    assert mode(path.parent) == 0o700


def test_prepare_creates_an_owner_only_file_and_leaves_an_existing_one_alone(
    tmp_path: Path,
) -> None:
    fresh = tmp_path / "fresh.sqlite3"
    prepare(fresh)
    assert mode(fresh) == 0o600
    shared = tmp_path / "shared.sqlite3"
    prepare(shared)
    shared.chmod(0o640)  # an operator's choice stands
    prepare(shared)
    assert mode(shared) == 0o640


def test_a_backup_is_readable_by_the_owner_only(tmp_path: Path) -> None:
    source = tmp_path / "db.sqlite3"
    prepare(source)
    dest = tmp_path / "backup.sqlite3"
    backup_database(source, dest)
    assert mode(dest) == 0o600


async def test_durability_full_syncs_every_commit_and_normal_is_the_default(
    tmp_path: Path,
) -> None:
    async with Database(tmp_path / "n.sqlite3") as db:
        assert await db.call(lambda c: c.execute("PRAGMA synchronous").fetchone()[0]) == 1
    async with Database(tmp_path / "f.sqlite3", durability="full") as db:
        assert await db.call(lambda c: c.execute("PRAGMA synchronous").fetchone()[0]) == 2
