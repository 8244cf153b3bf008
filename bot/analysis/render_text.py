"""The report as a plain-text table for a terminal, worst-flagged questions first."""

from __future__ import annotations

from bot.analysis.model import ItemReport, QuestionStats, Status
from bot.plural import plural


def fmt(value: float | None, digits: int = 2) -> str:
    """A figure, or a dash when it cannot be computed."""
    return "—" if value is None else f"{value:.{digits}f}"


def seconds(ms: float | None) -> str:
    """Milliseconds as seconds with one decimal."""
    return "—" if ms is None else f"{ms / 1000:.1f}s"


def summary_lines(report: ItemReport) -> list[str]:
    """The report's header: what was counted and how far to trust it."""
    analysed = sum(1 for q in report.questions if q.status is not Status.TOO_FEW)
    lines = [
        f"Item analysis of {report.bank_title} ({report.bank_id})",
        f"{plural(report.learners, 'learner')}, {plural(report.first_attempts, 'first attempt')}; "
        f"{analysed} of {len(report.questions)} questions with at least "
        f"{plural(report.min_n, 'first attempt')}; {len(report.flagged)} flagged.",
        "Only each learner's first attempt at a question counts: later attempts are learning, "
        "not measurement.",
    ]
    if report.unknown_questions:
        lines.append(
            f"{plural(report.unknown_questions, 'first attempt')} at questions no longer in the "
            "bank are left out."
        )
    return lines


def flag_words(q: QuestionStats) -> str:
    """The kinds of a question's flags, comma-separated."""
    return ", ".join(dict.fromkeys(f.kind.value for f in q.flags)) or "ok"


def reported_lines(report: ItemReport) -> list[str]:
    """Learners' reports per question, those marked for review first."""
    if not report.reported:
        return []
    lines = ["", "Learners' reports (one per learner and question):"]
    for q in report.reported:
        mark = f"  REVIEW: {q.review}" if q.review else ""
        lines.append(
            f"  {q.question_id}: {plural(q.learners, 'learner')}, {q.reason_words()}{mark}"
        )
        lines += [f"    “{c}”" for c in q.comments]
    return lines


def render_text(report: ItemReport) -> str:
    """Summary, question table (worst first), flag details, topics and misconceptions."""
    lines = [*summary_lines(report), ""]
    width = max((len(q.question_id) for q in report.questions), default=2)
    head = f"{'question':<{width}}  {'n':>5}  {'p':>5}  {'r':>5}  {'D':>5}  {'time':>6}  "
    lines += [head + f"{'status':<11}  flags", "-" * (len(head) + 30)]
    for q in report.questions:
        lines.append(
            f"{q.question_id:<{width}}  {q.n:>5}  {fmt(q.p):>5}  {fmt(q.r):>5}  {fmt(q.d):>5}  "
            f"{seconds(q.mean_time_ms):>6}  {q.status.value:<11}  {flag_words(q)}"
        )
    if report.flagged:
        lines += ["", "Flags (worst first):"]
        for q in report.flagged:
            lines.append(f"  {q.question_id} [{q.topic}] n={q.n} ({q.status.value})")
            lines += [f"    - {f.kind.value}: {f.message}" for f in q.flags]
            lines.append(
                "    options: "
                + "  ".join(
                    f"{o.letter}{'*' if o.correct else ''} {o.share:.0%}"
                    + (
                        f" (U {o.upper_share:.0%} / L {o.lower_share or 0:.0%})"
                        if o.upper_share is not None
                        else ""
                    )
                    for o in q.options
                )
            )
    lines += reported_lines(report)
    lines += [
        "",
        "Topics:",
        f"  {'topic':<24} {'questions':>9} {'analysed':>8} "
        f"{'mean p':>6} {'mean r':>6} {'flagged':>7}",
    ]
    for t in report.topics:
        lines.append(
            f"  {t.topic:<24} {t.questions:>9} {t.analysed:>8} {fmt(t.mean_p):>6} "
            f"{fmt(t.mean_r):>6} {t.flagged:>7}"
        )
    if report.misconceptions:
        lines += ["", "Misconceptions (picked / exposed; upper vs lower group):"]
        for m in report.misconceptions:
            lines.append(
                f"  {m.id}: {m.picked}/{m.exposed} ({fmt(m.share)}), "
                f"upper {fmt(m.upper_share)}, lower {fmt(m.lower_share)}"
            )
    return "\n".join(lines) + "\n"
