"""`quizbot validate` and `quizbot schema` through `bot.cli.main`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.bank import schema
from bot.cli import main
from tests.test_bank_loader import make_bank, question


def test_validate_prints_a_summary_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two stems that differ: the same stem twice is a near-duplicate-stem warning.
    other = question("q-b", topic="evaluation").replace("Which option is right?", "Which fits?")
    make_bank(tmp_path, {"a.yaml": question("q-a"), "b.yaml": other})
    assert main(["validate", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "demo: Demo bank (DEMO-1), 2 questions" in out
    rows = [line.split() for line in out.splitlines()]
    assert ["topic", "questions", "actual", "target"] in rows
    assert ["fine-tuning", "1", "50.0%", "60.0%"] in rows
    assert ["evaluation", "1", "50.0%", "40.0%"] in rows
    assert "difficulty: easy 0 (0%), medium 2 (100%), hard 0 (0%)" in out
    assert "kind: single 2 (100%), multiple 0 (0%)" in out


def test_validate_prints_every_problem_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = make_bank(
        tmp_path,
        {
            "a.yaml": question("q-a"),
            "b.yaml": question("q-a"),
            "c.yaml": question("q-c", topic="nope"),
            "d.yaml": "id: [\n",
        },
    )
    assert main(["validate", str(bank)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[:2] == [
        f"{bank / 'b.yaml'}:2: q-a: id: duplicate id: also used by {bank / 'a.yaml'}",
        f"{bank / 'c.yaml'}:3: q-c: topic: topic 'nope' is not declared in bank.yaml "
        "(declared: fine-tuning, evaluation)",
    ]
    # The wording of a syntax error is libyaml's own.
    assert lines[2].startswith(f"{bank / 'd.yaml'}:2: -: -: YAML syntax: ")
    assert lines[-1] == "3 problems found"


def test_validate_defaults_to_questions_in_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_bank(tmp_path / "questions", {"a.yaml": question("q-a")})
    monkeypatch.chdir(tmp_path)
    assert main(["validate"]) == 0
    assert "demo: Demo bank" in capsys.readouterr().out


def test_validate_checks_the_banks_the_bot_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """QUIZBOT_QUESTIONS, as the bot reads it: the check before a /reload is of those files,
    not of a questions/ folder that happens to be where the command runs."""
    make_bank(tmp_path / "questions", {"a.yaml": question("q-a")})
    broken = make_bank(tmp_path / "live", {"b.yaml": question("q-b").replace("topic:", "topik:")})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUIZBOT_QUESTIONS", f"{broken}, {tmp_path / 'questions'}")
    assert main(["validate"]) == 1
    assert str(broken / "b.yaml") in capsys.readouterr().err
    monkeypatch.setenv("QUIZBOT_TIMEZONE", "Mars/Olympus")
    assert main(["validate"]) == 2
    assert "QUIZBOT_TIMEZONE" in capsys.readouterr().err


def test_validate_falls_back_to_the_bundled_bank(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["validate"]) == 0
    assert "questions" in capsys.readouterr().out


def test_committed_schema_files_are_up_to_date() -> None:
    assert schema.stale_schemas() == [], "run `quizbot schema` and commit the result"
    assert main(["schema", "--check"]) == 0


def test_schema_writes_both_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--out", str(tmp_path)]) == 0
    question_schema = json.loads((tmp_path / "question.schema.json").read_text())
    bank_schema = json.loads((tmp_path / "bank.schema.json").read_text())
    assert question_schema["additionalProperties"] is False
    assert {"id", "topic", "stem", "options", "explanation"} <= set(question_schema["required"])
    assert "topics" in bank_schema["properties"]
    assert main(["schema", "--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "bank.schema.json").write_text("{}")
    assert main(["schema", "--out", str(tmp_path), "--check"]) == 1
    assert "bank.schema.json: out of date" in capsys.readouterr().err


def test_schema_print(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--print", "question"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "quizbot question"


def test_bundled_files_point_at_the_schemas() -> None:
    root = Path(__file__).resolve().parent.parent / "questions"
    for path in root.glob("*/*.yaml"):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        name = "bank" if path.name == "bank.yaml" else "question"
        assert first == f"# yaml-language-server: $schema=../../bot/bank/{name}.schema.json", path
