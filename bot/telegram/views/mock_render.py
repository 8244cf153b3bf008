"""Mock exams as Telegram HTML: the exam screen, Finish's confirmation, the result, the review."""

from __future__ import annotations

from collections.abc import Sequence

from bot.bank.models import LETTERS, Bank, Question
from bot.mock.exam import Pending, shown_options
from bot.mock.models import Exam, ExamStatus
from bot.mock.scoring import MockResult
from bot.practice.mock_models import ReviewEntry
from bot.telegram.views import mock_texts, render
from bot.telegram.views.render import bank_html, esc

MAX_POSITIONS = 30  # positions listed in the confirmation before "and N more"


def minutes_left(seconds: float) -> str:
    """Time left as the learner reads it: whole minutes, rounded up, or seconds at the end."""
    if seconds >= 60:
        return f"{int((seconds + 59) // 60)} min"
    return f"{max(0, int(seconds))} s"


def duration(seconds: float) -> str:
    """A duration as 'h h mm min', 'm min ss s'."""
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    if h:
        return f"{h} h {m:02d} min"
    if m:
        return f"{m} min {sec:02d} s" if sec else f"{m} min"
    return f"{sec} s"


def positions(indices: Sequence[int]) -> str:
    """0-based positions as the learner's question numbers: '3, 7, 12'."""
    shown = ", ".join(str(i + 1) for i in indices[:MAX_POSITIONS])
    more = len(indices) - MAX_POSITIONS
    return f"{shown} and {more} more" if more > 0 else shown


def screen_text(exam: Exam, question: Question, time_left_s: float) -> str:
    """The exam's one message: where the learner is, the stem and the options in exam order."""
    item = exam.items[exam.current]
    flagged = len(exam.flagged)
    progress = mock_texts.MOCK_PROGRESS.format(
        answered=exam.answered_count,
        size=exam.size,
        flagged=f" · 🚩 {flagged} flagged" if flagged else "",
    )
    chosen = item.chosen_display
    lines = [
        mock_texts.MOCK_HEAD.format(
            n=exam.current + 1, size=exam.size, left=minutes_left(time_left_s)
        ),
        progress + (" · 🚩 this one" if item.flagged else ""),
        "",
        bank_html(question.stem),
        "",
    ]
    for d, option in enumerate(shown_options(item, question)):
        mark = "☑️ " if d in chosen else ""
        lines.append(f"{mark}<b>{LETTERS[d]}.</b> {bank_html(option.text)}")
    if item.select_count > 1:
        count = render.NUMBER_WORDS.get(item.select_count, str(item.select_count))
        lines += ["", mock_texts.MOCK_SELECT.format(count=count)]
    return "\n".join(lines)


def confirm_text(pending: Pending, time_left_s: float) -> str:
    """Finish asks first when questions are open or flagged."""
    details = []
    if pending.unanswered:
        details.append(
            mock_texts.MOCK_CONFIRM_OPEN.format(positions=positions(pending.unanswered))
        )
    if pending.flagged:
        details.append(
            mock_texts.MOCK_CONFIRM_FLAGGED.format(positions=positions(pending.flagged))
        )
    return mock_texts.MOCK_CONFIRM.format(
        details="\n".join(details), left=minutes_left(time_left_s)
    )


def stop_text(exam: Exam, time_left_s: float) -> str:
    """`/mock stop` asks before abandoning."""
    return mock_texts.MOCK_STOP_ASK.format(
        answered=exam.answered_count, size=exam.size, left=minutes_left(time_left_s)
    )


def result_text(result: MockResult) -> str:
    """Score, pass or fail, time used and the score per topic against its blueprint weight."""
    passed = result.passed
    lines = [
        mock_texts.MOCK_RESULT_HEAD.format(
            mark="✅" if passed else "❌",
            percent=result.percent,
            verdict="passed" if passed else "not passed",
            passing=result.passing_score,
        ),
        mock_texts.MOCK_RESULT_LINE.format(
            correct=result.correct,
            total=result.total,
            used=duration(result.time_used_s),
            allowed=duration(result.time_allowed_s),
            expired=" (time ran out)" if result.status is ExamStatus.EXPIRED else "",
        ),
        "",
        "<b>By topic</b> (score · share of the exam)",
    ]
    for t in result.topics:
        mark = "✓" if t.percent >= result.passing_score else "✗"
        weight = f" · {t.weight:g}%" if t.weight else ""
        lines.append(f"{mark} {esc(t.name)}: {t.correct}/{t.total} ({t.percent:.0f}%){weight}")
    if not result.mistakes:
        lines += ["", mock_texts.MOCK_NO_MISTAKES]
    return "\n".join(lines)


def as_shown(entry: ReviewEntry) -> tuple[Question, frozenset[int]]:
    """The question with its options in the order the learner saw them, and their choice as
    display positions: the practice verdict then reads exactly as the exam looked."""
    m = entry.mistake
    options = [entry.question.options[i] for i in m.order]
    shown = entry.question.model_copy(update={"options": options})
    return shown, frozenset(m.order.index(i) for i in m.chosen if i in m.order)


def review_text(bank: Bank, entries: Sequence[ReviewEntry], index: int) -> str:
    """One mistake, rendered like a practice verdict (choice, its rationale, the key, trap)."""
    entry = entries[index]
    question, chosen = as_shown(entry)
    head = mock_texts.MOCK_REVIEW_HEAD.format(
        i=index + 1,
        n=len(entries),
        position=entry.mistake.position + 1,
        open="" if entry.mistake.answered else " · not answered",
    )
    return head + "\n\n" + render.verdict_html(bank, question, chosen, False)
