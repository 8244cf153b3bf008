"""`quizbot play`: the practice loop in a terminal, on the same engine and database as the bot."""

from __future__ import annotations

import argparse
import asyncio
import sys
import textwrap
from pathlib import Path
from typing import TextIO

from bot.bank.models import LETTERS, Bank, Kind, Question
from bot.config import ConfigError, load_settings
from bot.domain.kinds import Source
from bot.domain.models import AnswerOutcome, AnswerStatus, Learner
from bot.practice.catalog import Catalog
from bot.practice.service import PracticeService
from bot.storage.db import Database

TERMINAL_USER = Learner(id=0, first_name="terminal")
WIDTH = 88


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `play`."""
    play = sub.add_parser("play", help="practise in the terminal, no Telegram needed")
    play.add_argument("--topic", help="topic id to practise (default: all)")
    play.add_argument("--bank", help="bank id (default: the first bank)")
    play.add_argument("--db", type=Path, help="SQLite file (default: QUIZBOT_DB)")
    play.add_argument("-n", "--count", type=int, default=0, help="stop after N questions")
    play.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    """Run the terminal loop until EOF, `q`, or --count questions."""
    from bot.commands.run import fail, load_catalog

    try:
        settings = load_settings()
    except ConfigError as err:
        return fail(str(err))
    catalog = load_catalog(settings)
    if catalog is None:
        return 1
    db_path = args.db or settings.db
    return asyncio.run(
        play(catalog, db_path, args.bank, args.topic, args.count, sys.stdin, sys.stdout)
    )


def wrap(text: str, first: str = "", rest: str = "") -> str:
    """Fill text to the terminal width, first line after a label, later ones indented."""
    return textwrap.fill(
        " ".join(text.split()), WIDTH, initial_indent=first, subsequent_indent=rest
    )


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
    letters = [c for c in text.upper() if c.isalpha()]
    chosen = frozenset(LETTERS.index(c) for c in letters if c in LETTERS[: len(q.options)])
    if not chosen or len(chosen) != len(letters):
        return None
    return chosen


async def play(
    catalog: Catalog,
    db_path: Path,
    bank_id: str | None,
    topic: str | None,
    count: int,
    stdin: TextIO,
    out: TextIO,
) -> int:
    """The loop itself, on explicit streams so tests can drive it."""
    async with Database(db_path) as db:
        service = PracticeService(db, catalog)
        bank = catalog.bank(bank_id)
        if not await service.choose_topic(TERMINAL_USER.id, bank.id, topic):
            print(f"quizbot: bank {bank.id} has no topic {topic!r}", file=sys.stderr)
            return 2
        asked = 0
        while not count or asked < count:
            delivery = await service.next_delivery(0, TERMINAL_USER, source=Source.TERMINAL)
            if delivery is None:
                print("No questions in this topic.", file=out)
                return 0
            q = delivery.question
            show_question(bank, q, out)
            while True:
                line = stdin.readline()
                if not line or line.strip().lower() in {"q", "quit", "exit"}:
                    print("\nBye!", file=out)
                    return 0
                chosen = parse_choice(line, q)
                if chosen is not None:
                    break
                print(
                    f"Type {'letters' if q.kind is Kind.MULTIPLE else 'one letter'} "
                    f"from A to {LETTERS[len(q.options) - 1]}: ",
                    end="",
                    file=out,
                    flush=True,
                )
            outcome = await service.answer(delivery.id, TERMINAL_USER, 0, chosen)
            if outcome.status is AnswerStatus.RECORDED:
                show_verdict(outcome, out)
            asked += 1
        stats = await service.stats(TERMINAL_USER.id)
        print(f"\nAnswered {stats.answered}, accuracy {stats.accuracy:.0%}.", file=out)
    return 0
