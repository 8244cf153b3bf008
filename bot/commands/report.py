"""`quizbot report` (item analysis for question authors) and `quizbot validate --stats DB`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.analysis.model import DEFAULT_MIN_N, ItemReport
from bot.analysis.render_html import render_html
from bot.analysis.render_json import render_json
from bot.analysis.render_text import render_text
from bot.bank.loader import load_banks
from bot.bank.models import Bank
from bot.config import ConfigError, load_settings
from bot.plural import plural
from bot.storage.factory import display_name, missing_file, target_arg
from bot.storage.item_sql import NoDatabase, read_item_report
from bot.storage.port import DatabaseUnavailable, StorageError

RENDERERS: dict[str, Callable[[ItemReport], str]] = {
    "text": render_text,
    "json": render_json,
    "html": render_html,
}


class ReportError(Exception):
    """A problem worth one line to the user (missing database, unknown bank ...)."""


def _min_n(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return n


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `report`, and `--stats DB` to the `validate` registered before it."""
    report = sub.add_parser(
        "report",
        help="item analysis of a bank from the answers in the database",
        description="Item analysis (classical test theory) of a bank from learners' first "
        "attempts: difficulty, discrimination, option figures and flags, worst first.",
    )
    report.add_argument("--bank", metavar="ID", help="bank id (default: the only bank)")
    report.add_argument("--format", choices=tuple(RENDERERS), default="text")
    report.add_argument("--out", type=Path, metavar="FILE", help="write here (default: stdout)")
    report.add_argument(
        "--min-n",
        type=_min_n,
        default=DEFAULT_MIN_N,
        metavar="N",
        help=f"questions with fewer first attempts are shown but not flagged "
        f"(default {DEFAULT_MIN_N})",
    )
    report.add_argument("--db", type=target_arg, metavar="PATH", help="default: QUIZBOT_DB")
    report.add_argument(
        "--questions",
        type=Path,
        action="append",
        metavar="PATH",
        help="bank folder or folder of banks (repeatable; default: QUIZBOT_QUESTIONS)",
    )
    report.set_defaults(func=cmd_report)
    validate = sub.choices.get("validate")
    if validate is not None:
        validate.add_argument(
            "--stats",
            type=target_arg,
            metavar="DB",
            help="also print each bank's item-analysis flags from this database",
        )
        validate.set_defaults(func=_with_stats(validate.get_default("func")))


def _pick_bank(banks: dict[str, Bank], wanted: str | None) -> Bank:
    if wanted is not None:
        if wanted not in banks:
            known = ", ".join(sorted(banks)) or "none loaded"
            raise ReportError(f"unknown bank {wanted!r} (banks: {known})")
        return banks[wanted]
    if len(banks) == 1:
        return next(iter(banks.values()))
    if not banks:
        raise ReportError("no bank loaded; check QUIZBOT_QUESTIONS or --questions")
    raise ReportError(f"several banks ({', '.join(sorted(banks))}): choose one with --bank ID")


def _read(db: Path | str, bank: Bank, min_n: int) -> ItemReport:
    from bot.commands.run import one_line

    try:
        return read_item_report(db, bank, min_n)
    except NoDatabase as err:
        raise ReportError(str(err)) from None
    except DatabaseUnavailable as err:
        raise ReportError(one_line(err)) from None  # it names the database already
    except StorageError as err:
        # display_name: a PostgreSQL URL's password must not reach the terminal or a log.
        raise ReportError(f"cannot read {display_name(db)}: {one_line(err)}") from None


def cmd_report(args: argparse.Namespace) -> int:
    """Print or write the item analysis of one bank; one line on stderr and exit 1 on error."""
    try:
        settings = load_settings()
        db: Path | str = args.db or settings.db
        if missing_file(db):
            raise ReportError(f"no database at {db}")
        loaded = load_banks(args.questions or settings.questions)
        bank = _pick_bank(loaded.banks, args.bank)
        text = RENDERERS[args.format](_read(db, bank, args.min_n))
    except (ConfigError, ReportError) as err:
        print(f"quizbot: {err}", file=sys.stderr)
        return 1
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as err:
        print(f"quizbot: cannot write {args.out}: {err.strerror or err}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def stats_lines(report: ItemReport, limit: int = 20) -> list[str]:
    """The flags of a bank, worst first, for the validation summary."""
    head = (
        f"{report.bank_id}: item analysis of {report.first_attempts} first attempts by "
        f"{plural(report.learners, 'learner')}: {plural(len(report.flagged), 'question')} flagged"
    )
    lines = [head]
    for q in report.flagged[:limit]:
        lines.append(f"  {q.question_id} (n={q.n}, {q.status.value})")
        lines += [f"    {f.kind.value}: {f.message}" for f in q.flags]
    if len(report.flagged) > limit:
        lines.append(f"  ... and {len(report.flagged) - limit} more: quizbot report")
    return lines


def _with_stats(
    validate: Callable[[argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    """`validate`, then (with --stats DB) the flags of every bank that loaded."""

    def run(args: argparse.Namespace) -> int:
        code = validate(args)
        if getattr(args, "stats", None) is None:
            return code
        paths: Sequence[Path] = args.paths or [_default_questions()]
        banks = load_banks(paths).banks
        print()
        for bank in banks.values():
            try:
                print("\n".join(stats_lines(_read(args.stats, bank, DEFAULT_MIN_N))))
            except ReportError as err:
                print(f"quizbot: {err}", file=sys.stderr)
                return 1
        return code

    return run


def _default_questions() -> Path:
    # The same default as `quizbot validate`: questions/ of a checkout, else the bundle.
    from bot.config import BUNDLED_QUESTIONS

    local = Path("questions")
    return local if local.is_dir() else BUNDLED_QUESTIONS
