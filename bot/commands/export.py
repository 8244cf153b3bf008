"""`quizbot export moodle|gift --bank ID --out FILE` and `quizbot export --chat ID --out FILE`:
a bank in an exchange format, or a group's results as the CSV file /export sends."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.bank.importers.writer import write_all
from bot.commands.arguments import telegram_id
from bot.plural import plural
from bot.storage.factory import target_arg

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.practice.catalog import Catalog

FORMATS = ("gift", "moodle")


def _write(out: Path, data: str) -> None:
    # Through a temporary file: an export that fails leaves no half-written file behind.
    write_all([(out.resolve(), data)], out.resolve().parent)


def run_export_bank(args: argparse.Namespace) -> int:
    """Write the bank in the format asked."""
    from bot.commands.run import fail, load_with_bank, not_writable, write_failed

    if args.bank is None:
        return fail(f"export {args.format} needs --bank ID")
    if (why := not_writable(args.out)) is not None:
        # Before the write: renaming the written file onto a directory would fail only
        # after the temporary file was made beside it, and leave that file behind.
        return fail(why)
    loaded = load_with_bank(args.bank)
    if isinstance(loaded, int):
        return loaded
    _, catalog = loaded
    bank = catalog.banks[args.bank]
    from bot.bank.exporters.gift import to_gift
    from bot.bank.exporters.moodle import to_moodle

    try:
        text = {"moodle": to_moodle, "gift": to_gift}[args.format](bank)
    except ValueError as err:
        return fail(f"bank {args.bank}: {err}")
    try:
        _write(args.out, text)
    except OSError as err:
        return write_failed(args.out, err)
    questions = plural(len(bank.questions), "question")
    print(f"{args.out}: {questions} of bank {args.bank} as {args.format}")
    return 0


async def _results(
    settings: Settings, catalog: Catalog, db_path: Path | str, chat_id: int
) -> tuple[bytes, int] | None:
    """The chat's results CSV and its number of members; None: no such chat."""
    from bot.practice.core import open_core

    async with open_core(catalog, db_path, settings) as core:
        if not await core.groups.known(chat_id):
            return None
        return await core.groups.results_csv(chat_id)


def run_export_chat(args: argparse.Namespace) -> int:
    """Write a group's results as CSV (the file /export sends in the group)."""
    from bot.commands.run import fail, load_with_bank, not_writable, unusable, write_failed
    from bot.storage.factory import display_name, missing_file
    from bot.storage.port import DatabaseUnavailable

    if (why := not_writable(args.out)) is not None:
        return fail(why)  # before the database is opened for nothing
    loaded = load_with_bank(None)
    if isinstance(loaded, int):
        return loaded
    settings, catalog = loaded
    db_path = args.db or settings.db
    if missing_file(db_path):
        return fail(f"no database at {db_path}")
    try:
        results = asyncio.run(_results(settings, catalog, db_path, args.chat))
    except DatabaseUnavailable as err:
        return unusable(err)
    if results is None:
        # A mistyped id would otherwise write an empty file and read as success.
        where = display_name(db_path)
        return fail(f"no chat {args.chat} in {where}: a group is recorded once the bot is in it")
    data, members = results
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(data)
    except OSError as err:
        return write_failed(args.out, err)
    print(f"{args.out}: {plural(members, 'member')} of chat {args.chat}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    """Dispatch: a bank format, or --chat."""
    if args.format:
        if args.chat is not None:
            print("quizbot: --chat goes without a format", file=sys.stderr)
            return 2
        return run_export_bank(args)
    if args.chat is None:
        print("quizbot: export needs a format (moodle, gift) or --chat ID", file=sys.stderr)
        return 2
    return run_export_chat(args)


def register(sub: Any) -> None:
    """Add `export`."""
    export = sub.add_parser(
        "export",
        help="a bank as Moodle XML or GIFT, or a group's results as CSV",
        description="`quizbot export moodle|gift --bank ID --out FILE` writes a bank for an "
        "LMS (rationales as per-answer feedback); `quizbot export --chat ID --out FILE` "
        "writes a group's results, one row per member (what /export sends in the group).",
    )
    export.add_argument("format", nargs="?", choices=FORMATS, help="bank format")
    export.add_argument("--bank", help="bank id (with a format)")
    export.add_argument(
        "--chat", type=telegram_id, help="group or channel id (instead of a format)"
    )
    export.add_argument("--out", type=Path, required=True, metavar="FILE")
    export.add_argument(
        "--db",
        type=target_arg,
        help="SQLite file or PostgreSQL URL for --chat (default: QUIZBOT_DB)",
    )
    export.set_defaults(func=run_export)
