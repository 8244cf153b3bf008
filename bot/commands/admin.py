"""`quizbot backup PATH` and `quizbot health`: the operator's tools, safe while the bot runs."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from bot.config import ConfigError, load_settings
from bot.storage.factory import display_name, is_postgres, sqlite_path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `backup` and `health`."""
    backup = sub.add_parser(
        "backup", help="copy the live database to PATH (online backup) and verify the copy"
    )
    backup.add_argument("path", type=Path, metavar="PATH", help="file to write (replaced)")
    backup.set_defaults(func=cmd_backup)
    health = sub.add_parser(
        "health", help="print the bot's health as JSON; exit 1 when something is wrong"
    )
    health.add_argument(
        "--max-heartbeat-age",
        type=_positive_seconds,
        default=None,
        metavar="SECONDS",
        help="a running bot silent for longer is reported unhealthy (default 120)",
    )
    health.add_argument(
        "--deep", action="store_true", help="also check every page of the database (quick_check)"
    )
    health.set_defaults(func=cmd_health)


def _positive_seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds above 0")
    return seconds


def cmd_backup(args: argparse.Namespace) -> int:
    """Back up QUIZBOT_DB to PATH; print rows per table; exit 1 on any failure."""
    from bot.storage.sqlite.backup import BackupError, backup_database

    try:
        settings = load_settings()
        if is_postgres(settings.db):
            return _pg_dump(str(settings.db), args.path)
        report = backup_database(sqlite_path(settings.db), args.path)
    except (ConfigError, BackupError) as err:
        print(f"quizbot: {err}", file=sys.stderr)
        return 1
    print(
        f"backup of {settings.db} written to {report.path} "
        f"({report.size_bytes} bytes, {report.seconds:.2f} s), integrity_check: {report.integrity}"
    )
    width = max((len(name) for name in report.tables), default=0)
    for name, count in report.tables.items():
        print(f"  {name:<{width}}  {count}")
    return 0


def cmd_health(args: argparse.Namespace) -> int:
    """Print the health report as JSON; 0 when healthy, 1 otherwise."""
    from bot import health

    try:
        settings = load_settings()
    except ConfigError as err:
        print(json.dumps({"ok": False, "error": str(err)}))
        return 1
    max_age = args.max_heartbeat_age or health.DEFAULT_MAX_HEARTBEAT_AGE_S
    report = health.check(settings, max_heartbeat_age_s=max_age, deep=args.deep)
    print(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


def pg_dump_command(url: str, path: Path) -> tuple[list[str], dict[str, str]]:
    """The pg_dump command for `url` and its environment: the password goes in PGPASSWORD, not
    on the command line that other users of the machine can read."""
    parts = urlsplit(url)
    env = {**os.environ, **({"PGPASSWORD": unquote(parts.password)} if parts.password else {})}
    netloc = parts.netloc.rsplit("@", 1)[-1]
    user = f"{parts.username}@" if parts.username else ""
    safe = urlunsplit((parts.scheme, user + netloc, parts.path, parts.query, ""))
    return ["pg_dump", "--format=custom", f"--file={path}", safe], env


def _pg_dump(url: str, path: Path) -> int:
    """PostgreSQL: `pg_dump` in its custom format (restore with pg_restore), or the command to
    run when pg_dump is not installed here."""
    command, env = pg_dump_command(url, path)
    if shutil.which("pg_dump") is None:
        print(
            "quizbot: pg_dump is not installed here; where the PostgreSQL client is, run:\n"
            f"  PGPASSWORD=... {shlex.join(command)}",
            file=sys.stderr,
        )
        return 1
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"quizbot: pg_dump failed: {done.stderr.strip()[:500]}", file=sys.stderr)
        return 1
    print(f"backup of {display_name(url)} written to {path} ({path.stat().st_size} bytes) by "
          "pg_dump --format=custom; restore it with pg_restore")  # fmt: skip
    return 0
