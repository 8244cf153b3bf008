"""Importers write any Unicode text as YAML that loads back unchanged, and write all or nothing."""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.bank.importers.writer import write_all
from bot.bank.loader import load_bank, load_banks
from bot.bank.models import Question
from bot.cli import main

HEADER = [
    "topic",
    "stem",
    "option_1",
    "rationale_1",
    "option_2",
    "rationale_2",
    "correct",
    "explanation",
    "trap",
    "author",
]
# Joined emoji, an emoji beside a tab, NBSP, soft hyphen, RTL mark: each once crashed the writer.
AWKWARD = [
    "Who codes? 👩‍💻",
    "A family 👨‍👩‍👧 of three",
    "Tab\t😀 then emoji",
    "No\u00a0break 😀 space",
    "soft\u00adhyphen 🙂",
    "\u200fright-to-left mark 😀",
]


def csv_text(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(HEADER)
    writer.writerows(rows)
    return buffer.getvalue()


def row(stem: str, a: str, b: str, *, why: str = "Why.", extra: str = "x") -> list[str]:
    return [
        "evaluation",
        stem,
        f"1 {a}",
        f"{why} 1",
        f"2 {b}",
        f"{why} 2",
        "A",
        f"{extra} explained",
        f"{extra} trap",
        f"{extra} author",
    ]


def test_csv_with_emoji_and_invisible_characters_round_trips(tmp_path: Path) -> None:
    rows = [row(text, text, text, why=text, extra=text) for text in AWKWARD]
    (tmp_path / "q.csv").write_text(csv_text(rows), encoding="utf-8")
    out = tmp_path / "bank"
    assert main(["import", "csv", str(tmp_path / "q.csv"), "--bank", "u", "--out", str(out)]) == 0
    bank = load_bank(out)
    assert sorted(q.stem for q in bank.questions.values()) == sorted(t.strip() for t in AWKWARD)
    for q in bank.questions.values():
        assert q.options[0].text == f"1 {q.stem}"
        assert q.trap == f"{q.stem} trap"


def test_page_with_joined_emoji_imports(tmp_path: Path) -> None:
    page = (
        "GENAI-PRACTICE Evaluation Practice Question\nWho codes 👩\u200d💻 here?\t😀\n"
        "Correct answer & explanation\n✓\nRecall 👨\u200d👩\u200d👧\nBecause\u00ad.\n"
        "Answer analysis\n- ✓\nRecall 👨\u200d👩\u200d👧\nWhy this is correct\nIt\u200f is.\n"
        "- ✗\nPrecision\nWhy it's wrong here\nNo.\n"
    )
    (tmp_path / "p.txt").write_text(page, encoding="utf-8")
    out = tmp_path / "bank"
    assert main(["import", "page", str(tmp_path / "p.txt"), "--bank", "u", "--out", str(out)]) == 0
    (q,) = load_bank(out).questions.values()
    assert q.stem == "Who codes 👩\u200d💻 here?\t😀"
    assert q.options[0].text == "Recall 👨\u200d👩\u200d👧"
    assert q.explanation == "Because\u00ad."


def test_a_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    out = tmp_path / "new-bank"
    # A lone surrogate cannot be encoded: the second file fails after the first was written.
    plan = [(out / "a.yaml", "id: a\n"), (out / "b.yaml", "id: \udc00\n")]
    with pytest.raises(UnicodeEncodeError):
        write_all(plan, out)
    assert not out.exists()
    out.mkdir()
    (out / "a.yaml").write_text("old\n")
    with pytest.raises(UnicodeEncodeError):
        write_all(plan, out)
    assert [p.name for p in out.iterdir()] == ["a.yaml"]
    assert (out / "a.yaml").read_text() == "old\n"


# Any text but surrogates (a file cannot hold them); at least one visible character.
FIELD = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=30).filter(
    lambda t: t.strip()
)


@settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(texts=st.lists(FIELD, min_size=9, max_size=9))
def test_any_text_in_every_field_survives_import_validate_load(texts: list[str]) -> None:
    stem, a, b, why_a, why_b, explanation, trap, author, _ = texts
    cells = ["evaluation", stem, f"1 {a}", why_a, f"2 {b}", why_b, "B", explanation, trap, author]
    expected = Question.model_validate(
        {
            "id": "x",
            "topic": "evaluation",
            "stem": cells[1],
            "options": [
                {"text": cells[2], "rationale": why_a},
                {"text": cells[4], "rationale": why_b, "correct": True},
            ],
            "explanation": explanation,
            "trap": trap,
            "author": author,
        }
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "q.csv").write_text(csv_text([cells]), encoding="utf-8", newline="")
        out = root / "bank"
        code = main(["import", "csv", str(root / "q.csv"), "--bank", "u", "--out", str(out)])
        assert code == 0
        result = load_banks([out])
        assert result.problems == []
        (loaded,) = result.banks["u"].questions.values()
    assert loaded.model_copy(update={"id": "x"}) == expected
