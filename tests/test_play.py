"""`quizbot play`: the terminal loop records answers in the same database as the bot."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

from bot.commands.play import play
from bot.practice.catalog import Catalog
from tests import sample_bank


async def test_terminal_loop_grades_and_explains(tmp_path: Path) -> None:
    q = sample_bank.question("only", correct=(2,))
    catalog = Catalog({"demo": sample_bank.bank([q, sample_bank.question("two", correct=(0,))])})
    out = io.StringIO()
    # "z" is not an option: asked again; then a wrong answer, then the right one
    stdin = io.StringIO("z\nA\nA\n")
    code = await play(catalog, tmp_path / "t.sqlite3", None, None, 2, stdin, out)
    assert code == 0
    text = out.getvalue()
    assert "Type one letter from A to D" in text
    assert "Rationale A of" in text
    assert text.count("Explanation:") == 2
    with sqlite3.connect(tmp_path / "t.sqlite3") as conn:
        rows = conn.execute("SELECT question_id, chosen FROM answers ORDER BY id").fetchall()
    assert [r[1] for r in rows] == ["0", "0"]
    assert "Answered 2" in text


async def test_unknown_topic_is_refused(tmp_path: Path) -> None:
    catalog = Catalog({"demo": sample_bank.bank()})
    code = await play(
        catalog, tmp_path / "t.sqlite3", None, "nope", 1, io.StringIO(), io.StringIO()
    )
    assert code == 2
