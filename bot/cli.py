"""`quizbot` command line: each subcommand lives in the module that owns its work."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each module defines `register(subparsers)`, adding its subcommands with `set_defaults(func=...)`
# where `func(args) -> int` returns the exit code. Order here is the order shown by --help.
COMMAND_MODULES = (
    "bot.commands.run",
    "bot.bank.commands",
    "bot.commands.play",
    "bot.commands.admin",
    "bot.commands.report",  # after bot.bank.commands: it adds `validate --stats`
    "bot.commands.simulate",
    "bot.commands.stats",
)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="quizbot", description="Telegram practice-exam bot and its tools."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `quizbot` console script."""
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
