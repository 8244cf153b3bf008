"""Misconceptions in the bank layer: declared in bank.yaml, tagged on wrong options, imported."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.bank.lint import lint_bank
from bot.bank.loader import load_bank, load_banks
from bot.cli import main
from tests.test_bank_loader import BANK_YAML, make_bank, question

WITH_MISCONCEPTIONS = BANK_YAML + (
    "misconceptions:\n"
    "  - {id: rank-is-lr, name: Rank is a learning rate, description: It is not.}\n"
    "  - {id: unused-one, name: Never tagged, description: Declared only.}\n"
)


def tagged(qid: str, option: int, misconception: str) -> str:
    rationale = "It is right." if option == 0 else "It is wrong."
    return question(qid).replace(
        f"rationale: {rationale}\n",
        f"rationale: {rationale}\n    misconception: {misconception}\n",
        1,
    )


def problems(tmp_path: Path, text: str) -> list[str]:
    bank = make_bank(tmp_path, {"a.yaml": text}, WITH_MISCONCEPTIONS)
    return [f"{p.file.name}:{p.line}: {p.field}: {p.message}" for p in load_banks([bank]).problems]


def test_misconception_on_a_correct_option_is_an_error(tmp_path: Path) -> None:
    assert problems(tmp_path, tagged("q", 0, "rank-is-lr")) == [
        "a.yaml:10: options.0.misconception: a correct option cannot carry a misconception"
    ]


def test_undeclared_misconception_is_an_error_with_its_line(tmp_path: Path) -> None:
    assert problems(tmp_path, tagged("q", 1, "no-such-idea")) == [
        "a.yaml:12: options.1.misconception: misconception 'no-such-idea' is not declared in "
        "bank.yaml"
    ]


def test_pinned_option_must_be_last(tmp_path: Path) -> None:
    text = question("q").replace("correct: true\n", "correct: true\n    pin: true\n")
    assert problems(tmp_path, text) == [
        "a.yaml:9: options.0.pin: a pinned option must be the last one"
    ]
    last = question("q").replace("It is wrong.\n", "It is wrong.\n    pin: true\n")
    assert problems(tmp_path / "b", last) == []


def test_declared_but_unused_misconception_is_a_warning_on_its_bank_yaml_line(
    tmp_path: Path,
) -> None:
    bank = make_bank(tmp_path, {"a.yaml": tagged("q", 1, "rank-is-lr")}, WITH_MISCONCEPTIONS)
    result = load_banks([bank])
    warnings = lint_bank(result.banks["demo"], bank, result.files["demo"])
    unused = [w for w in warnings if "[unused-misconception]" in w.message]
    assert [(w.file.name, w.line, w.field) for w in unused] == [
        ("bank.yaml", 11, "misconceptions.1")
    ]
    assert "'unused-one' is declared but tags no option" in unused[0].message


def test_validate_summary_lists_misconceptions_with_tag_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {"a.yaml": tagged("q-a", 1, "rank-is-lr"), "b.yaml": tagged("q-b", 1, "rank-is-lr")}
    bank = make_bank(tmp_path, files, WITH_MISCONCEPTIONS)
    assert main(["validate", str(bank)]) == 0
    out = capsys.readouterr().out
    assert "  misconceptions:\n" in out
    assert "    rank-is-lr: Rank is a learning rate (2 options)\n" in out
    assert "    unused-one: Never tagged (0 options)" in out


def test_csv_misconception_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = make_bank(tmp_path, {"seed.yaml": question("seed")}, WITH_MISCONCEPTIONS)
    header = (
        "topic,stem,option_1,rationale_1,option_2,rationale_2,misconception_2,correct,explanation"
    )
    rows = [
        "fine-tuning,What does rank set?,Capacity,Right.,Step size,Wrong.,rank-is-lr,A,Because.",
        "fine-tuning,Bad tag?,Capacity,Right.,Step size,Wrong.,not-declared,A,Because.",
    ]
    (tmp_path / "m.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    args = ["import", "csv", str(tmp_path / "m.csv"), "--bank", "demo", "--out", str(out)]
    assert main(args) == 1  # the second row names a misconception bank.yaml does not declare
    assert "misconception 'not-declared' is not declared" in capsys.readouterr().err
    assert not list(out.glob("fine-tuning-bad-tag*"))  # not written: the bank still loads
    bank = load_bank(out)
    (imported,) = [q for q in bank.questions.values() if q.stem == "What does rank set?"]
    assert [o.misconception for o in imported.options] == [None, "rank-is-lr"]
