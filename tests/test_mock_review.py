"""A mock question answered and flagged shows both marks; the terminal review reads like a
practice verdict (stem, letters as shown in order, rationales), not question ids."""

from __future__ import annotations

import io
import re
from pathlib import Path

from bot.commands.play_mock import play_mock
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from tests import mock_bank
from tests.backend import database
from tests.botharness import running_bot
from tests.test_mock_chat import button, buttons, command, exam_message, tap, wrong_letter


async def test_answered_and_flagged_shows_both_in_the_grid(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await command(h, "/mock")
        screen = exam_message(h)
        screen = await tap(h, screen, button(screen, wrong_letter(h, 0)))
        screen = await tap(h, screen, button(screen, "🚩 Flag"))
        grid = [t for t, _ in buttons(screen) if re.fullmatch(r"·?\d+\D*·?", t)]
        assert grid[:2] == ["·1✓🚩·", "2"]


async def test_terminal_review_shows_stems_sorted_letters_and_rationales(tmp_path: Path) -> None:
    pairs = [mock_bank.q(f"{t}{i:02d}", t, correct=(0, 2)) for t in "abc" for i in range(10)]
    catalog = Catalog({"mockbank": mock_bank.bank(pairs, {"a": 50, "b": 30, "c": 20})})
    # "CB" on every question: each is a "select two" with a shuffled key, so some are wrong.
    stdin = io.StringIO("CB\nn\n" * 10 + "finish\ny\n")
    out = io.StringIO()
    assert (
        await play_mock(catalog, database(tmp_path / "t.db"), None, False, stdin, out, FakeClock())
        == 0
    )
    review = out.getvalue().split("Mock exam: ", 1)[1]
    heads = re.findall(r"^Q\d+ · yours ([A-D, ]+), correct ([A-D, ]+)$", review, re.M)
    assert heads, review
    for mine, key in heads:
        assert mine == "B, C" and key == ", ".join(sorted(key.split(", ")))
    assert review.count("Stem of ") == len(heads)
    assert review.count("Your answer B: Rationale ") == len(heads)
    assert "Correct answer " in review and "Explanation: Explanation of " in review
