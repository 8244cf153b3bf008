"""`quizbot import moodle|gift|aiken|anki`: exchange formats in, all or nothing.

Nothing is written while any problem remains: every problem of the file, of the questions
(as the bank's models see them) and of the bank as it would be after the import (as
`quizbot validate` sees it) is printed first. Warnings (what the file holds that the bank
cannot, such as an embedded picture, and item-writing lint) are printed; --strict refuses
them too.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bot.bank.importers import aiken, anki, gift, moodle_xml
from bot.bank.importers.common import Draft, ImportIssue
from bot.bank.importers.detect import FORMATS, NAMES, detect
from bot.bank.importers.mcq import Defaults, Filled, Read, draft_of
from bot.bank.importers.staging import check_plan
from bot.bank.importers.writer import plan_drafts, write_all
from bot.bank.loader import BANK_FILE
from bot.bank.problems import Problem
from bot.plural import plural

HELP = {
    "moodle": ("Moodle XML (multichoice questions)", moodle_xml.__doc__),
    "gift": ("GIFT, Moodle's text format (multiple choice)", gift.__doc__),
    "aiken": ("Aiken: stem, lettered options, ANSWER:", aiken.__doc__),
    "anki": ("an Anki package (.apkg), fields mapped with --map", anki.__doc__),
}


def _read(
    fmt: str, args: argparse.Namespace
) -> tuple[list[Read], list[ImportIssue], list[ImportIssue]]:
    path: Path = args.file
    if fmt == "moodle":
        return moodle_xml.read_moodle(path, args.skip_unsupported)
    if fmt == "gift":
        return gift.read_gift(path, args.skip_unsupported)
    if fmt == "aiken":
        reads, issues = aiken.read_aiken(path)
        return reads, issues, []
    return anki.read_anki(path, anki.FieldMap.of(args.map or []), args.skip_unsupported)


def _format(args: argparse.Namespace) -> str | None:
    """The format to read: forced, or the subcommand's unless the file is clearly another."""
    if args.format:
        return str(args.format)
    found = detect(args.file)
    if found is not None and found != args.source:
        print(
            f"{args.file}: looks like {NAMES[found]}, not {NAMES[args.source]}: run "
            f"`quizbot import {found}`, or add --format {args.source} to read it as "
            f"{NAMES[args.source]} anyway",
            file=sys.stderr,
        )
        return None
    return str(args.source)


def _refuse(lines: list[Any]) -> int:
    for line in lines:
        print(line, file=sys.stderr)
    print(f"nothing written: {plural(len(lines), 'problem')}", file=sys.stderr)
    return 1


def _summary(
    out: Path, plan: list[tuple[Path, str]], reads: list[Read], drafts: list[Draft], filled: Filled
) -> str:
    questions = [p for p, _ in plan if p != out / BANK_FILE]
    # The drafts' topics: a question of a file that names none is under --topic's.
    topics = Counter(d.topic_name for d in drafts)
    parts = [f"{out}: {plural(len(questions), 'question file')} written"]
    if any(p == out / BANK_FILE for p, _ in plan):
        parts.append("bank.yaml written")
    unchanged = len(reads) - len(questions)
    if unchanged:
        parts.append(f"{unchanged} unchanged")
    multiple = sum(1 for r in reads if sum(c.correct for c in r.choices) > 1)
    if multiple:
        parts.append(f"{multiple} multiple-answer")
    if filled.rationales or filled.explanations:
        parts.append(
            f"--fill-missing stood in for {plural(filled.rationales, 'rationale')} and "
            f"{plural(filled.explanations, 'explanation')}"
        )
    by_topic = ", ".join(f"{name or '-'} {n}" for name, n in sorted(topics.items()))
    return "; ".join(parts) + f"\n  by topic: {by_topic}"


def run_import_format(args: argparse.Namespace) -> int:
    """Read the file, check everything, and write all of it or none of it."""
    fmt = _format(args)
    if fmt is None:
        return 1
    out = Path(args.out) if args.out else Path("questions") / args.bank
    if out.exists() and not out.is_dir():
        print(f"quizbot: --out {out} is a file; give a bank folder", file=sys.stderr)
        return 2
    reads, issues, skipped = _read(fmt, args)
    for line in skipped:
        print(f"skipped: {line}", file=sys.stderr)
    defaults = Defaults(args.topic or "", args.difficulty, args.fill_missing)
    filled = Filled()
    drafts = [draft_of(read, defaults, filled) for read in reads]
    report, plan = plan_drafts(
        drafts, args.bank, out, force=args.force, topic_map=dict(args.topic_map or [])
    )
    if issues or report.issues:
        every = sorted([*issues, *report.issues], key=lambda i: (str(i.file), i.line or 0))
        missing = any(
            i.message == "Field required"
            and (i.column or "").endswith(("rationale", "explanation"))
            for i in every
        )
        hint = (
            f"{NAMES[fmt]} left rationales or explanations empty: write them in the file, "
            "or stand in for them with --fill-missing TEXT"
        )
        return _refuse([*every, *([hint] if missing else [])])
    problems, lint = check_plan(out, plan)
    # What the reader read but the bank cannot hold (an embedded picture): like lint's
    # warnings, printed, and refusing the import with --strict.
    dropped = sorted(
        (w for r in reads for w in r.warnings), key=lambda i: (str(i.file), i.line or 0)
    )
    warnings: list[ImportIssue | Problem] = [*dropped, *lint]
    if problems or (args.strict and warnings):
        return _refuse([*problems, *warnings])
    for warning in warnings:
        print(warning, file=sys.stderr)
    for count, what in ((len(dropped), "import warning"), (len(lint), "item-writing warning")):
        if count:
            print(f"{plural(count, what)} (--strict refuses them)", file=sys.stderr)
    write_all(plan, out)
    print(_summary(out, plan, reads, drafts, filled))
    return 0


def _role_pair(value: str) -> tuple[str, str]:
    name, sep, role = value.rpartition("=")
    if not sep or not name.strip() or role.strip() not in anki.ROLES:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not FIELD=ROLE with ROLE one of {', '.join(anki.ROLES)}"
        )
    return name.strip(), role.strip()


def register_sources(sources: Any, common: Any) -> None:
    """Add one `quizbot import FORMAT` subcommand per exchange format."""
    for fmt in FORMATS:
        title, doc = HELP[fmt]
        cmd = sources.add_parser(
            fmt,
            help=title,
            description=f"Import {title}. Nothing is written while any problem remains.",
            epilog=doc,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        cmd.add_argument("file", type=Path, metavar="FILE")
        common(cmd)
        cmd.add_argument(
            "--format",
            choices=FORMATS,
            help="read the file as this format even when it looks like another",
        )
        cmd.add_argument(
            "--topic", metavar="NAME", help="topic of questions the file files under none"
        )
        cmd.add_argument("--difficulty", choices=("easy", "medium", "hard"), default="medium")
        cmd.add_argument(
            "--fill-missing",
            metavar="TEXT",
            help="text for every rationale and explanation the file leaves empty",
        )
        cmd.add_argument(
            "--skip-unsupported",
            action="store_true",
            help="list questions (notes) of other types as skipped instead of refusing the file",
        )
        cmd.add_argument(
            "--strict", action="store_true", help="item-writing warnings refuse the import too"
        )
        # On every format's command: `--format anki` may force a package read as one.
        cmd.add_argument(
            "--map",
            action="append",
            type=_role_pair,
            metavar="FIELD=ROLE",
            help="Anki: the note field holding ROLE (repeatable): " + ", ".join(anki.ROLES),
        )
        cmd.set_defaults(func=run_import_format)
