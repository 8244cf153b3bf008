"""`quizbot play`: the terminal loop records answers in the same database as the bot."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.cli import main
from bot.commands.play import play
from bot.practice.catalog import Catalog
from tests import factories, sample_bank
from tests.backend import database, database_env


async def test_terminal_loop_grades_and_explains(tmp_path: Path) -> None:
    q = sample_bank.question("only", correct=(2,))
    catalog = Catalog({"demo": sample_bank.bank([q, sample_bank.question("two", correct=(0,))])})
    out = io.StringIO()
    # "z" is not an option: asked again; then a wrong answer, then the right one
    stdin = io.StringIO("z\nA\nA\n")
    code = await play(catalog, database(tmp_path / "t.sqlite3"), None, None, 2, stdin, out)
    assert code == 0
    text = out.getvalue()
    assert "Type one letter from A to D" in text
    assert "Rationale A of" in text
    assert text.count("Explanation:") == 2
    rows = factories.rows(
        tmp_path / "t.sqlite3", "SELECT question_id, chosen FROM answers ORDER BY id"
    )
    assert [r[1] for r in rows] == ["0", "0"]
    assert "Answered 2" in text


async def test_unknown_topic_is_refused(tmp_path: Path) -> None:
    catalog = Catalog({"demo": sample_bank.bank()})
    code = await play(
        catalog, database(tmp_path / "t.sqlite3"), None, "nope", 1, io.StringIO(), io.StringIO()
    )
    assert code == 2


async def test_select_two_refuses_a_wrong_count_and_quit_shows_the_session(
    tmp_path: Path,
) -> None:
    q = sample_bank.question("pair", correct=(0, 2))
    catalog = Catalog({"demo": sample_bank.bank([q])})
    out = io.StringIO()
    code = await play(
        catalog, database(tmp_path / "t.sqlite3"), None, None, 0, io.StringIO("A\nAC\nq\n"), out
    )
    assert code == 0
    text = out.getvalue()
    assert "Type 2 letters from A to D" in text
    assert text.count("Correct!") == 1
    assert "This session: 1/1 correct (100%)." in text
    assert "  Alpha: 1/1 (100%)" in text


def test_play_arguments_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_DB", database_env(tmp_path / "q.sqlite3"))
    with pytest.raises(SystemExit) as exited:
        main(["play", "-n", "-1"])
    assert exited.value.code == 2
    assert "'-1' is not a count of questions" in capsys.readouterr().err
    assert main(["play", "--bank", "nope"]) == 2
    assert "quizbot: no bank 'nope'; banks: genai-llm" in capsys.readouterr().err
    assert main(["play", "--db", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_the_terminal_keeps_the_authors_line_breaks() -> None:
    """A table's rows and an explanation's paragraphs stay apart, as Telegram shows them;
    each line is still filled to the width under its label."""
    from bot.commands.terminal import WIDTH, wrap

    assert (
        wrap("Which is x²?\na | b\nc | d", "Q: ", "   ") == "Q: Which is x²?\n   a | b\n   c | d"
    )
    assert wrap("First.\n\n\nSecond  one.", "Why: ", "  ") == "Why: First.\n\n  Second one."
    long = wrap("word " * 40 + "\nnext", "Q: ", "   ").split("\n")
    assert len(long) == 4 and all(len(line) <= WIDTH for line in long) and long[-1] == "   next"
