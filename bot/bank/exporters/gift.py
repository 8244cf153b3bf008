"""Write a bank as GIFT: a `$CATEGORY:` per topic, then its questions as multiple choice.

Read back by `quizbot import gift` to the same ids, topics, kinds, stems, options, rationales
(`#` feedback), explanations (`####`) and tags. GIFT cannot say that options keep their order:
`shuffle: false` is not kept.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.bank.exporters.moodle import category_path
from bot.bank.importers.gift import FORMAT_PREFIX, escape
from bot.bank.models import Bank, Kind, Question


def _text(text: str) -> str:
    # A text that starts like a format prefix ("[html]...") gets one, so it is read as typed.
    return ("[plain]" if FORMAT_PREFIX.match(text) else "") + escape(text)


def _weight(share: float) -> str:
    return f"{share:.5f}".rstrip("0").rstrip(".")


def _question(q: Question) -> list[str]:
    marks = " ".join([f"[id:{q.id}]", *(f"[tag:{tag}]" for tag in q.tags)])
    lines = [f"// {marks}", f"::{escape(q.id)}::{_text(q.stem)} {{"]
    n_right = len(q.correct_indices)
    n_wrong = len(q.options) - n_right
    for option in q.options:
        if q.kind is Kind.SINGLE:
            mark = "=" if option.correct else "~"
            if option.text.lstrip().startswith("%"):
                # A text that starts with "%" would be read as a weight: give the weight.
                mark += "%100%" if option.correct else "%0%"
        else:
            share = 100 / n_right if option.correct else -100 / n_wrong
            mark = f"~%{_weight(share)}%"
        lines.append(f"\t{mark}{_text(option.text)} #{_text(option.rationale)}")
    lines += [f"\t####{_text(q.explanation)}", "}"]
    return lines


def to_gift(bank: Bank, questions: Iterable[Question] | None = None) -> str:
    """The bank's questions, topic by topic, as GIFT text."""
    chosen = list(bank.questions.values() if questions is None else questions)
    blocks: list[list[str]] = []
    for topic in bank.meta.topics:
        mine = [q for q in chosen if q.topic == topic.id]
        if mine:
            blocks.append([f"// [topic:{topic.id}]", f"$CATEGORY: {category_path(topic.name)}"])
            blocks += [_question(q) for q in mine]
    return "\n\n".join("\n".join(block) for block in blocks) + "\n"
