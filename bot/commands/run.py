"""`quizbot run` (the bot) and `quizbot migrate` (bring the database schema up to date)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from bot.bank.cache import cache_path
from bot.bank.loader import load_banks
from bot.commands.interrupt import interruptible
from bot.config import ConfigError, Settings, load_settings
from bot.logging_setup import setup_logging
from bot.plural import plural
from bot.practice.catalog import Catalog
from bot.storage.factory import display_name, prepare_database
from bot.storage.port import DatabaseUnavailable


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `run` and `migrate`."""
    run = sub.add_parser("run", help="start the bot (long polling unless a webhook URL is set)")
    run.add_argument(
        "--webhook", metavar="URL", help="serve a webhook at this public URL instead of polling"
    )
    run.set_defaults(func=cmd_run)
    migrate = sub.add_parser("migrate", help="apply pending database migrations and exit")
    migrate.set_defaults(func=cmd_migrate)


def fail(message: str) -> int:
    """One clear line for the operator, no traceback."""
    print(f"quizbot: {message}", file=sys.stderr)
    return 2


def one_line(err: BaseException) -> str:
    """An error's text on one line: a driver's message may span several (PostgreSQL's adds
    a hint line), and an operator's log or a supervisor's status shows only the first."""
    return " ".join(part.strip() for part in str(err).splitlines() if part.strip())


def unusable(err: BaseException) -> int:
    """Say why the database cannot be used, in one line; exit status 1."""
    print(f"quizbot: {one_line(err)}", file=sys.stderr)
    return 1


def not_writable(path: Path) -> str | None:
    """Why an output file cannot be written there, when that shows before any work is done
    (a directory in its place); None otherwise (a failed write says it then)."""
    return f"cannot write {path}: it is a directory" if path.is_dir() else None


def write_failed(path: Path, err: OSError) -> int:
    """One line naming the output file and why it could not be written; exit status 1."""
    print(f"quizbot: cannot write {path}: {err.strerror or err}", file=sys.stderr)
    return 1


def load_catalog(settings: Settings, cache: Path | None = None) -> Catalog | None:
    """The banks named by the settings, or None after printing every problem; with `cache`,
    unchanged question files come from that cache file (see bot/bank/cache.py)."""
    result = load_banks(settings.questions, cache)
    for problem in result.problems:
        print(problem, file=sys.stderr)
    if result.problems or not result.banks:
        if not result.banks:
            print(
                "quizbot: no valid question bank found in "
                + ", ".join(str(p) for p in settings.questions),
                file=sys.stderr,
            )
        return None
    return Catalog(result.banks)


def load_with_bank(bank: str | None) -> tuple[Settings, Catalog] | int:
    """Settings and banks for an operator command that may name a bank, or its exit status
    after saying why not (bad settings, no valid bank, no such bank)."""
    try:
        settings = load_settings()
    except ConfigError as err:
        return fail(str(err))
    catalog = load_catalog(settings)
    if catalog is None:
        return 1
    if bank is not None and bank not in catalog.banks:
        return fail(f"no bank {bank!r}; banks: {', '.join(sorted(catalog.banks))}")
    return settings, catalog


def cmd_run(args: argparse.Namespace) -> int:
    """Start the bot and block until it is stopped (SIGINT/SIGTERM)."""
    try:
        # --webhook goes through the same validation as QUIZBOT_WEBHOOK_URL.
        overrides = {"webhook_url": args.webhook} if args.webhook else {}
        settings = load_settings(**overrides)
        token = settings.require_token()
    except ConfigError as err:
        return fail(str(err))
    setup_logging(settings.log_level, json_lines=settings.log_json, secrets=[token])
    try:
        # Before any network call: a database that cannot be used stops the start at once,
        # with one line, and a supervisor's restart-on-failure sees the exit code.
        prepare_database(settings.db, settings.default_timezone)
    except DatabaseUnavailable as err:
        return unusable(err)
    from bot.telegram.app import build_application, run  # keeps `validate` & co. light
    from bot.telegram.startup import StartupFailed, preflight

    try:
        # Ctrl-C stops the start-up checks as it stops the running bot (PTB's own handler),
        # even when the bot was started with SIGINT ignored (a shell's background job).
        with interruptible():
            preflight(settings)  # token and BOT_API_URL, retried through a passing hiccup
    except StartupFailed as err:
        print(f"quizbot: {err}", file=sys.stderr)
        return 1
    # The database's folder is writable (prepare_database() just used it): the cache goes there.
    catalog = load_catalog(settings, cache_path(settings.db))
    if catalog is None:
        return 1

    app = build_application(settings, catalog)
    try:
        run(app, settings)
    except DatabaseUnavailable as err:  # broken between the check above and the start
        return unusable(err)
    except Exception as err:
        # Through the logger, not a bare traceback: PTB's InvalidToken message quotes the token
        # and only the log handler redacts it.
        logging.getLogger(__name__).critical(
            "stopped: %s: %s", type(err).__name__, err, exc_info=err
        )
        return 1
    return 1 if app.bot_data.ops.unsaved_at_stop else 0


def cmd_migrate(args: argparse.Namespace) -> int:
    """Apply migrations to QUIZBOT_DB."""
    try:
        settings = load_settings()
    except ConfigError as err:
        return fail(str(err))

    try:
        todo = prepare_database(settings.db, settings.default_timezone)
    except DatabaseUnavailable as err:
        return unusable(err)
    if not todo:
        print(f"database {display_name(settings.db)} is up to date; no migration to apply")
        return 0
    print(f"database {display_name(settings.db)}: applied {plural(len(todo), 'migration')}")
    for name in todo:
        print(f"  {name}")
    return 0
