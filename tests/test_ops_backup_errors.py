"""`quizbot backup` to a bad destination and `quizbot migrate`: one line, no leftovers."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.plural import plural
from bot.storage.sqlite.database import connect_sync
from bot.storage.sqlite.migrations import apply_migrations, available
from tests import factories

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A migrated database as QUIZBOT_DB, cwd in tmp_path (away from any developer .env)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BOT_TOKEN", raising=False)
    path = tmp_path / "bot.sqlite3"
    monkeypatch.setenv("QUIZBOT_DB", str(path))
    with connect_sync(path) as conn:
        apply_migrations(conn)
    conn.close()
    return path


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def one_line_failure(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(["backup", *args])
    out, err = capsys.readouterr()
    assert code != 0 and out == ""
    [line] = err.splitlines()
    assert line.startswith("quizbot: ") and "Traceback" not in line
    return line


def test_backup_to_a_directory(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "backups").mkdir()
    before = listing(tmp_path)
    line = one_line_failure(capsys, "backups")
    assert line == (
        f"quizbot: {tmp_path / 'backups'} is a directory; give the backup file's path, "
        f"e.g. {tmp_path / 'backups' / 'quizbot-backup.sqlite3'}"
    )
    assert listing(tmp_path) == before, "no stray .partial file"
    assert listing(tmp_path / "backups") == []


def test_backup_whose_parent_is_a_file(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("not a folder")
    before = listing(tmp_path)
    line = one_line_failure(capsys, "notes.txt/copy.sqlite3")
    assert line == f"quizbot: {tmp_path / 'notes.txt'} is not a directory"
    assert listing(tmp_path) == before


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder no file can be created in, whoever runs the tests."""
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
    else:
        # Permission bits do not stop root; sysfs refuses new files to everyone.
        assert Path("/sys/kernel").is_dir(), "sysfs is not mounted at /sys"
        yield Path("/sys")


def test_backup_into_a_read_only_folder(
    db: Path, read_only_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = listing(read_only_dir)
    line = one_line_failure(capsys, str(read_only_dir / "copy.sqlite3"))
    assert line == f"quizbot: cannot write in {read_only_dir}: Permission denied"
    assert listing(read_only_dir) == before


def test_backup_to_a_destination_that_fills_up(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert main(["backup", str(out / "copy.sqlite3")]) == 0  # a good older backup
    capsys.readouterr()
    good = (out / "copy.sqlite3").read_bytes()
    limit = db.stat().st_size // 3
    assert limit > 8192, "the database is big enough to fail part-way through the copy"

    def file_size_limit() -> None:
        # Writes past `limit` bytes fail (EFBIG) as they would on a full disk; Python ignores
        # the SIGXFSZ that comes with it, so the write error reaches SQLite.
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    run = subprocess.run(
        [sys.executable, "-m", "bot", "backup", str(out / "copy.sqlite3")],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
        preexec_fn=file_size_limit,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0 and run.stdout == ""
    [line] = run.stderr.splitlines()
    assert line.startswith(f"quizbot: backup to {out / 'copy.sqlite3'} failed: ")
    assert listing(out) == ["copy.sqlite3"], "no .partial or -journal left behind"
    assert (out / "copy.sqlite3").read_bytes() == good, "the older backup is intact"


def test_migrate_lists_what_it_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "new.sqlite3"
    monkeypatch.setenv("QUIZBOT_DB", str(path))
    names = [name for name, _ in available()]
    assert main(["migrate"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"database {path}: applied {plural(len(names), 'migration')}",
        *(f"  {name}" for name in names),
    ]
    recorded = [row[0] for row in factories.rows(path, "SELECT name FROM schema_migrations")]
    assert sorted(recorded) == names
    assert main(["migrate"]) == 0
    assert capsys.readouterr().out == (f"database {path} is up to date; no migration to apply\n")
