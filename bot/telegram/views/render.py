"""Questions, verdicts and breakdowns as Telegram HTML (escaped, within Telegram's limits)."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Iterable

from bot.bank import rich
from bot.bank.limits import CALLBACK_ANSWER_CHARS
from bot.bank.models import LETTERS, Bank, Kind, Question
from bot.domain import zones
from bot.domain.models import AnswerOutcome, Stats
from bot.plural import plural
from bot.practice.learning_service import ActiveMisconception, ExamInfo
from bot.telegram.views import texts

NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def esc(text: str) -> str:
    """Escape for Telegram's HTML parse mode (quotes only matter inside attributes)."""
    return html.escape(text, quote=False)


def bank_html(text: str) -> str:
    """A stem, option, rationale or explanation as HTML: escaped, formulas as readable text,
    fenced code as <pre><code>."""
    return rich.telegram_html(text.strip())


def letters(indices: Iterable[int]) -> str:
    """Option indices as letters: {0, 2} -> 'A, C'."""
    return ", ".join(LETTERS[i] for i in sorted(indices))


def clip(text: str, limit: int = CALLBACK_ANSWER_CHARS) -> str:
    """Shorten plain text to limit chars, on a word boundary, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:.")
    return cut + "…"


def header(bank: Bank, question: Question) -> str:
    """First line: topic and difficulty."""
    topic = bank.meta.topic(question.topic)
    name = topic.name if topic else question.topic
    return f"<b>{esc(clip(name, 60))}</b> · {question.difficulty.value}"


def select_hint(question: Question) -> str:
    """What to tap, for multiple-answer questions."""
    n = question.select_count
    return f"<i>Select {NUMBER_WORDS.get(n, str(n))}, then tap Submit.</i>"


def question_text(bank: Bank, question: Question) -> str:
    """The question as sent: header, stem, lettered options."""
    lines = [header(bank, question), "", bank_html(question.stem), ""]
    lines += [f"<b>{LETTERS[i]}.</b> {bank_html(o.text)}" for i, o in enumerate(question.options)]
    if question.kind is Kind.MULTIPLE:
        lines += ["", select_hint(question)]
    return "\n".join(lines)


def _verdict_line(right: str, correct: bool) -> str:
    if correct:
        return "✅ <b>Correct!</b>"
    return f"❌ <b>Not quite.</b> The answer is <b>{right}</b>."


def verdict_html(bank: Bank, q: Question, chosen: frozenset[int], correct: bool) -> str:
    """The question message after an answer: verdict, marks, the rationale of each chosen
    option (and of the right one when missed), explanation, trap. Positions as in `q`."""
    right = sorted(q.correct_indices)
    out = [
        _verdict_line(", ".join(LETTERS[p] for p in right), correct),
        "",
        f"{header(bank, q)}\n{bank_html(q.stem)}",
        "",
    ]
    for p, option in enumerate(q.options):
        mark = "✅" if option.correct else "❌" if p in chosen else "▫️"
        mine = " ← <i>your answer</i>" if p in chosen else ""
        out.append(f"{mark} <b>{LETTERS[p]}.</b> {bank_html(option.text)}{mine}")
    out.append("")
    label = "Your answer" if len(chosen) == 1 else "Your answers"
    for p in sorted(chosen):
        out += [f"<b>{label}: {LETTERS[p]}</b>", bank_html(q.options[p].rationale), ""]
    if not correct:
        for p in right:
            if p not in chosen:
                out += [
                    f"<b>Correct answer: {LETTERS[p]}</b>",
                    bank_html(q.options[p].rationale),
                    "",
                ]
    out.append(f"<b>Explanation</b>\n{bank_html(q.explanation)}")
    if q.trap:
        out.append(f"\n⚠️ <b>Common exam trap</b>\n{bank_html(q.trap)}")
    return "\n".join(out)


def breakdown_text(bank: Bank, question: Question) -> str:
    """Every option with why it is right or wrong (the "All options explained" view)."""
    parts = [
        f"📖 <b>All options explained</b> · {header(bank, question)}",
        bank_html(question.stem),
    ]
    for i, option in enumerate(question.options):
        label = "Why this is correct" if option.correct else "Why it's wrong here"
        mark = "✅" if option.correct else "❌"
        parts += [
            "",
            f"{mark} <b>{LETTERS[i]}.</b> {bank_html(option.text)}",
            f"<i>{label}:</i> {bank_html(option.rationale)}",
        ]
    return "\n".join(parts)


def callback_verdict(outcome: AnswerOutcome) -> str:
    """The short verdict shown as the callback answer (at most 200 chars)."""
    assert outcome.delivery is not None
    q = outcome.delivery.question
    if outcome.correct:
        return texts.CB_CORRECT
    return clip(texts.CB_WRONG.format(answer=letters(q.correct_indices)))


def freeze_note(stats: Stats) -> str:
    """ " · 1 freeze left" while the streak runs: a missed day this week would be forgiven."""
    if not stats.streak_days:
        return ""
    if stats.streak_freezes_left:
        return f" · {stats.streak_freezes_left} freeze left this week"
    return " · this week's freeze used"


def stats_text(stats: Stats) -> str:
    """A learner's progress: overall, per topic, streak; then other exams and totals."""
    if not stats.answered and not stats.other_exams:
        return texts.NO_STATS
    if stats.answered:
        lines = [
            f"📊 <b>Your progress</b> · {esc(stats.bank_title)}",
            "",
            f"Answered: <b>{stats.answered}</b> · accuracy <b>{stats.accuracy:.0%}</b>",
            f"Streak: <b>{stats.streak_days}</b> day{'s' if stats.streak_days != 1 else ''} 🔥"
            + freeze_note(stats),
            "",
            "<b>By topic</b>",
        ]
        for t in sorted(stats.topics, key=lambda t: t.name):
            lines.append(f"• {esc(t.name)}: {t.correct}/{t.answered} ({t.accuracy:.0%})")
    else:
        lines = [texts.NO_STATS_HERE.format(bank=esc(stats.bank_title))]
    if stats.other_exams:
        lines += ["", texts.OTHER_EXAMS_HEAD]
        for e in stats.other_exams:
            lines.append(f"• {esc(e.bank_title)}: {e.correct}/{e.answered} ({e.accuracy:.0%})")
        answered = stats.answered + sum(e.answered for e in stats.other_exams)
        correct = stats.correct + sum(e.correct for e in stats.other_exams)
        accuracy = f"{correct / answered:.0%}"
        lines.append(texts.ALL_EXAMS.format(answered=answered, accuracy=accuracy))
    return "\n".join(lines)


def when(instant: float, tz_name: str) -> str:
    """A push instant on the subscriber's wall clock, e.g. 'Mon 01 Jun, 07:30'."""
    tz = zones.zone(tz_name) or dt.UTC
    return dt.datetime.fromtimestamp(instant, tz).strftime("%a %d %b, %H:%M")


def days_text(days: int) -> str:
    """'today', 'tomorrow', 'in 12 days' ('already passed' for a date before today)."""
    if days < 0:
        return "already passed"
    if days == 0:
        return "today"
    return "tomorrow" if days == 1 else f"in {plural(days, 'day')}"


def example_date(info: ExamInfo) -> str:
    """A valid example for /exam: about two months ahead of the learner's today."""
    return (info.today + dt.timedelta(days=60)).isoformat()


def exam_text(info: ExamInfo) -> str:
    """/exam: the date and days left, or how to set one."""
    if info.date is None or info.days_left is None:
        return texts.EXAM_NONE.format(bank=esc(info.bank_title), example=example_date(info))
    return texts.EXAM_CURRENT.format(
        bank=esc(info.bank_title), date=info.date.isoformat(), days=days_text(info.days_left)
    )


def misconceptions_text(items: Iterable[ActiveMisconception]) -> str:
    """/stats' list of active misconceptions: name and one line each ('' when none)."""
    lines = [
        f"• <b>{esc(clip(m.name, 80))}</b>: {esc(clip(m.description.strip(), 200))}" for m in items
    ]
    return "\n".join([texts.MISCONCEPTIONS_HEAD, *lines]) if lines else ""
