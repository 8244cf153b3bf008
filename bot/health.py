"""`quizbot health`: is the database reachable, do the banks load, is the bot alive and caught up.

It runs beside the bot (Docker HEALTHCHECK, a monitoring script), so it only reads: the bot
leaves its traces (start, heartbeat, last update) in the `bot_status` table for it.
"""

from __future__ import annotations

import shutil
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.bank.cache import cache_path
from bot.bank.loader import load_banks
from bot.config import Settings
from bot.storage import bot_status
from bot.storage.dialect import of
from bot.storage.factory import connect_blocking, display_name, is_postgres, sqlite_path
from bot.storage.port import Connection, StorageError
from bot.storage.sqlite import migrations as sqlite_migrations
from bot.storage.sqlite.database import file_identity, open_failure, quick_check, read_only
from bot.storage.sqlite.migrations import too_new

# The bot writes a heartbeat every HEARTBEAT_INTERVAL_S; a few missed ones mean it is stuck.
HEARTBEAT_INTERVAL_S = 30.0
FUTURE_SLACK_S = 5.0
MIN_FREE_BYTES = 1 << 20
DEFAULT_MAX_HEARTBEAT_AGE_S = 4 * HEARTBEAT_INTERVAL_S
# The bot_status key of the SQLite file the running bot opened ("device:inode").
DB_FILE_KEY = "db_file"


def database_file(target: str | Path) -> str | None:
    """The identity of the database file `target` names; None on PostgreSQL (no file)."""
    return None if is_postgres(target) else file_identity(sqlite_path(target))


def iso(ts: float | None) -> str | None:
    """Unix seconds as an ISO 8601 UTC time, for people reading the JSON."""
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def migrations_too_new(conn: Connection, migrations: list[str]) -> str | None:
    """Why this code must not use the database (migrations it does not know), or None."""
    if of(conn).postgres:
        from bot.storage.postgres.migrations import known  # the driver only when it is used

        return too_new(migrations, known())
    return too_new(migrations, sqlite_migrations.known())


def database_report(
    conn: Connection, now: float, target: str | Path | None = None
) -> dict[str, Any]:
    """What the database says about the bot: schema, status keys, push backlog. `target`: the
    database's QUIZBOT_DB, whose file is checked against the one the running bot opened."""
    migrations = bot_status.schema_version(conn)
    status = bot_status.read_status(conn)
    started = _float(status.get("started_at"))
    stopped = _float(status.get("stopped_at"))
    heartbeat = _float(status.get("heartbeat_at"))
    last_update = _float(status.get("last_update_at"))
    running = started is not None and (stopped is None or stopped < started)
    today = datetime.fromtimestamp(now, UTC).date().isoformat()
    report: dict[str, Any] = {
        "ok": True,
        "schema_version": migrations[-1] if migrations else None,
        "migrations": len(migrations),
        "bot": {
            "state": "running" if running else ("stopped" if started else "never started"),
            "mode": status.get("mode"),
            "started_at": iso(started),
            "stopped_at": iso(stopped) if not running else None,
            "heartbeat_age_s": round(now - heartbeat, 1) if heartbeat and running else None,
            "last_update_at": iso(last_update),
            "last_update_age_s": round(now - last_update, 1) if last_update else None,
        },
        "push_backlog": bot_status.push_backlog(conn, now, today),
    }
    newer = migrations_too_new(conn, migrations)
    if newer is not None:
        # This code would refuse to start on it (or a newer release migrated it under a
        # running older bot): an operator must run the newer release.
        report["ok"] = False
        report["error"] = newer
    opened = status.get(DB_FILE_KEY)
    if running and target is not None and opened and database_file(target) != opened:
        # The bot's writes go to the file it opened, which no restart finds any more; its
        # heartbeat would only show it after minutes.
        report["ok"] = False
        report["error"] = (
            f"the database file {target} is not the one the running bot opened (replaced or "
            "deleted): restart the bot on the right file"
        )
    return report


def _postgres(url: str, now: float) -> dict[str, Any]:
    """PostgreSQL: the report, and the round trip of one query (its latency)."""
    name = display_name(url)
    try:
        conn = connect_blocking(url)
        try:
            started = time.perf_counter()
            conn.execute("SELECT 1").fetchone()
            latency_ms = (time.perf_counter() - started) * 1000
            report = database_report(conn, now)
        finally:
            conn.close()
    except Exception as err:  # any failure to reach it is the verdict, said in one line
        return {"ok": False, "database": name, "error": f"{type(err).__name__}: {err}"[:300]}
    return {"database": name, "latency_ms": round(latency_ms, 2), **report}


def _database(settings: Settings, now: float, deep: bool) -> dict[str, Any]:
    if is_postgres(settings.db):
        return _postgres(str(settings.db), now)
    path = sqlite_path(settings.db)
    if not path.is_file():
        # Connecting would create an empty file: a wrong QUIZBOT_DB must show up as an error.
        return {"ok": False, "path": str(path), "error": "no database file"}
    try:
        with read_only(path) as conn:
            report = database_report(conn, now, path)
            if deep:
                report["quick_check"] = quick_check(conn)[:5]
    except StorageError as err:
        # In the words `quizbot run` refuses the file with ("not a SQLite database ..."),
        # from the driver's error behind the port's.
        cause = err.__cause__ if isinstance(err.__cause__, Exception) else err
        return {"ok": False, "path": str(path), "error": str(open_failure(path, cause))}
    free = shutil.disk_usage(path.parent).free
    report["disk_free_bytes"] = free
    if free < MIN_FREE_BYTES:
        # Reads still work; every write (an answer, the heartbeat) fails.
        report["ok"] = False
        report["error"] = f"disk full: {free} bytes free beside the database"
    if deep and report["quick_check"] != ["ok"]:
        report["ok"] = False
        report["error"] = "quick_check found damage: restore a backup"
    return {"path": str(path), **report}


def _banks(settings: Settings) -> dict[str, Any]:
    # The bot's own cache, read but not written: a health check leaves the data folder alone.
    result = load_banks(settings.questions, cache_path(settings.db), write=False)
    return {
        "ok": bool(result.banks) and not result.problems,
        "banks": {bank_id: len(bank.questions) for bank_id, bank in result.banks.items()},
        "problems": len(result.problems),
        "first_problems": [str(p) for p in result.problems[:3]],
    }


def check(
    settings: Settings,
    *,
    now: float | None = None,
    max_heartbeat_age_s: float = DEFAULT_MAX_HEARTBEAT_AGE_S,
    deep: bool = False,
) -> dict[str, Any]:
    """The whole report; `ok` is False when anything an operator must act on is wrong.
    `deep`: also run SQLite's quick_check over the whole file."""
    now = time.time() if now is None else now
    database = _database(settings, now, deep)
    banks = _banks(settings)
    ok = bool(database["ok"]) and bool(banks["ok"])
    bot = database.get("bot", {})
    age = bot.get("heartbeat_age_s")
    # A bot marked running whose heartbeat stopped is hung or was killed without cleanup;
    # one that stopped cleanly (or never ran) is not this command's failure to report.
    if bot.get("state") == "running" and (age is None or age > max_heartbeat_age_s):
        ok = False
        bot["problem"] = f"no heartbeat for more than {max_heartbeat_age_s:.0f} s"
    elif age is not None and age < -FUTURE_SLACK_S:
        # Written by a clock that was ahead (or this one went back): not proof of life.
        ok = False
        bot["problem"] = "the heartbeat is in the future: the wall clock moved back"
    return {"ok": ok, "checked_at": iso(now), "database": database, "question_banks": banks}
