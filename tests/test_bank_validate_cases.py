"""`quizbot validate` on the files real authors write: every mistake is a file:line problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.bank.loader import load_banks
from bot.cli import main
from tests.test_bank_loader import make_bank, question


@pytest.mark.parametrize(
    ("date", "reason"),
    [("2026-02-30", "day is out of range for month"), ("2026-13-01", "month must be in 1..12")],
)
def test_impossible_date_is_a_problem_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], date: str, reason: str
) -> None:
    bank = make_bank(tmp_path, {"a.yaml": question("q-a", extra=f"reviewed: {date}\n")})
    assert main(["validate", str(bank)]) == 1
    err = capsys.readouterr().err
    assert f"{bank / 'a.yaml'}:12: -: -: '{date}' is not a valid date or number ({reason})" in err


def test_impossible_date_in_a_file_the_fast_path_hands_to_the_full_loader(
    tmp_path: Path,
) -> None:
    # An anchor sends the file through the full loader; it must report the same way.
    text = question("q-a", extra="tags: &t [x]\nreviewed: 2026-02-30\n")
    result = load_banks([make_bank(tmp_path, {"a.yaml": text})])
    assert [(p.line, p.message.split(" (")[0]) for p in result.problems] == [
        (13, "'2026-02-30' is not a valid date or number")
    ]
