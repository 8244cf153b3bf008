"""Group and channel views as Telegram HTML: the question with its live count, the private
verdict alert, the reveal, the leaderboard and the native quiz poll's fields."""

from __future__ import annotations

from collections.abc import Iterable

from bot.bank.limits import CALLBACK_ANSWER_CHARS
from bot.bank.models import LETTERS, Bank, Kind, Question
from bot.bank.rich import plain_text
from bot.domain.groups import Leaderboard, Reveal, Standing
from bot.domain.models import AnswerOutcome
from bot.plural import plural
from bot.telegram.views import texts
from bot.telegram.views.render import bank_html, clip, esc, header, letters, question_text

POLL_QUESTION_CHARS = 300
POLL_OPTION_CHARS = 100
POLL_EXPLANATION_CHARS = 200
NAME_CHARS = 32


def _minutes(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return f"{minutes} min"


def group_question_text(bank: Bank, question: Question, window_s: float, count: int) -> str:
    """The question as posted in a group or channel, with the window and the live count."""
    footer = texts.GROUP_FOOTER.format(window=_minutes(window_s), answers=plural(count, "answer"))
    return f"{question_text(bank, question)}\n\n{footer}"


def answer_alert(outcome: AnswerOutcome, *, again: bool = False) -> str:
    """The member's private verdict (a callback alert): verdict and the gist of their option."""
    assert outcome.delivery is not None
    q = outcome.delivery.question
    if outcome.correct:
        verdict = texts.GROUP_ALERT_RIGHT.format(chosen=letters(outcome.chosen))
    else:
        verdict = texts.GROUP_ALERT_WRONG.format(
            chosen=letters(outcome.chosen), answer=letters(q.correct_indices)
        )
    if again:
        verdict = texts.GROUP_ALERT_AGAIN + verdict
    # The rationale of the option they chose (the first wrong one, if several): why it tempts.
    wrong = sorted(i for i in outcome.chosen if not q.options[i].correct)
    pick = wrong[0] if wrong else min(outcome.chosen)
    # A callback answer is plain text: formulas readable, code on one line.
    gist = f"{LETTERS[pick]}: {' '.join(plain_text(q.options[pick].rationale).split())}"
    room = CALLBACK_ANSWER_CHARS - len(verdict) - 1
    return f"{verdict} {clip(gist, room)}" if room > 20 else clip(verdict)


def toggled_alert(chosen: frozenset[int]) -> str:
    """What a member has selected so far in a multiple-answer group question."""
    return clip(texts.CB_TOGGLED.format(chosen=letters(chosen) or "nothing"))


def reveal_text(bank: Bank, reveal: Reveal) -> str:
    """The closed question: correct answer, share per option, explanation and trap."""
    q = reveal.delivery.question
    n = reveal.answered
    head = texts.REVEAL_HEAD.format(
        answer=letters(q.correct_indices), count=n, s="" if n == 1 else "s"
    )
    parts = [head, "", header(bank, q), bank_html(q.stem), ""]
    for i, option in enumerate(q.options):
        mark = "✅" if option.correct else "▫️"
        share = f"{reveal.share(i):.0%} ({reveal.per_option[i]})" if n else "—"
        parts.append(f"{mark} <b>{LETTERS[i]}.</b> {bank_html(option.text)} · <i>{share}</i>")
    parts += ["", "<b>Explanation</b>", bank_html(q.explanation)]
    if q.trap:
        parts += ["", "⚠️ <b>Common exam trap</b>", bank_html(q.trap)]
    parts += ["", texts.REVEAL_WHY_HINT]
    return "\n".join(parts)


def why_payload(delivery_id: int) -> str:
    """The /start payload of a "Why?" deep link (≤ 64 chars of [A-Za-z0-9_-])."""
    return f"why_{delivery_id}"


def why_url(bot_username: str, delivery_id: int) -> str:
    return f"https://t.me/{bot_username}?start={why_payload(delivery_id)}"


STATS_PAYLOAD = "stats"  # `/start stats` in private shows the learner's /stats


def stats_url(bot_username: str) -> str:
    """A deep link that opens the private chat on the learner's statistics."""
    return f"https://t.me/{bot_username}?start={STATS_PAYLOAD}"


def _line(rank: int, s: Standing) -> str:
    name = esc(clip(s.first_name.strip() or "Someone", NAME_CHARS))
    return f"{rank}. {name}: <b>{s.correct}</b> correct · {s.answered} answered ({s.accuracy:.0%})"


def leaderboard_text(board: Leaderboard, title: str | None) -> str:
    """This week and all time, by correct answers (ties: who got there first)."""
    lines = [texts.LEADERBOARD_HEAD.format(title=esc(clip(title or "this group", 60)))]
    for label, rows in ((texts.LB_WEEK, board.week), (texts.LB_ALL, board.all_time)):
        lines += ["", f"<b>{label}</b>"]
        lines += [_line(i, s) for i, s in enumerate(rows, 1)] or [texts.LB_EMPTY]
    return "\n".join(lines)


def plain_line(text: str) -> str:
    """Bank text for a poll (plain text): formulas readable, on one line."""
    return " ".join(plain_text(text).split())


def poll_options(question: Question) -> list[str]:
    """The poll's options as plain text."""
    return [plain_line(o.text) for o in question.options]


def poll_fits(question: Question) -> bool:
    """Whether a question can go out as Telegram's native quiz poll: its options fit (a long
    stem is sent as a message above the poll); else it goes out with buttons."""
    return all(len(o) <= POLL_OPTION_CHARS for o in poll_options(question)) and (
        2 <= len(question.options) <= 12
    )


def stem_fits_poll(question: Question) -> bool:
    """Whether the stem itself can be the poll's question (at most 300 characters, and no
    code: a poll would lose its lines)."""
    stem = question.stem
    return "```" not in stem and len(plain_line(stem)) <= POLL_QUESTION_CHARS


def poll_question(question: Question) -> str:
    """The poll's question: the stem, or a pointer to the message above that holds it."""
    if stem_fits_poll(question):
        return plain_line(question.stem)
    if question.kind is Kind.MULTIPLE:
        return texts.POLL_SEE_ABOVE_MULTIPLE.format(count=question.select_count)
    return texts.POLL_SEE_ABOVE


def poll_stem_text(bank: Bank, question: Question) -> str:
    """The message above a poll whose stem is too long to be its question."""
    return f"{header(bank, question)}\n\n{bank_html(question.stem)}"


def polls_fitting(questions: Iterable[Question]) -> tuple[int, int]:
    """(questions that can be quiz polls, questions) among these."""
    fit = total = 0
    for q in questions:
        total += 1
        fit += poll_fits(q)
    return fit, total


def poll_explanation(question: Question) -> str:
    """The quiz poll's explanation: plain text, one line, at most 200 chars."""
    return clip(plain_line(question.explanation), POLL_EXPLANATION_CHARS)
