"""`quizbot fit`: fit the memory model to the answers now, as the bot's nightly job does."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from bot.config import Settings
from bot.plural import plural
from bot.practice.catalog import Catalog
from bot.practice.core import open_core
from bot.practice.fitting import FitOutcome
from bot.storage.factory import is_postgres, sqlite_path, target_arg
from bot.storage.port import DatabaseUnavailable


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `fit`."""
    fit = sub.add_parser("fit", help="fit the memory model to the learners' answers now")
    fit.add_argument("--bank", help="bank id (default: every loaded bank)")
    # target_arg: a URL kept whole (as a Path, `//` would collapse and the password show up
    # in "no database at ...").
    fit.add_argument(
        "--db", type=target_arg, help="SQLite file or PostgreSQL URL (default: QUIZBOT_DB)"
    )
    fit.set_defaults(func=cmd_fit)


def cmd_fit(args: argparse.Namespace) -> int:
    """Fit and store; one line per bank. Exit 1 when a bank's fit failed."""
    from bot.commands.run import fail, load_with_bank, unusable

    loaded = load_with_bank(args.bank)
    if isinstance(loaded, int):
        return loaded
    settings, catalog = loaded
    target: str | Path = args.db or settings.db
    if not is_postgres(target) and not sqlite_path(target).is_file():
        return fail(f"no database at {sqlite_path(target)}")
    banks = [args.bank] if args.bank else sorted(catalog.banks)
    try:
        outcomes = asyncio.run(_fit(catalog, target, banks, settings.default_timezone))
    except DatabaseUnavailable as err:
        return unusable(err)
    for o in outcomes:
        print(line(o))
    return 1 if any(o.failed for o in outcomes) else 0


async def _fit(
    catalog: Catalog, target: str | Path, banks: list[str], zone: str
) -> list[FitOutcome]:
    async with open_core(catalog, target, Settings.model_construct(default_timezone=zone)) as core:
        return await core.fits.fit_banks(banks)


def line(o: FitOutcome) -> str:
    """One bank's outcome for the operator."""
    if o.failed:
        return f"{o.bank_id}: fit failed; the last good weights stay in use"
    pooled = (
        "too few reviews for a pooled fit"
        if o.pooled_version is None
        else f"pooled weights version {o.pooled_version}"
    )
    return f"{o.bank_id}: {pooled}; {plural(o.learners, 'learner')} with their own"
