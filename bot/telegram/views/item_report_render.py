"""`/report` for operators: the worst-flagged questions as Telegram HTML, and the file caption."""

from __future__ import annotations

from bot.analysis.admin import AdminReport, WorstQuestion
from bot.analysis.learner_reports import LearnerReport, by_question
from bot.bank.limits import TELEGRAM_MESSAGE_CHARS
from bot.learning.forgetting import COVER_RECALL, MemoryCheck, QueueMode
from bot.plural import plural
from bot.telegram.views.render import clip, esc

FLAG_CHARS = 300  # one flag's words; a question shows at most FLAGS_SHOWN of them
FLAGS_SHOWN = 4
CAPTION_CHARS = 1024  # Telegram's limit for a document's caption
# Room left for the closing line, so the message never reaches Telegram's limit.
BODY_CHARS = TELEGRAM_MESSAGE_CHARS - 200

HEAD = "📋 <b>Item analysis</b> · {bank}"
SUMMARY = "{learners}, {attempts}; {flagged} flagged."
WORST = "<b>Worst flagged</b> (only each learner's first attempt counts):"
NONE_FLAGGED = "No question is flagged: nothing to fix, or too few first attempts yet."
MORE = "…more in the file."
REPORTED = "<b>⚑ Learners' reports</b> ({count}, one per learner and question):"
REPORTED_SHOWN = 5
FILE_NOTE = "The whole report is the HTML file below: open it in a browser."
MEMORY = (
    "🧠 <b>Memory model</b>: {model}; a first right answer stays above {recall:.0f}% recall"
    " for {days:.1f} days. Study order: {mode}."
)
MODES = {
    QueueMode.STANDARD: "standard (new questions at the exam date's pace, reviews when due)",
    QueueMode.COVER: "cover first (first memories outlast a week)",
}
TOO_LARGE = (
    "The HTML report is over Telegram's 50 MB for a file: run <code>quizbot report --format html"
    " --out FILE</code> on the server instead."
)
CAPTION = "Item analysis of {bank}: summary, every question, options, topics, misconceptions."


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def question_lines(rank: int, q: WorstQuestion) -> list[str]:
    """One flagged question: its id, topic and figures, then its worst flags."""
    lines = [
        f"{rank}. <code>{esc(q.question_id)}</code> · {esc(q.topic)} · n={q.n} ({q.status})"
        f" · p {_figure(q.p)} · r {_figure(q.r)}"
    ]
    lines += [f"   • {esc(clip(f, FLAG_CHARS))}" for f in q.flags[:FLAGS_SHOWN]]
    if len(q.flags) > FLAGS_SHOWN:
        lines.append(f"   • and {len(q.flags) - FLAGS_SHOWN} more")
    return lines


def reported_lines(report: AdminReport) -> list[str]:
    """The reported questions, those marked for review first, with their first comment."""
    if not report.reported:
        return []
    lines = ["", REPORTED.format(count=len(report.reported))]
    for q in report.reported[:REPORTED_SHOWN]:
        mark = f" · <b>review</b>: {esc(q.review)}" if q.review else ""
        lines.append(
            f"• <code>{esc(q.question_id)}</code> · {plural(q.learners, 'learner')}"
            f" · {esc(q.reason_words())}{mark}"
        )
        if q.comments:
            lines.append(f"   “{esc(clip(q.comments[-1], FLAG_CHARS))}”")
    if len(report.reported) > REPORTED_SHOWN:
        lines.append(f"• and {len(report.reported) - REPORTED_SHOWN} more in the file")
    return lines


def memory_line(check: MemoryCheck) -> str:
    """The bank's fitted memory model and the study order it sets, in one line."""
    fitted = f"fitted to {plural(check.reviews, 'spaced review')}"
    return MEMORY.format(
        model=fitted if check.reviews else "FSRS-6's defaults (no fit yet)",
        recall=100 * COVER_RECALL,
        days=check.first_memory_days,
        mode=MODES[check.mode],
    )


def report_text(report: AdminReport, bank_title: str, check: MemoryCheck | None = None) -> str:
    """The message: summary (and the bank's memory check), then the worst questions while they
    fit Telegram's 4096 chars."""
    lines = [
        HEAD.format(bank=esc(bank_title)),
        SUMMARY.format(
            learners=plural(report.learners, "learner"),
            attempts=plural(report.first_attempts, "first attempt"),
            flagged=plural(report.flagged, "question"),
        ),
    ]
    if check is not None:
        lines.append(memory_line(check))
    lines.append("")
    if not report.worst:
        lines.append(NONE_FLAGGED)
    else:
        lines.append(WORST)
        for rank, q in enumerate(report.worst, 1):
            block = question_lines(rank, q)
            if len("\n".join(lines + block)) > BODY_CHARS:
                lines.append(MORE)
                break
            lines += block
    reported = reported_lines(report)
    if len("\n".join(lines + reported)) <= BODY_CHARS:
        lines += reported
    lines += ["", FILE_NOTE]
    return "\n".join(lines)


def report_caption(bank_title: str) -> str:
    """The document's caption (plain words, escaped, within Telegram's 1024 chars)."""
    return esc(clip(CAPTION.format(bank=bank_title), CAPTION_CHARS))


DIGEST_HEAD = "⚑ <b>{count} new</b> since the last digest (one per learner and question):"
DIGEST_MORE = "…and {count} more questions: see /report or <code>quizbot report</code>."
COMMENTS_SHOWN = 3  # the newest, per question: one question cannot fill the message
DIGEST_CHARS = TELEGRAM_MESSAGE_CHARS - 200  # room for the closing line: one message


def digest_text(reports: list[LearnerReport], titles: dict[str, str]) -> str:
    """The admins' daily message: new reports by question, while they fit one message."""
    lines = [DIGEST_HEAD.format(count=plural(len(reports), "question report"))]
    banks = dict.fromkeys(r.bank_id for r in reports)
    questions = [
        (bank, q)
        for bank in banks
        for q in by_question([r for r in reports if r.bank_id == bank], ())
    ]
    for shown, (bank, q) in enumerate(questions):
        block = [
            f"• <code>{esc(q.question_id)}</code> · {esc(titles.get(bank, bank))}"
            f" · {plural(q.learners, 'learner')} · {esc(q.reason_words())}",
            *(f"   “{esc(clip(c, FLAG_CHARS))}”" for c in q.comments[-COMMENTS_SHOWN:]),
        ]
        if len("\n".join(lines + block)) > DIGEST_CHARS:
            lines.append(DIGEST_MORE.format(count=len(questions) - shown))
            break
        lines += block
    return "\n".join(lines)
