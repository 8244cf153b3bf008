"""`quizbot` command line: each subcommand lives in the module that owns its work."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a program stopped by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as for any program whose reader went away

# Each module defines `register(subparsers)`, adding its subcommands with `set_defaults(func=...)`
# where `func(args) -> int` returns the exit code. Order here is the order shown by --help.
COMMAND_MODULES = (
    "bot.commands.run",
    "bot.commands.bank",
    "bot.commands.play",
    "bot.commands.admin",
    "bot.commands.report",  # after bot.commands.bank: it adds `validate --stats`
    "bot.commands.simulate",
    "bot.commands.stats",
    "bot.commands.fit",
    "bot.commands.export",
    "bot.commands.db",
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


def hold_sighup() -> None:
    """SIGHUP means "reload the banks" to the bot; until the bot installs that handler, the
    default action (terminate) would kill a starting bot, e.g. a `systemctl reload` right
    after a start. So it is caught from the very first moment and ignored until then."""
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, lambda signum, frame: None)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `quizbot` console script."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:
        hold_sighup()  # before the imports below, which take most of the start-up second
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
        sys.stdout.flush()  # here, where a reader gone away is handled below
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED  # Ctrl-C: the user knows why it stopped, no traceback
    except BrokenPipeError:
        # `quizbot stats ... | head`: the reader left. Python would report the pipe again
        # when it flushes stdout at exit, so stdout goes to /dev/null first.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return code


if __name__ == "__main__":
    sys.exit(main())
