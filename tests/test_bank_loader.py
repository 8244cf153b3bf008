"""Loading banks: the bundled bank, and a bank with many errors reporting all of them."""

from __future__ import annotations

import gc
import textwrap
from pathlib import Path

import pytest

from bot.bank.loader import BankError, load_bank, load_banks, question_files
from bot.bank.problems import Problem
from bot.config import BUNDLED_QUESTIONS

BANK_YAML = """\
id: demo
title: Demo bank
exam_code: DEMO-1
passing_score: 70
mock_exam: {questions: 10, minutes: 15}
topics:
  - {id: fine-tuning, name: Fine-tuning, weight: 60}
  - {id: evaluation, name: Evaluation, weight: 40}
"""


def question(qid: str, *, topic: str = "fine-tuning", extra: str = "") -> str:
    """A valid question file; line 2 is `id:`, line 3 `topic:`, line 7 the first option."""
    return (
        textwrap.dedent(f"""\
        # a comment on line 1
        id: {qid}
        topic: {topic}
        stem: Which option is right?
        explanation: Because it is.
        options:
          - text: Right
            correct: true
            rationale: It is right.
          - text: Wrong
            rationale: It is wrong.
        """)
        + extra
    )


def make_bank(root: Path, files: dict[str, str], bank_yaml: str = BANK_YAML) -> Path:
    """A bank folder under root with bank.yaml and the given question files."""
    bank = root / "demo"
    bank.mkdir(parents=True)
    (bank / "bank.yaml").write_text(bank_yaml, encoding="utf-8")
    for name, text in files.items():
        path = bank / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return bank


def test_bundled_bank_loads_and_every_file_is_a_question() -> None:
    result = load_banks([BUNDLED_QUESTIONS])
    assert result.problems == []
    assert len(result.banks) >= 1
    for bank in result.banks.values():
        assert len(bank.questions) >= 1
        files = question_files(BUNDLED_QUESTIONS / bank.id)
        assert len(files) == len(bank.questions)
        for q in bank.questions.values():
            assert bank.meta.topic(q.topic) is not None
            assert all(o.rationale for o in q.options)


def test_valid_bank_with_nested_and_yml_files(tmp_path: Path) -> None:
    bank_dir = make_bank(
        tmp_path,
        {
            "a.yaml": question("q-a"),
            "sub/b.yml": question("q-b", topic="evaluation"),
            ".hidden/c.yaml": "not: [valid",
            "notes.txt": "ignored",
        },
    )
    bank = load_bank(bank_dir)
    assert sorted(bank.questions) == ["q-a", "q-b"]
    assert bank.questions["q-a"].correct_indices == frozenset({0})
    assert [q.id for q in bank.in_topic("evaluation")] == ["q-b"]


def test_every_problem_is_reported_with_file_line_id_and_field(tmp_path: Path) -> None:
    too_long = "x" * 5000
    files = {
        "01-good.yaml": question("q-good"),
        "02-bad-yaml.yaml": "id: q-bad\ntopic: [fine-tuning\nstem: x\n",
        "03-missing-rationale.yaml": question("q-norat").replace(
            "    rationale: It is wrong.\n", ""
        ),
        "04-two-correct.yaml": question("q-two").replace(
            "rationale: It is wrong.", "rationale: It is wrong.\n    correct: true"
        ),
        "05-undeclared-topic.yaml": question("q-topic", topic="safety"),
        "06-duplicate-id.yaml": question("q-good"),
        "07-duplicate-option.yaml": question(
            "q-dupopt", extra="  - text: ' right '\n    rationale: Same text again.\n"
        ),
        "08-long-stem.yaml": question("q-long").replace(
            "stem: Which option is right?", f"stem: {too_long}"
        ),
        "09-typo.yaml": question("q-typo").replace("explanation:", "explanaton:"),
    }
    bank_dir = make_bank(tmp_path, files)
    result = load_banks([tmp_path])
    assert result.banks == {}, "a bank with problems is not returned"
    found = {(p.file.name, p.line, p.question_id, p.field) for p in result.problems}
    assert found == {
        ("02-bad-yaml.yaml", 3, None, None),
        ("03-missing-rationale.yaml", 10, "q-norat", "options.1.rationale"),
        ("04-two-correct.yaml", 6, "q-two", "options"),
        ("05-undeclared-topic.yaml", 3, "q-topic", "topic"),
        ("06-duplicate-id.yaml", 2, "q-good", "id"),
        ("07-duplicate-option.yaml", 12, "q-dupopt", "options.2.text"),
        ("08-long-stem.yaml", 4, "q-long", "stem"),
        ("09-typo.yaml", 5, "q-typo", "explanaton"),
        ("09-typo.yaml", 2, "q-typo", "explanation"),
    }
    by_file = {p.file.name: p for p in result.problems}
    assert "01-good.yaml" in by_file["06-duplicate-id.yaml"].message
    assert "safety" in by_file["05-undeclared-topic.yaml"].message
    assert "exactly 1 correct option, has 2" in by_file["04-two-correct.yaml"].message
    assert "duplicates option A" in by_file["07-duplicate-option.yaml"].message
    assert "4096" not in by_file["08-long-stem.yaml"].message  # the limit left for the text
    assert str(by_file["03-missing-rationale.yaml"]) == (
        f"{bank_dir / '03-missing-rationale.yaml'}:10: q-norat: options.1.rationale: "
        "Field required"
    )
    with pytest.raises(BankError) as raised:
        load_bank(bank_dir)
    assert len(raised.value.problems) == len(result.problems)


def test_several_model_problems_in_one_question_are_all_reported(tmp_path: Path) -> None:
    text = question("q-many").replace("text: Wrong", "text: RIGHT") + "kind: single\n"
    text = text.replace("rationale: It is wrong.", "rationale: It is wrong.\n    correct: true")
    make_bank(tmp_path, {"many.yaml": text})
    fields = sorted(p.field or "" for p in load_banks([tmp_path]).problems)
    assert fields == ["options", "options.1.text"]


@pytest.mark.parametrize(
    ("change", "line", "field"),
    [
        (("exam_code: DEMO-1\n", ""), 1, "exam_code"),
        (("weight: 40", "weight: 30"), 6, "topics"),
        (("minutes: 15", "minutes: 0"), 5, "mock_exam.minutes"),
    ],
)
def test_bank_yaml_problems_point_at_their_line(
    tmp_path: Path, change: tuple[str, str], line: int, field: str
) -> None:
    make_bank(tmp_path, {"a.yaml": question("q-a")}, bank_yaml=BANK_YAML.replace(*change))
    problems = load_banks([tmp_path]).problems
    assert [(p.file.name, p.line, p.field) for p in problems] == [("bank.yaml", line, field)]


def test_bank_ids_must_be_unique_across_paths(tmp_path: Path) -> None:
    make_bank(tmp_path / "one", {"a.yaml": question("q-a")})
    make_bank(tmp_path / "two", {"a.yaml": question("q-a")})
    result = load_banks([tmp_path / "one", tmp_path / "two"])
    assert list(result.banks) == ["demo"]
    [problem] = result.problems
    assert problem.field == "id" and problem.line == 1
    assert str(tmp_path / "one" / "demo" / "bank.yaml") in problem.message


def test_good_bank_is_kept_when_a_sibling_is_broken(tmp_path: Path) -> None:
    make_bank(tmp_path / "ok", {"a.yaml": question("q-a")})
    other = BANK_YAML.replace("id: demo", "id: other")
    make_bank(tmp_path / "broken", {"a.yaml": "- not a mapping\n"}, bank_yaml=other)
    result = load_banks([tmp_path / "ok", tmp_path / "broken"])
    assert list(result.banks) == ["demo"]
    assert [(p.file.name, p.message) for p in result.problems] == [
        ("a.yaml", "question file is a list, not a mapping")
    ]


def test_missing_paths_and_folders_without_bank_yaml(tmp_path: Path) -> None:
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose" / "q.yaml").write_text(question("q-a"))
    result = load_banks([tmp_path / "nowhere", tmp_path])
    assert [str(p) for p in result.problems] == [
        f"{tmp_path / 'nowhere'}:-: -: -: no such bank folder",
        f"{tmp_path / 'loose' / 'bank.yaml'}:-: -: -: missing bank.yaml",
    ]


def test_problem_text_uses_dashes_for_missing_parts() -> None:
    assert str(Problem(Path("b/q.yaml"), None, None, None, "boom")) == "b/q.yaml:-: -: -: boom"
    assert str(Problem(Path("q.yaml"), 3, "q-1", "stem", "bad")) == "q.yaml:3: q-1: stem: bad"


def test_a_load_leaves_what_it_built_in_the_oldest_generation() -> None:
    # The young collections would otherwise walk every loaded object once more, for nothing.
    gc.disable()  # no collection may move anything meanwhile
    try:
        result = load_banks([BUNDLED_QUESTIONS])
        question = next(iter(next(iter(result.banks.values())).questions.values()))
        assert any(o is question for o in gc.get_objects(generation=2))
        assert not any(o is question for o in gc.get_objects(generation=0))
    finally:
        gc.enable()
