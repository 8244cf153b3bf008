"""`quizbot db copy --from URL --to URL`: move a deployment to another database (SQLite to
PostgreSQL or back), verified table by table."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from bot.config import ConfigError, load_settings
from bot.plural import plural
from bot.storage.db_copy import CopyMismatch, CopyRefused, CopyReport, copy_database
from bot.storage.factory import target_arg
from bot.storage.port import DatabaseUnavailable, StorageError

BAR_WIDTH = 30
REDRAW_S = 0.1  # a terminal redrawn more often only costs the copy time


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `db copy`."""
    db = sub.add_parser("db", help="database tools (copy a deployment to another database)")
    tools = db.add_subparsers(dest="db_command", metavar="TOOL", required=True)
    copy = tools.add_parser(
        "copy",
        help="copy every table to an empty database and verify it",
        description="Copy a deployment to another database (SQLite file or PostgreSQL URL): "
        "the target is migrated, must be empty, and commits only when every table's row "
        "count and checksum match the source's. Stop the bot first.",
    )
    copy.add_argument("--from", dest="source", required=True, metavar="URL", type=target_arg,
                      help="sqlite:///path, a file path, or postgresql://...")  # fmt: skip
    copy.add_argument("--to", dest="target", required=True, metavar="URL", type=target_arg,
                      help="an empty (or not yet existing) database")  # fmt: skip
    copy.add_argument("--batch", type=_positive, default=2000, metavar="ROWS",
                      help="rows per insert batch (default 2000)")  # fmt: skip
    copy.set_defaults(func=cmd_copy)


def _positive(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number above 0")
    return n


class ProgressBar:
    """Rows copied per table on stderr: a bar redrawn in place on a terminal, one plain line
    per finished table otherwise (a log, a pipe)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self._drawn = 0.0

    def __call__(self, table: str, done: int, total: int) -> None:
        finished = done >= total
        if not self.tty:
            if finished:
                print(f"  {table}: {plural(done, 'row')}", file=self.out, flush=True)
            return
        now = time.monotonic()
        if not finished and now - self._drawn < REDRAW_S:
            return
        self._drawn = now
        share = done / total if total else 1.0
        filled = round(share * BAR_WIDTH)
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        line = f"\r  {table:<22} [{bar}] {done}/{total}"
        self.out.write(line + ("\n" if finished else ""))
        self.out.flush()


def summary(report: CopyReport) -> list[str]:
    """What the copy did, for stdout."""
    lines = [
        f"copied {report.source} to {report.target}: "
        f"{plural(len(report.tables), 'table')}, {plural(report.rows, 'row')} "
        f"in {report.seconds:.1f} s; row counts and checksums match"
    ]
    if report.migrations:
        lines.append(f"  migrations applied to the target first: {', '.join(report.migrations)}")
    width = max((len(t.name) for t in report.tables), default=0)
    lines += [f"  {t.name:<{width}}  {t.rows:>9}  {t.checksum[:12]}" for t in report.tables]
    return lines


def cmd_copy(args: argparse.Namespace) -> int:
    """Copy --from to --to; 0 when verified, 1 when refused or failed (target left empty)."""
    try:
        timezone = load_settings().default_timezone
    except ConfigError:
        timezone = "UTC"  # the copy needs no settings; the zone only feeds backfills
    try:
        report = copy_database(
            str(args.source),
            str(args.target),
            default_timezone=timezone,
            batch=args.batch,
            progress=ProgressBar(sys.stderr),
        )
    except CopyRefused as err:
        print(f"quizbot: not copied: {err}", file=sys.stderr)
        return 1
    except CopyMismatch as err:
        print(
            f"quizbot: the copy does not match the source in {', '.join(err.tables)}; "
            f"nothing was committed to the target: {err}",
            file=sys.stderr,
        )
        return 1
    except (DatabaseUnavailable, StorageError) as err:
        from bot.commands.run import unusable

        return unusable(err)
    print("\n".join(summary(report)))
    return 0
