"""Write a bank as Moodle XML: one category per topic, one multichoice question each.

Read back by `quizbot import moodle` to the same ids, topics, kinds, shuffle flags, stems,
options, rationales (per-answer feedback), explanations (general feedback) and tags.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from bot.bank.importers.html_text import to_html
from bot.bank.models import Bank, Kind, Question

# Characters XML 1.0 cannot hold at all, not even as a character reference.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def escape(text: str) -> str:
    """Text as XML character data (xml.sax.saxutils would bring in urllib with it)."""
    return html.escape(text, quote=False)


def _fraction(share: float) -> str:
    return f"{share:.5f}".rstrip("0").rstrip(".")


def _html(tag: str, text: str, indent: str) -> str:
    return f'{indent}<{tag} format="html"><text>{escape(to_html(text))}</text></{tag}>'


def _category(path: str, topic_id: str) -> list[str]:
    return [
        '  <question type="category">',
        f"    <category><text>{escape(path)}</text></category>",
        f"    <idnumber>{escape(topic_id)}</idnumber>",
        "  </question>",
    ]


def _question(q: Question) -> list[str]:
    n_right = len(q.correct_indices)
    n_wrong = len(q.options) - n_right
    lines = [
        '  <question type="multichoice">',
        f"    <name><text>{escape(q.id)}</text></name>",
        _html("questiontext", q.stem, "    "),
        _html("generalfeedback", q.explanation, "    "),
        f"    <idnumber>{escape(q.id)}</idnumber>",
        f"    <single>{'true' if q.kind is Kind.SINGLE else 'false'}</single>",
        f"    <shuffleanswers>{1 if q.shuffle else 0}</shuffleanswers>",
        "    <answernumbering>ABCD</answernumbering>",
    ]
    for option in q.options:
        if q.kind is Kind.SINGLE:
            fraction = "100" if option.correct else "0"
        else:
            # Moodle sums the fractions of the ticked options: all the right ones make 100,
            # all the wrong ones take it back.
            fraction = _fraction(100 / n_right if option.correct else -100 / n_wrong)
        lines += [
            f'    <answer fraction="{fraction}" format="html">',
            f"      <text>{escape(to_html(option.text))}</text>",
            _html("feedback", option.rationale, "      "),
            "    </answer>",
        ]
    if q.tags:
        lines.append("    <tags>")
        lines += [f"      <tag><text>{escape(tag)}</text></tag>" for tag in q.tags]
        lines.append("    </tags>")
    lines.append("  </question>")
    return lines


def category_path(name: str) -> str:
    """Moodle's path of a top category named `name` ("/" in a name is written "//")."""
    return "$course$/top/" + name.replace("/", "//")


def to_moodle(bank: Bank, questions: Iterable[Question] | None = None) -> str:
    """The bank's questions, topic by topic, as a Moodle XML document."""
    chosen = list(bank.questions.values() if questions is None else questions)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>"]
    for topic in bank.meta.topics:
        mine = [q for q in chosen if q.topic == topic.id]
        if not mine:
            continue
        lines += _category(category_path(topic.name), topic.id)
        for q in mine:
            lines += _question(q)
    lines.append("</quiz>")
    text = "\n".join(lines) + "\n"
    bad = _NOT_XML.search(text)
    if bad:
        raise ValueError(f"U+{ord(bad.group()):04X} cannot be written in XML")
    return text
