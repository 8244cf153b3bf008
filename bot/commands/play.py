"""`quizbot play`: the practice loop in a terminal, on the same engine and database as the bot."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from pathlib import Path
from typing import TextIO

from bot.bank.models import LETTERS, Bank, Kind, Question
from bot.commands.interrupt import read_line
from bot.commands.terminal import TERMINAL_USER, wrap
from bot.domain.kinds import Source
from bot.domain.models import AnswerOutcome, AnswerStatus
from bot.practice.catalog import Catalog
from bot.practice.core import open_core
from bot.storage.factory import is_postgres, sqlite_path, target_arg
from bot.storage.port import DatabaseUnavailable


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `play`."""
    play = sub.add_parser("play", help="practise in the terminal, no Telegram needed")
    play.add_argument("--topic", help="topic id to practise (default: all)")
    play.add_argument("--bank", help="bank id (default: the first bank)")
    play.add_argument(
        "--db", type=target_arg, help="SQLite file or PostgreSQL URL (default: QUIZBOT_DB)"
    )
    play.add_argument(
        "-n", "--count", type=_count, default=0, help="stop after N questions (0: no limit)"
    )
    play.add_argument("--mock", action="store_true", help="sit a timed mock exam instead")
    play.add_argument("--short", action="store_true", help="with --mock: a quarter-length exam")
    machine = play.add_argument_group("machine mode")
    machine.add_argument(
        "--jsonl",
        action="store_true",
        help="one JSON request per line on stdin, one JSON reply per line on stdout",
    )
    machine.add_argument("--seed", type=int, help="seed for question choice and option order")
    machine.add_argument(
        "--clock",
        type=_clock,
        help="simulated start time, e.g. 2027-01-04T08:00:00Z; moves only on advance",
    )
    play.set_defaults(func=cmd_play)


def _clock(value: str) -> dt.datetime:
    from bot.commands.jsonl import parse_clock

    try:
        return parse_clock(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _count(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a count of questions (0 or more)")
    return number


def cmd_play(args: argparse.Namespace) -> int:
    """Run the terminal loop until EOF, `q`, or --count questions."""
    from bot.commands.run import fail, load_with_bank, unusable

    loaded = load_with_bank(args.bank)
    if isinstance(loaded, int):
        return loaded
    settings, catalog = loaded
    db_path = args.db or settings.db
    if not is_postgres(db_path) and sqlite_path(db_path).is_dir():
        return fail(f"--db {db_path} is a directory; give the path of a SQLite file")
    if args.jsonl and (args.topic is not None or args.count or args.mock):
        return fail("--topic, -n and --mock are for the terminal; in --jsonl send requests")
    if not args.jsonl and (args.seed is not None or args.clock is not None):
        return fail("--seed and --clock go with --jsonl")
    try:
        if args.jsonl:
            from bot.commands.jsonl_io import run_jsonl

            return run_jsonl(catalog, db_path, args.bank, args.seed, args.clock)
        if args.mock:
            from bot.commands.play_mock import play_mock

            return asyncio.run(
                play_mock(catalog, db_path, args.bank, args.short, sys.stdin, sys.stdout)
            )
        return asyncio.run(
            play(catalog, db_path, args.bank, args.topic, args.count, sys.stdin, sys.stdout)
        )
    except DatabaseUnavailable as err:
        return unusable(err)


def show_question(bank: Bank, q: Question, out: TextIO) -> None:
    topic = bank.meta.topic(q.topic)
    print(f"\n[{topic.name if topic else q.topic} · {q.difficulty.value}]", file=out)
    print(wrap(q.stem), file=out)
    for i, option in enumerate(q.options):
        print(wrap(option.text, f"  {LETTERS[i]}. ", " " * 5), file=out)
    hint = f"select {q.select_count}, e.g. AC" if q.kind is Kind.MULTIPLE else "a letter"
    print(f"Your answer ({hint}; q to quit): ", end="", file=out, flush=True)


def show_verdict(outcome: AnswerOutcome, out: TextIO) -> None:
    assert outcome.delivery is not None
    q = outcome.delivery.question
    right = ", ".join(LETTERS[i] for i in sorted(q.correct_indices))
    print(
        "\n✅ Correct!" if outcome.correct else f"\n❌ Not quite. The answer is {right}.", file=out
    )
    for i in sorted(outcome.chosen):
        print("\n" + wrap(q.options[i].rationale, f"Your answer {LETTERS[i]}: ", "  "), file=out)
    if not outcome.correct:
        for i in sorted(q.correct_indices - outcome.chosen):
            print(
                "\n" + wrap(q.options[i].rationale, f"Correct answer {LETTERS[i]}: ", "  "),
                file=out,
            )
    print("\n" + wrap(q.explanation, "Explanation: ", "  "), file=out)
    if q.trap:
        print("\n" + wrap(q.trap, "⚠ Common exam trap: ", "  "), file=out)


def parse_choice(text: str, q: Question) -> frozenset[int] | None:
    """The letters typed, when they are options and exactly as many as the question asks."""
    letters = [c for c in text.upper() if c.isalpha()]
    chosen = frozenset(LETTERS.index(c) for c in letters if c in LETTERS[: len(q.options)])
    # Like the chat, a wrong count is asked again rather than graded wrong.
    if len(chosen) != len(letters) or len(chosen) != q.select_count:
        return None
    return chosen


def show_session(bank: Bank, results: list[tuple[str, bool]], out: TextIO) -> None:
    """Answered, accuracy and the same per topic, for this session only."""
    if not results:
        print("\nNo questions answered this session. Bye!", file=out)
        return
    right = sum(ok for _, ok in results)
    print(
        f"\nThis session: {right}/{len(results)} correct ({right / len(results):.0%}).", file=out
    )
    for topic_id in dict.fromkeys(t for t, _ in results):
        mine = [ok for t, ok in results if t == topic_id]
        topic = bank.meta.topic(topic_id)
        name = topic.name if topic else topic_id
        print(f"  {name}: {sum(mine)}/{len(mine)} ({sum(mine) / len(mine):.0%})", file=out)


async def play(
    catalog: Catalog,
    db_path: Path | str,
    bank_id: str | None,
    topic: str | None,
    count: int,
    stdin: TextIO,
    out: TextIO,
) -> int:
    """The loop itself, on explicit streams so tests can drive it."""
    async with open_core(catalog, db_path) as core:
        service = core.practice
        bank = catalog.bank(bank_id)
        if not await service.choose_topic(TERMINAL_USER.id, bank.id, topic):
            print(f"quizbot: bank {bank.id} has no topic {topic!r}", file=sys.stderr)
            return 2
        asked = 0
        results: list[tuple[str, bool]] = []
        while not count or asked < count:
            delivery = await service.next_delivery(0, TERMINAL_USER, source=Source.TERMINAL)
            if delivery is None:
                print("No questions in this topic.", file=out)
                return 0
            q = delivery.question
            show_question(bank, q, out)
            while True:
                line = read_line(stdin)
                if not line or line.strip().lower() in {"q", "quit", "exit"}:
                    show_session(bank, results, out)
                    return 0
                chosen = parse_choice(line, q)
                if chosen is not None:
                    break
                how_many = f"{q.select_count} letters" if q.kind is Kind.MULTIPLE else "one letter"
                print(
                    f"Type {how_many} from A to {LETTERS[len(q.options) - 1]}: ",
                    end="",
                    file=out,
                    flush=True,
                )
            outcome = await service.answer(delivery.id, TERMINAL_USER, 0, chosen)
            if outcome.status is AnswerStatus.RECORDED:
                show_verdict(outcome, out)
                results.append((q.topic, outcome.correct))
            asked += 1
        show_session(bank, results, out)
        stats = await service.stats(TERMINAL_USER.id)
        print(f"Answered {stats.answered} in all, accuracy {stats.accuracy:.0%}.", file=out)
    return 0
