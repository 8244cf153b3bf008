"""`quizbot stats --user ID`: a learner's readiness, topics, last 30 days and mock exams in a
terminal (the numbers of /ready and /stats), optionally the /stats chart as a PNG file."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from pathlib import Path
from typing import TextIO
from zoneinfo import ZoneInfo

from bot.commands.arguments import telegram_id
from bot.config import Settings
from bot.plural import plural
from bot.practice.catalog import Catalog
from bot.practice.core import open_core
from bot.practice.fitting import describe
from bot.practice.readiness_service import ReadinessReport, render_stats_chart
from bot.storage.factory import missing_file, target_arg
from bot.storage.fit_sql import StoredParams
from bot.storage.port import DatabaseUnavailable


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `stats`."""
    stats = sub.add_parser("stats", help="a learner's readiness and progress, for operators")
    stats.add_argument("--user", type=telegram_id, required=True, help="Telegram user id")
    stats.add_argument("--bank", help="bank id (default: the learner's bank)")
    stats.add_argument("--png", type=Path, help="also write the /stats chart to this file")
    stats.add_argument(
        "--db", type=target_arg, help="SQLite file or PostgreSQL URL (default: QUIZBOT_DB)"
    )
    stats.set_defaults(func=cmd_stats)


def cmd_stats(args: argparse.Namespace) -> int:
    """Print the report; write the chart when asked."""
    from bot.commands.run import fail, load_with_bank, not_writable, unusable, write_failed

    if args.png is not None and (why := not_writable(args.png)) is not None:
        return fail(why)
    loaded = load_with_bank(args.bank)
    if isinstance(loaded, int):
        return loaded
    settings, catalog = loaded
    db_path = args.db or settings.db
    if missing_file(db_path):
        return fail(f"no database at {db_path}")
    try:
        report, params, chosen = asyncio.run(
            _report(catalog, db_path, args.user, args.bank, settings.default_timezone)
        )
    except DatabaseUnavailable as err:
        return unusable(err)
    if args.bank is None and chosen is not None and chosen != report.bank_id:
        # The learner practises a bank this run did not load: a report on the default bank
        # would read as theirs.
        return fail(
            f"user {args.user} practises bank {chosen!r}, which is not loaded: set "
            f"QUIZBOT_QUESTIONS to its folder, or name a bank with --bank"
        )
    print_report(report, sys.stdout)
    print(describe(params))
    if args.png is not None:
        try:
            args.png.write_bytes(render_stats_chart(report))
        except OSError as err:
            return write_failed(args.png, err)
        print(f"chart written to {args.png}")
    return 0


async def _report(
    catalog: Catalog, db_path: Path | str, user: int, bank: str | None, zone: str
) -> tuple[ReadinessReport, StoredParams | None, str | None]:
    """The report, the fitted parameters behind it, and the bank the learner chose."""
    async with open_core(
        catalog, db_path, Settings.model_construct(default_timezone=zone)
    ) as core:
        report = await core.readiness.report(user, bank)
        chosen = (await core.practice.prefs(user)).bank_id
        return report, await core.fits.params_for(user, report.bank_id), chosen


def print_report(report: ReadinessReport, out: TextIO) -> None:
    """The report as plain text."""
    r = report.readiness
    print(f"User {report.user_id} · {report.bank_title} ({report.bank_id})", file=out)
    if report.last_answer_id == 0 and not report.mocks:
        # Said first: a mistyped id would otherwise read as a learner yet to start.
        print("No answers and no mock exams recorded in this bank.", file=out)
    if r.enough_data and r.score is not None:
        print(
            f"Predicted score {r.score:.1f}% (90% range {r.low:.1f}–{r.high:.1f}), "
            f"P(pass at {r.passing_score:g}%) = {r.pass_probability or 0:.2f}",
            file=out,
        )
    else:
        missing = ", ".join(report.topics_missing) or "none"
        print(
            f"Not enough evidence: {plural(r.answers, 'answer')} "
            f"({r.answers_missing} more needed); "
            f"topics with too few answers: {missing}",
            file=out,
        )
    f = report.at_exam
    if report.exam_date is not None:
        days = report.days_to_exam or 0
        when = "today" if days == 0 else f"in {plural(days, 'day')}"
        if f is not None and f.enough_data and f.score is not None:
            print(
                f"At the exam date {report.exam_date} ({when}, without"
                f" more practice): {f.score:.1f}% (90% range {f.low:.1f}–{f.high:.1f}),"
                f" P(pass) = {f.pass_probability or 0:.2f}",
                file=out,
            )
        else:
            print(f"Exam date {report.exam_date} ({when})", file=out)
    print("Topic · weight · predicted · met", file=out)
    for t in report.topics:
        score = "—" if t.score is None else f"{t.score:.1f}%"
        print(f"  {t.name} · {t.weight:g}% · {score} · {t.met:.0%}", file=out)
    answered = sum(d.answered for d in report.days)
    right = sum(d.correct for d in report.days)
    share = f", {right / answered:.0%} right" if answered else ""
    active = plural(len(report.days), "day")
    print(f"Last 30 days: {plural(answered, 'answer')}{share} on {active}", file=out)
    zone = ZoneInfo(report.timezone)
    for m in report.mocks:
        date = dt.datetime.fromtimestamp(m.started_at, zone).strftime("%Y-%m-%d %H:%M")
        score = "" if m.percent is None else f" {m.percent:.0f}% passed={m.passed}"
        print(f"Mock {m.exam_id} · {date} · {m.kind} · {m.status}{score}", file=out)
