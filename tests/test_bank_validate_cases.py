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


def problems_of(tmp_path: Path, files: dict[str, str]) -> list[str]:
    result = load_banks([make_bank(tmp_path, files)])
    return [f"{p.file.name}:{p.line}: {p.field}: {p.message}" for p in result.problems]


def test_yes_no_on_as_option_text_says_quote_it(tmp_path: Path) -> None:
    text = question("q-a").replace("text: Right", "text: Yes").replace("text: Wrong", "text: on")
    found = problems_of(tmp_path, {"a.yaml": text})
    assert len(found) == 2
    assert found[0].startswith("a.yaml:7: options.0.text: Input should be a valid string")
    assert all('quote it, e.g. text: "Yes"' in line for line in found)


def test_duplicate_key_is_an_error(tmp_path: Path) -> None:
    text = question("q-a", extra="stem: A second stem\n")
    assert problems_of(tmp_path, {"a.yaml": text}) == [
        "a.yaml:12: None: duplicate key 'stem' in the same mapping"
    ]


def test_correct_must_be_a_real_boolean(tmp_path: Path) -> None:
    text = question("q-a").replace("correct: true", 'correct: "yes"')
    assert problems_of(tmp_path, {"a.yaml": text})[0] == (
        "a.yaml:8: options.0.correct: Input should be a valid boolean"
    )


def test_upper_case_suffixes_are_loaded(tmp_path: Path) -> None:
    result = load_banks(
        [make_bank(tmp_path, {"a.YAML": question("q-a"), "b.Yml": question("q-b")})]
    )
    assert sorted(result.banks["demo"].questions) == ["q-a", "q-b"]


def test_non_utf8_file_names_the_byte_and_line(tmp_path: Path) -> None:
    bank = make_bank(tmp_path, {})
    (bank / "a.yaml").write_bytes(question("q-a").replace("Because", "Caf\xe9").encode("latin-1"))
    (line,) = [f"{p.file.name}:{p.line}: {p.message}" for p in load_banks([bank]).problems]
    assert line == (
        "a.yaml:5: not UTF-8: byte 0xe9 at offset 94 (line 5, column 17); save the file as UTF-8"
    )


def test_unterminated_quote_is_reported_where_it_starts(tmp_path: Path) -> None:
    text = question("q-a").replace("stem: Which option is right?", 'stem: "Which option')
    assert problems_of(tmp_path, {"a.yaml": text}) == [
        "a.yaml:4: None: YAML syntax: the quoted text that starts on this line is never closed"
    ]


def test_validate_a_single_file_against_its_bank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = make_bank(tmp_path, {"a.yaml": question("q-a"), "b.yaml": question("q-b")})
    assert main(["validate", str(bank / "a.yaml")]) == 0
    assert capsys.readouterr().out == f"{bank / 'a.yaml'}: valid in bank demo\n"
    (bank / "b.yaml").write_text(question("q-b", topic="nope"))
    assert main(["validate", str(bank / "a.yaml")]) == 0
    assert main(["validate", str(bank / "b.yaml")]) == 1
    assert "topic 'nope' is not declared" in capsys.readouterr().err


def test_same_bank_through_two_paths_is_not_its_own_duplicate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = make_bank(tmp_path, {"a.yaml": question("q-a")})
    assert main(["validate", str(tmp_path), str(bank)]) == 0
    out = capsys.readouterr().out
    assert out.count("demo: Demo bank (DEMO-1), 1 question\n") == 1


def test_bank_without_questions_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = make_bank(tmp_path, {})
    assert main(["validate", str(bank)]) == 1
    err = capsys.readouterr().err
    assert f"{bank / 'bank.yaml'}:-: -: -: the bank has no question files" in err


def test_out_that_is_a_file_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "taken.txt"
    existing.write_text("mine\n")
    assert main(["schema", "--out", str(existing)]) == 2
    assert capsys.readouterr().err == f"quizbot: --out {existing} is a file; give a folder\n"
    (tmp_path / "q.csv").write_text("topic,stem\n", encoding="utf-8")
    args = ["import", "csv", str(tmp_path / "q.csv"), "--bank", "b", "--out", str(existing)]
    assert main(args) == 2
    assert capsys.readouterr().err == f"quizbot: --out {existing} is a file; give a bank folder\n"
    assert existing.read_text() == "mine\n"


def test_negative_heartbeat_age_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["health", "--max-heartbeat-age", "-5"])
    assert exited.value.code == 2
    assert "'-5' is not a number of seconds above 0" in capsys.readouterr().err
