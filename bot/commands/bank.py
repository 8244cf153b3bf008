"""`quizbot validate`, `quizbot schema` and `quizbot import page|csv`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.bank import import_formats, schema
from bot.bank.importers import csv_import, page
from bot.bank.importers.common import SLUG, Draft, ImportIssue
from bot.bank.importers.writer import write_drafts
from bot.bank.lint import lint_bank
from bot.bank.loader import BANK_FILE, bank_dir_of, load_banks
from bot.bank.summary import summarize
from bot.config import ConfigError
from bot.plural import plural


def _default_questions() -> list[Path]:
    """What the bot would load: QUIZBOT_QUESTIONS (environment or .env) when set; otherwise a
    checkout's questions/ when run from its root, or the bundle. ConfigError for bad settings."""
    from bot.config import BUNDLED_QUESTIONS, load_settings

    settings = load_settings()
    if "questions" in settings.model_fields_set:
        return list(settings.questions)
    local = Path("questions")
    return [local if local.is_dir() else BUNDLED_QUESTIONS]


def _validate_file(file: Path, strict: bool) -> int:
    """One question file checked against its bank: only its own problems are printed."""
    bank_dir = bank_dir_of(file)
    if bank_dir is None:
        print(f"{file}:-: -: -: no bank.yaml in any folder above this file", file=sys.stderr)
        return 1
    result = load_banks([bank_dir])
    mine = file.resolve()
    problems = [p for p in result.problems if p.file.resolve() in (mine, bank_dir / BANK_FILE)]
    warnings = [
        w
        for bank_id, bank in result.banks.items()
        for w in lint_bank(bank, result.folders[bank_id], result.files[bank_id])
        if w.file.resolve() == mine
    ]
    for line in [*problems, *warnings]:
        print(line, file=sys.stderr)
    errors = len(problems) + (len(warnings) if strict else 0)
    if errors:
        print(f"{plural(errors, 'problem')} found", file=sys.stderr)
        return 1
    print(f"{file}: valid in bank {bank_dir.name}")
    return 0


def run_validate(args: argparse.Namespace) -> int:
    """Print every problem (exit 1) or a summary of each bank (exit 0); warnings either way."""
    if args.paths:
        paths: Sequence[Path] = args.paths
    else:
        try:
            paths = _default_questions()
        except ConfigError as err:
            print(f"quizbot: {err}", file=sys.stderr)
            return 2
    files = [p for p in paths if p.is_file() and p.name != BANK_FILE]
    if files:
        codes = [_validate_file(f, args.strict) for f in files]
        paths = [p for p in paths if p not in files]
        if not paths:
            return max(codes)
    result = load_banks(paths)
    warnings = [
        warning
        for bank_id, bank in result.banks.items()
        for warning in lint_bank(bank, result.folders[bank_id], result.files[bank_id])
    ]
    for problem in result.problems:
        print(problem, file=sys.stderr)
    for warning in warnings:
        print(warning, file=sys.stderr)
    errors = len(result.problems) + (len(warnings) if args.strict else 0)
    if warnings:
        counted = "counted as errors (--strict)" if args.strict else "(--strict makes them errors)"
        print(f"{plural(len(warnings), 'item-writing warning')} {counted}", file=sys.stderr)
    if errors:
        print(f"{plural(errors, 'problem')} found", file=sys.stderr)
        return 1
    print("\n\n".join(summarize(bank) for bank in result.banks.values()))
    return 0


def run_schema(args: argparse.Namespace) -> int:
    """Write (or print, or check) the JSON Schema files."""
    if args.print:
        name = schema.QUESTION_SCHEMA if args.print == "question" else schema.BANK_SCHEMA
        sys.stdout.write(schema.schema_texts()[name])
        return 0
    out = Path(args.out) if args.out else schema.SCHEMA_DIR
    if out.exists() and not out.is_dir():
        print(f"quizbot: --out {out} is a file; give a folder", file=sys.stderr)
        return 2
    if args.check:
        stale = schema.stale_schemas(out)
        for path in stale:
            print(f"{path}: out of date; run `quizbot schema`", file=sys.stderr)
        return 1 if stale else 0
    for path in schema.write_schemas(out):
        print(f"wrote {path}")
    return 0


def _report_import(
    drafts: list[Draft],
    issues: list[ImportIssue],
    args: argparse.Namespace,
    topics: dict[str, str],
) -> int:
    out = Path(args.out) if args.out else Path("questions") / args.bank
    if out.exists() and not out.is_dir():
        print(f"quizbot: --out {out} is a file; give a bank folder", file=sys.stderr)
        return 2
    report = write_drafts(drafts, args.bank, out, force=args.force, topic_map=topics)
    issues = issues + report.issues
    for issue in issues:
        print(issue, file=sys.stderr)
    print(
        f"{out}: {plural(len(report.written), 'question file')} written, "
        f"{len(report.unchanged)} unchanged"
        + (", bank.yaml written" if report.bank_file_changed else "")
    )
    if not (out / "bank.yaml").is_file():
        return 1
    if issues and not (report.written or report.bank_file_changed):
        # Nothing changed in the folder: checking it would only repeat what it lacked before.
        return 1
    check = load_banks([out])
    for problem in check.problems:
        print(problem, file=sys.stderr)
    if check.problems:
        print(
            f"{out} does not validate: {plural(len(check.problems), 'problem')}", file=sys.stderr
        )
    return 1 if issues or check.problems else 0


def run_import_page(args: argparse.Namespace) -> int:
    """Import practice pages."""
    drafts: list[Draft] = []
    issues: list[ImportIssue] = []
    for path in args.files:
        more, problems = page.read_page_file(path)
        for draft in more:
            if args.difficulty:
                draft.data["difficulty"] = args.difficulty
        drafts += more
        issues += problems
    return _report_import(drafts, issues, args, dict(args.topic_map or []))


def run_import_csv(args: argparse.Namespace) -> int:
    """Import a CSV spreadsheet."""
    drafts, issues = csv_import.read_csv_file(args.file, args.delimiter)
    return _report_import(drafts, issues, args, dict(args.topic_map or []))


def _slug(value: str) -> str:
    if not SLUG.match(value):
        raise argparse.ArgumentTypeError(f"{value!r} is not an id like genai-llm")
    return value


def _topic_pair(value: str) -> tuple[str, str]:
    words, sep, topic = value.partition("=")
    if not sep or not words.strip() or not SLUG.match(topic.strip()):
        raise argparse.ArgumentTypeError(f"{value!r} is not WORDS=TOPIC-ID")
    return words.strip(), topic.strip()


def _delimiter(value: str) -> str:
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";"}.get(value.lower(), value)
    if len(named) != 1 or named in '"\r\n':
        raise argparse.ArgumentTypeError(f"{value!r} is not one character (e.g. ';' or tab)")
    return named


def _topic_map_option(parser: argparse.ArgumentParser, what: str, example: str) -> None:
    parser.add_argument(
        "--topic-map",
        action="append",
        type=_topic_pair,
        metavar="WORDS=TOPIC-ID",
        help=f"file {what} WORDS under TOPIC-ID (repeatable), e.g. {example}",
    )


def _import_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bank", required=True, type=_slug, metavar="ID", help="bank id")
    parser.add_argument(
        "--out", metavar="DIR", help="bank folder to write into (default: questions/ID/)"
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite question files that already exist"
    )


def register(sub: Any) -> None:
    """Add the bank subcommands to the `quizbot` parser."""
    validate = sub.add_parser(
        "validate",
        help="check question banks and summarise them",
        description="Check every bank under each PATH (a bank folder or a folder of banks). "
        "Prints every problem as file:line: question-id: field: message and exits 1, or a "
        "summary of each bank and exits 0.",
    )
    validate.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH", help="default: questions/ (or the bundle)"
    )
    validate.add_argument(
        "--strict",
        action="store_true",
        help="item-writing warnings ([rule-name] cues such as a key longer than every "
        "distractor) count as errors",
    )
    validate.set_defaults(func=run_validate)

    schema_cmd = sub.add_parser(
        "schema",
        help="write the JSON Schema of question files and bank.yaml",
        description="Write question.schema.json and bank.schema.json (for editors, through "
        "the `# yaml-language-server: $schema=...` line of each YAML file).",
    )
    schema_cmd.add_argument(
        "--out", metavar="DIR", help=f"folder to write into (default: {schema.SCHEMA_DIR})"
    )
    schema_cmd.add_argument(
        "--print",
        choices=("question", "bank"),
        help="print that schema to stdout instead of writing files",
    )
    schema_cmd.add_argument(
        "--check", action="store_true", help="exit 1 if the files differ from the models"
    )
    schema_cmd.set_defaults(func=run_schema)

    imp = sub.add_parser(
        "import",
        help="turn practice pages, CSV, Moodle XML, GIFT, Aiken or Anki into question files",
    )
    sources = imp.add_subparsers(dest="source", metavar="SOURCE", required=True)
    page_cmd = sources.add_parser(
        "page",
        help="practice pages (text)",
        description=page.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    page_cmd.add_argument("files", nargs="+", type=Path, metavar="FILE")
    _import_options(page_cmd)
    _topic_map_option(page_cmd, "pages whose title says", "Deployment=model-deployment")
    page_cmd.add_argument(
        "--difficulty", choices=("easy", "medium", "hard"), help="default: medium"
    )
    page_cmd.set_defaults(func=run_import_page)

    csv_cmd = sources.add_parser(
        "csv",
        help="a CSV spreadsheet, one row per question",
        description="Import a CSV file, one row per question.",
        epilog=csv_import.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    csv_cmd.add_argument("file", type=Path, metavar="FILE")
    _import_options(csv_cmd)
    _topic_map_option(csv_cmd, "rows whose topic cell says", "'Fine tuning=fine-tuning'")
    csv_cmd.add_argument(
        "--delimiter",
        type=_delimiter,
        metavar="CHAR",
        help="the cell separator: ',' or ';' or tab (default: guessed from the first row)",
    )
    csv_cmd.set_defaults(func=run_import_csv)

    def exchange_options(parser: argparse.ArgumentParser) -> None:
        _import_options(parser)
        _topic_map_option(parser, "questions whose topic says", "'Fine tuning=fine-tuning'")

    import_formats.register_sources(sources, exchange_options)
