"""`quizbot backup` on PostgreSQL: pg_dump in its custom format, the password kept off the
command line and out of what is printed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bot.commands.admin import pg_dump_command


def test_backup_of_a_postgresql_database_is_a_pg_dump_archive(pg_url: str, tmp_path: Path) -> None:
    out = tmp_path / "quizbot.dump"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "backup", str(out)],
        env={**env, "QUIZBOT_DB": pg_url},
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format, for pg_restore
    assert "pg_restore" in done.stdout


def test_the_password_goes_in_the_environment_not_on_the_command_line() -> None:
    url = "postgresql://quiz:s%40cret@db.example:5432/quizbot?sslmode=require"
    command, env = pg_dump_command(url, Path("/tmp/x.dump"))
    assert not any("cret" in part for part in command)
    assert command[-1] == "postgresql://quiz@db.example:5432/quizbot?sslmode=require"
    assert env["PGPASSWORD"] == "s@cret"
