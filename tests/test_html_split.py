"""split_html: parts that fit Telegram's limit and each parse on their own."""

from __future__ import annotations

import re

from bot.telegram.views.html_split import split_html, visible_length


def balanced(part: str) -> bool:
    stack: list[str] = []
    for closing, name in re.findall(r"<(/?)([a-z]+)[^>]*>", part):
        if closing:
            if not stack or stack.pop() != name:
                return False
        else:
            stack.append(name)
    return not stack


def test_short_text_is_one_part() -> None:
    assert split_html("<b>hi</b> &amp; bye") == ["<b>hi</b> &amp; bye"]


def test_visible_length_counts_entities_as_one_and_tags_as_none() -> None:
    assert visible_length("<b>a</b>&amp;&lt;") == 3


def test_long_text_splits_at_blank_lines_within_the_limit() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 15 for i in range(40)]
    parts = split_html("\n\n".join(paragraphs), limit=500)
    assert len(parts) > 1
    assert all(visible_length(p) <= 500 for p in parts)
    assert all(p.startswith("Paragraph") for p in parts)  # cut on a paragraph boundary


def test_a_tag_open_at_a_cut_is_closed_and_reopened() -> None:
    text = "<b>" + "bold words " * 100 + "</b> tail"
    parts = split_html(text, limit=300)
    assert len(parts) > 1
    assert all(balanced(p) for p in parts)
    assert parts[1].startswith("<b>")


def test_entities_are_never_cut() -> None:
    parts = split_html("&amp;" * 1000, limit=100)
    assert all(re.fullmatch(r"(&amp;)+", p) for p in parts)
    assert sum(visible_length(p) for p in parts) == 1000


def test_text_without_spaces_is_cut_hard() -> None:
    parts = split_html("x" * 250, limit=100)
    assert all(visible_length(p) <= 100 for p in parts)
    assert "".join(parts) == "x" * 250
