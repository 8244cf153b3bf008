"""`quizbot play --mock`: a timed mock exam in the terminal, on the same MockService as the chat.

Commands: letters answer (`B`, or `AC` for "select two"; a new answer replaces the old one),
`n`/`p` next/previous, `f` flag or unflag, `g N` jump to question N, `finish`, `stop` abandon,
`q` leave (the exam keeps running; `play --mock` resumes it until its deadline).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from bot.bank.models import LETTERS
from bot.commands.interrupt import read_line
from bot.commands.terminal import TERMINAL_USER, wrap
from bot.mock.exam import shown_options
from bot.mock.models import ExamKind
from bot.mock.scoring import MockResult
from bot.practice.catalog import Catalog
from bot.practice.clock import Clock
from bot.practice.core import open_core
from bot.practice.mock_models import MockReply, MockStatus, ReviewEntry
from bot.practice.mock_service import MockService

HELP = "letters to answer · n/p next/previous · f flag · g N jump · finish · stop · q leave"


def show_screen(reply: MockReply, out: TextIO) -> None:
    """The question on screen, in the exam's option order, with the learner's marks."""
    exam, q = reply.exam, reply.question
    assert exam is not None and q is not None
    item = exam.items[exam.current]
    left = int((reply.time_left_s + 59) // 60)  # rounded up, as in the chat
    flag = " 🚩" if item.flagged else ""
    print(
        f"\n[Question {exam.current + 1}/{exam.size} · {left} min left · "
        f"answered {exam.answered_count}/{exam.size}{flag}]",
        file=out,
    )
    print(wrap(q.stem), file=out)
    chosen = item.chosen_display
    for d, option in enumerate(shown_options(item, q)):
        mark = "*" if d in chosen else " "
        print(wrap(option.text, f" {mark}{LETTERS[d]}. ", " " * 5), file=out)
    what = f"select {item.select_count}" if item.select_count > 1 else "one letter"
    print(f"({what}; {HELP}) > ", end="", file=out, flush=True)


def show_result(result: MockResult, out: TextIO, review: Sequence[ReviewEntry] = ()) -> None:
    """Score, pass or fail, time, topics, then each mistake as a practice verdict reads."""
    verdict = "PASSED" if result.passed else "NOT PASSED"
    used, allowed = int(result.time_used_s // 60), int(result.time_allowed_s // 60)
    print(
        f"\nMock exam: {result.percent:.0f}% ({result.correct}/{result.total}) · {verdict} "
        f"(pass mark {result.passing_score:g}%) · {used} of {allowed} min",
        file=out,
    )
    for t in result.topics:
        print(
            f"  {t.name}: {t.correct}/{t.total} ({t.percent:.0f}%) · weight {t.weight:g}%",
            file=out,
        )
    for entry in review:
        show_mistake(entry, out)


def show_mistake(entry: ReviewEntry, out: TextIO) -> None:
    """One mistake with the letters the learner saw: the stem, their pick and the key, each
    with its rationale, then the explanation."""
    m, q = entry.mistake, entry.question
    options = [q.options[i] for i in m.order]
    mine = sorted(m.order.index(i) for i in m.chosen if i in m.order)
    key = sorted(m.order.index(i) for i in m.correct)
    picked = ", ".join(LETTERS[d] for d in mine) or "none"
    correct = ", ".join(LETTERS[d] for d in key)
    late = "" if m.answered else " (not answered)"
    print(f"\nQ{m.position + 1} · yours {picked}, correct {correct}{late}", file=out)
    print(wrap(q.stem, "  ", "  "), file=out)
    for d in mine:
        print(wrap(options[d].rationale, f"  Your answer {LETTERS[d]}: ", "    "), file=out)
    for d in key:
        if d not in mine:
            print(wrap(options[d].rationale, f"  Correct answer {LETTERS[d]}: ", "    "), file=out)
    print(wrap(q.explanation, "  Explanation: ", "    "), file=out)


async def _apply(
    svc: MockService, reply: MockReply, line: str, stdin: TextIO, out: TextIO
) -> MockReply:
    """One command typed by the learner."""
    exam = reply.exam
    assert exam is not None
    user, pos = exam.user_id, exam.current
    word = line.strip().lower()
    if word in ("n", "p"):
        return await svc.go(
            user, exam.id, min(max(pos + (1 if word == "n" else -1), 0), exam.size - 1)
        )
    if word == "f":
        return await svc.flag(user, exam.id, pos)
    # isdecimal, not isdigit: "²" is a digit that int() refuses.
    if word.startswith("g ") and word[2:].strip().isdecimal():
        return await svc.go(user, exam.id, int(word[2:]) - 1)
    if word == "finish":
        done = await svc.finish(user, exam.id)
        if done.status is not MockStatus.CONFIRM or done.pending is None:
            return done
        open_ = ", ".join(str(i + 1) for i in done.pending.unanswered) or "none"
        flagged = ", ".join(str(i + 1) for i in done.pending.flagged) or "none"
        print(
            f"Unanswered: {open_}. Flagged: {flagged}. Finish anyway? (y/n) ",
            end="",
            file=out,
            flush=True,
        )
        if read_line(stdin).strip().lower() == "y":
            return await svc.finish(user, exam.id, confirmed=True)
        return await svc.go(user, exam.id, pos)
    if word == "stop":
        return await svc.abandon(user, exam.id)
    item = exam.items[pos]
    letters = [c for c in line.upper() if c.isalpha()]
    picked = {LETTERS.index(c) for c in letters if c in LETTERS[: len(item.order)]}
    if not letters or len(picked) != len(letters) or len(picked) > item.select_count:
        print(f"? {HELP}", file=out)
        return await svc.go(user, exam.id, pos)
    after = reply
    # Unticks first: a tick while the question already has its number of ticks is refused.
    for d in sorted(item.chosen_display - picked) + sorted(picked - item.chosen_display):
        after = await svc.choose(user, exam.id, pos, d, on=d in picked)
    return after if after is not reply else await svc.go(user, exam.id, pos)


async def play_mock(
    catalog: Catalog,
    db_path: Path | str,
    bank_id: str | None,
    short: bool,
    stdin: TextIO,
    out: TextIO,
    clock: Clock | None = None,
) -> int:
    """Resume or start the terminal learner's exam and run it to its end (or until `q`)."""
    async with open_core(catalog, db_path, clock=clock) as core:
        svc = core.mock
        user = TERMINAL_USER.id
        reply = await svc.resume(user)
        if reply.status is MockStatus.NONE:
            kind = ExamKind.SHORT if short else ExamKind.FULL
            reply = await svc.start(user, chat_id=0, bank_id=bank_id, kind=kind)
        if reply.status is MockStatus.TOO_SMALL and reply.offer is not None:
            print(
                f"The bank is too small for the full exam: {reply.offer.questions} questions.",
                file=out,
            )
            reply = await svc.start(
                user,
                chat_id=0,
                bank_id=bank_id,
                kind=ExamKind.REDUCED,
                questions=reply.offer.questions,
            )
        while True:
            if reply.status in (MockStatus.FINISHED, MockStatus.EXPIRED) and reply.result:
                if reply.status is MockStatus.EXPIRED:
                    print(
                        "\nTime is up: the exam was submitted with your answers so far.", file=out
                    )
                # Just finished: no other exam runs to hold the review back.
                review = await svc.review(user, reply.result.exam_id) or []
                show_result(reply.result, out, review)
                return 0
            if reply.status is MockStatus.ABANDONED:
                print("\nMock exam abandoned: no score.", file=out)
                return 0
            if reply.exam is None or reply.question is None:
                print(f"No mock exam ({reply.status}).", file=out)
                return 1
            show_screen(reply, out)
            line = read_line(stdin)
            if not line or line.strip().lower() in ("q", "quit", "exit"):
                print(
                    "\nLeft the exam; it keeps running until its deadline (play --mock resumes).",
                    file=out,
                )
                return 0
            reply = await _apply(svc, reply, line, stdin, out)
