"""A plain-text summary of a bank: questions per topic against the blueprint, difficulty, kinds."""

from __future__ import annotations

from collections import Counter

from bot.bank.models import Bank, Difficulty, Kind
from bot.plural import plural


def _percent(part: int, whole: int) -> float:
    return 100 * part / whole if whole else 0.0


def summarize(bank: Bank) -> str:
    """Several lines describing the bank, with an aligned per-topic table."""
    meta = bank.meta
    total = len(bank.questions)
    per_topic = Counter(q.topic for q in bank.questions.values())
    rows = [("topic", "questions", "actual", "target")]
    for topic in meta.topics:
        count = per_topic.get(topic.id, 0)
        rows.append(
            (topic.id, str(count), f"{_percent(count, total):.1f}%", f"{topic.weight:.1f}%")
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    table = [
        "  "
        + "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]
    difficulty = Counter(q.difficulty.value for q in bank.questions.values())
    kinds = Counter(q.kind.value for q in bank.questions.values())
    tags = Counter(
        o.misconception for q in bank.questions.values() for o in q.options if o.misconception
    )
    misconceptions = [
        f"    {m.id}: {m.name} ({plural(tags[m.id], 'option')})" for m in meta.misconceptions
    ]
    return "\n".join(
        [
            f"{meta.id}: {meta.title} ({meta.exam_code}), {plural(total, 'question')}",
            *table,
            "  difficulty: " + _mix(difficulty, [d.value for d in Difficulty], total),
            "  kind: " + _mix(kinds, [k.value for k in Kind], total),
            *(["  misconceptions:", *misconceptions] if misconceptions else []),
        ]
    )


def _mix(counts: Counter[str], order: list[str], total: int) -> str:
    return ", ".join(f"{v} {counts[v]} ({_percent(counts[v], total):.0f}%)" for v in order)
