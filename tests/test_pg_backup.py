"""`quizbot backup` on PostgreSQL: pg_dump in its custom format, the password kept off the
command line and out of what is printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bot.commands.admin import pg_dump_command
from tests.ops_support import free_port


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


def test_health_on_postgresql_names_the_database_and_its_latency(pg_url: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "health"],
        env={**env, "QUIZBOT_DB": pg_url},
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
    )
    report = json.loads(done.stdout)
    database = report["database"]
    assert database["ok"], report
    assert database["database"].startswith("postgresql://")
    assert database["latency_ms"] >= 0 and database["schema_version"]
    assert done.returncode == 0, done.stdout


def test_health_says_when_postgresql_cannot_be_reached(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))}
    url = f"postgresql://nobody:secret@127.0.0.1:{free_port()}/none"
    done = subprocess.run(
        [sys.executable, "-m", "bot", "health"], env={**env, "QUIZBOT_DB": url},
        capture_output=True, text=True, check=False, cwd=Path(__file__).resolve().parent.parent,
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert done.returncode == 1 and not report["database"]["ok"]
    assert "secret" not in done.stdout
