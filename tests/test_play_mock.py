"""`quizbot play --mock` and `quizbot stats`: the terminal on the same engine and database."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from bot.cli import main
from bot.commands.play_mock import play_mock
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from tests import factories, mock_bank
from tests.backend import database, database_env


async def test_mock_in_the_terminal_moves_flags_and_scores(tmp_path: Path) -> None:
    # Single-answer questions only: the draw is random, and a lone letter on a "select two"
    # question drawn first would leave it unanswered.
    single = [mock_bank.q(f"{t}{i:02d}", t) for t in "abc" for i in range(10)]
    catalog = Catalog({"mockbank": mock_bank.bank(single, {"a": 50, "b": 30, "c": 20})})
    db = tmp_path / "t.sqlite3"
    # answer, next, flag, jump to 3, a wrong count, finish (asks), no, finish, yes
    stdin = io.StringIO("A\nn\nf\ng 3\nABCD\nB\nfinish\nn\nfinish\ny\n")
    out = io.StringIO()
    # A clock that stands still: on a loaded machine the wall clock can tick a minute away.
    assert await play_mock(catalog, database(db), None, False, stdin, out, clock=FakeClock()) == 0
    text = out.getvalue()
    assert "[Question 1/10 · 20 min left · answered 0/10]" in text
    assert "[Question 2/10 · 20 min left · answered 1/10 🚩]" in text
    assert "[Question 3/10" in text and "? letters to answer" in text
    assert "Unanswered: 2, 4, 5, 6, 7, 8, 9, 10. Flagged: 2." in text
    assert "Mock exam: " in text and "(pass mark 70%)" in text
    assert factories.rows(db, "SELECT status FROM mock_exams") == [("finished",)]
    assert factories.one(db, "SELECT COUNT(*) FROM answers") == (2,)


async def test_leaving_keeps_the_exam_and_play_mock_resumes_it(tmp_path: Path) -> None:
    catalog = Catalog({"mockbank": mock_bank.three_topics()})
    db = tmp_path / "t.sqlite3"
    out = io.StringIO()
    assert await play_mock(catalog, database(db), None, True, io.StringIO("n\nq\n"), out) == 0
    assert "keeps running" in out.getvalue()
    out = io.StringIO()
    assert await play_mock(catalog, database(db), None, False, io.StringIO("stop\n"), out) == 0
    assert "[Question 2/3" in out.getvalue() and "abandoned" in out.getvalue()


@pytest.mark.sqlite_only("a SQLite file that does not exist yet")
def test_stats_command_without_a_database_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_DB", str(tmp_path / "s.sqlite3"))
    monkeypatch.chdir(tmp_path)
    assert main(["stats", "--user", "0"]) == 2
    assert "no database" in capsys.readouterr().err


def test_stats_command_prints_numbers_and_writes_the_chart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.sqlite3"
    monkeypatch.setenv("QUIZBOT_DB", database_env(db))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", "--mock", "--short"]) == 0  # starts an exam, then leaves it running
    png = tmp_path / "c.png"
    assert main(["stats", "--user", "0", "--png", str(png)]) == 0
    text = capsys.readouterr().out
    assert "Not enough evidence: 0 answers (40 more needed)" in text
    assert "Mock 1 · " in text and "running" in text
    with Image.open(png) as image:
        assert image.size[0] == 1000
    factories.execute(
        db,
        "INSERT INTO exam_dates (user_id, bank_id, exam_date, set_at)"
        " SELECT 0, bank_id, '2099-01-01', 0 FROM mock_exams",
    )
    assert main(["stats", "--user", "0"]) == 0
    assert "Exam date 2099-01-01 (in " in capsys.readouterr().out
    # A learner of a bank this run did not load: not a report on another bank read as theirs.
    factories.execute(
        db, "INSERT INTO users (id, bank_id, created_at, seen_at) VALUES (5, 'gone-bank', 0, 0)"
    )
    assert main(["stats", "--user", "5"]) == 2
    assert "user 5 practises bank 'gone-bank', which is not loaded" in capsys.readouterr().err
    # A mistyped id: the report says there is nothing behind it.
    assert main(["stats", "--user", "999"]) == 0
    assert "No answers and no mock exams recorded" in capsys.readouterr().out
