"""Whatever a file holds, the Moodle XML, GIFT and Aiken readers return questions or problems
(never an exception), and every problem says where it is."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.bank.importers.aiken import read_aiken
from bot.bank.importers.common import validate
from bot.bank.importers.gift import read_gift
from bot.bank.importers.mcq import Defaults, Filled, draft_of
from bot.bank.importers.moodle_xml import read_moodle
from tests import exchange_files as fx

# Pieces of each format's syntax, so the text often comes close to a real file.
GIFT_BITS = [
    "::",
    "{",
    "}",
    "=",
    "~",
    "#",
    "####",
    "%50%",
    "\\",
    "\n",
    "\n\n",
    "// [id:x]",
    "$CATEGORY: a",
    " text ",
    "->",
]
AIKEN_BITS = ["A. ", "B) ", "ANSWER: ", "A", "C", "\n", "\n\n", "stem?", " option "]
XML_BITS = [
    "<quiz>",
    "</quiz>",
    '<question type="multichoice">',
    "</question>",
    '<answer fraction="50">',
    "</answer>",
    "<text>",
    "</text>",
    "&amp;",
    "<single>false</single>",
    "x",
]


def mixed(bits: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.one_of(st.sampled_from(bits), st.text(max_size=5)), max_size=40).map(
        "".join
    )


def check(reader: object, text: str, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"f{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        result = reader(path)  # type: ignore[operator]
    reads, issues = result[0], result[1]
    for issue in issues:
        assert issue.file == path and issue.message
    for read in reads:
        validate(draft_of(read, Defaults("t", fill_missing="x"), Filled()))


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(mixed(GIFT_BITS), st.sampled_from([fx.GIFT[:n] for n in range(0, len(fx.GIFT), 7)]))
)
def test_gift_reader_never_raises(text: str) -> None:
    check(read_gift, text, ".gift")


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        mixed(AIKEN_BITS), st.sampled_from([fx.AIKEN[:n] for n in range(0, len(fx.AIKEN), 5)])
    )
)
def test_aiken_reader_never_raises(text: str) -> None:
    check(read_aiken, text, ".txt")


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        mixed(XML_BITS), st.sampled_from([fx.MOODLE[:n] for n in range(0, len(fx.MOODLE), 9)])
    )
)
def test_moodle_reader_never_raises(text: str) -> None:
    check(read_moodle, text, ".xml")
