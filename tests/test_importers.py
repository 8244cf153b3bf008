"""Practice-page importer: page -> YAML -> load_bank keeps everything the page said."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from bot.bank.importers.common import question_id, slugify
from bot.bank.importers.writer import GENERATED_MARK, equal_shares
from bot.bank.loader import load_bank
from bot.bank.models import Bank, Question
from bot.cli import main

PAGES = Path(__file__).parent / "fixtures" / "pages"
FIXTURES = sorted(PAGES.glob("*.txt"))
# What a page says that is layout, not content (the test's own list, not the importer's).
BOILERPLATE = re.compile(
    r"^(⚠️?\s*Common exam trap|Answer choices|Why each option matters|Answer the question above"
    r".*|Correct answer & explanation|Answer analysis|Option-by-option breakdown|For each "
    r"option:.*|✓|Why (this|it)('s|’s| is) (correct|right|wrong)( here)?)$"
)
MARK = re.compile(r"^- ([✓✗])(?: (.+))?$")


def page_facts(text: str) -> dict[str, object]:
    """What a page says, read with a deliberately simple scan of its lines."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    body = (
        lines[1 : lines.index("About these practice questions")]
        if ("About these practice questions" in lines)
        else lines[1:]
    )
    footer = lines[len(body) + 1 :]
    options: list[tuple[str, bool, str]] = []
    for i, line in enumerate(body):
        mark = MARK.match(line)
        if mark:
            text_line = mark[2] or body[i + 1]
            label = i + 1 if mark[2] else i + 2
            options.append((text_line, mark[1] == "✓", body[label + 1]))
    content = {line for line in body if not BOILERPLATE.match(line) and not MARK.match(line)}
    content |= {m[2] for m in map(MARK.match, body) if m and m[2]}
    author = next((ln.split(" by ", 1)[1] for ln in footer if ln.startswith("Written")), None)
    return {"title": lines[0], "options": options, "content": content, "author": author}


def question_lines(q: Question) -> set[str]:
    fields = [q.stem, q.explanation, q.trap or ""]
    fields += [o.text for o in q.options] + [o.rationale for o in q.options]
    return {line for text in fields for line in text.split("\n") if line}


def import_pages(out: Path, *pages: Path, extra: tuple[str, ...] = ()) -> int:
    return main(["import", "page", *map(str, pages), "--bank", "fx", "--out", str(out), *extra])


def only_question(bank: Bank) -> Question:
    [q] = bank.questions.values()
    return q


@pytest.mark.parametrize("page", FIXTURES, ids=lambda p: p.stem)
def test_round_trip_keeps_everything_the_page_says(page: Path, tmp_path: Path) -> None:
    assert import_pages(tmp_path / "fx", page) == 0
    q = only_question(load_bank(tmp_path / "fx"))
    facts = page_facts(page.read_text(encoding="utf-8"))
    assert [(o.text, o.correct, o.rationale.split("\n")[0]) for o in q.options] == facts["options"]
    # Every content line of the page is in the question, and nothing else is.
    assert question_lines(q) == facts["content"]
    assert q.author == facts["author"]
    assert q.kind.value == ("multiple" if q.select_count > 1 else "single")
    assert q.topic == slugify(str(facts["title"]).split(" ", 1)[1].rsplit(" Practice", 1)[0])
    assert q.difficulty.value == "medium" and q.tags == []


def test_fixtures_cover_the_layouts() -> None:
    facts = [page_facts(p.read_text(encoding="utf-8")) for p in FIXTURES]
    counts = {len(f["options"]) for f in facts}  # type: ignore[arg-type]
    assert {2, 3, 4, 5, 6} <= counts
    positions = {
        i
        for f in facts
        for i, o in enumerate(f["options"])
        if o[1]  # type: ignore[arg-type]
    }
    assert {0, 1, 2, 4} <= positions
    texts = [p.read_text(encoding="utf-8") for p in FIXTURES]
    assert any("Common exam trap" not in t for t in texts)
    assert any("About these practice questions" not in t for t in texts)


def test_two_option_page_in_full(tmp_path: Path) -> None:
    assert import_pages(tmp_path / "fx", PAGES / "eval-judge-two-options.txt") == 0
    q = only_question(load_bank(tmp_path / "fx"))
    assert q.stem.startswith("An LLM judge compares answers from two systems")
    assert q.trap is None
    assert [o.text for o in q.options] == [
        "Yes: a detailed rubric keeps the judge consistent.",
        "No: swap or randomise the order, because judges show position bias.",
    ]
    assert q.correct_indices == frozenset({1})
    assert q.options[1].rationale.startswith("Position bias is a well-documented behaviour")
    assert q.explanation.startswith("LLM judges tend to favour the answer in one position")
    assert q.author == "Eval Fixture Team"
    assert q.reviewed == dt.date(2026, 1, 1)


def test_multiple_answer_page(tmp_path: Path) -> None:
    assert import_pages(tmp_path / "fx", PAGES / "safety-injection-select-two.txt") == 0
    q = only_question(load_bank(tmp_path / "fx"))
    assert q.kind.value == "multiple" and q.correct_indices == frozenset({1, 3})
    assert q.reviewed == dt.date(2026, 9, 1)
    assert q.trap and q.trap.startswith("Relying on the system prompt")


def test_crlf_blank_lines_and_spaces_are_tolerated(tmp_path: Path) -> None:
    source = PAGES / "rag-chunking-four-options.txt"
    messy = "\r\n\r\n".join(f"   {line}  " for line in source.read_text().splitlines())
    (tmp_path / "messy.txt").write_bytes(("\ufeff" + messy).encode("utf-8"))
    assert import_pages(tmp_path / "a", source) == 0
    assert import_pages(tmp_path / "b", tmp_path / "messy.txt") == 0
    assert load_bank(tmp_path / "a").questions == load_bank(tmp_path / "b").questions


def test_ids_are_stable_and_a_second_import_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fx"
    assert import_pages(out, *FIXTURES) == 0
    first = {p.name: p.read_text() for p in out.iterdir()}
    assert import_pages(out, *FIXTURES) == 0
    assert {p.name: p.read_text() for p in out.iterdir()} == first
    assert f"{len(FIXTURES)} unchanged" in capsys.readouterr().out
    assert question_id("evaluation", "Same  stem ") == question_id("evaluation", "same stem")
    assert re.fullmatch(r"evaluation-stem-[0-9a-f]{6}", question_id("evaluation", "The stem?"))


def test_written_files_are_human_friendly(tmp_path: Path) -> None:
    assert import_pages(tmp_path / "fx", PAGES / "rag-chunking-four-options.txt") == 0
    [path] = [p for p in (tmp_path / "fx").glob("*.yaml") if p.name != "bank.yaml"]
    text = path.read_text()
    assert text.startswith("# yaml-language-server: $schema=")
    keys = [line.split(":")[0] for line in text.splitlines() if re.match(r"^[a-z]", line)]
    assert keys == [
        "id",
        "topic",
        "difficulty",
        "kind",
        "stem",
        "options",
        "explanation",
        "trap",
        "tags",
        "author",
        "reviewed",
    ]
    assert "explanation: >-" in text and "stem: >-" in text
    assert max(len(line) for line in text.splitlines()[1:]) <= 96


def test_force_semantics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fx"
    two = [PAGES / "eval-judge-two-options.txt", PAGES / "rag-chunking-four-options.txt"]
    assert import_pages(out, two[0]) == 0
    [edited] = [p for p in out.glob("*.yaml") if p.name != "bank.yaml"]
    edited.write_text(edited.read_text().replace("difficulty: medium", "difficulty: hard"))
    capsys.readouterr()
    assert import_pages(out, *two) == 1
    err = capsys.readouterr().err
    assert f"{edited} exists; not overwritten (use --force)" in err
    assert "difficulty: hard" in edited.read_text(), "left alone without --force"
    assert len(load_bank(out).questions) == 2, "the other page is still written"
    assert import_pages(out, *two, extra=("--force",)) == 0
    assert "difficulty: medium" in edited.read_text()


def test_new_topics_extend_a_generated_bank(tmp_path: Path) -> None:
    out = tmp_path / "fx"
    pages = FIXTURES[:3]
    for page in pages:
        assert import_pages(out, page) == 0
    bank = load_bank(out)
    assert GENERATED_MARK in (out / "bank.yaml").read_text()
    assert len(bank.meta.topics) == 3 and sum(t.weight for t in bank.meta.topics) == 100
    assert {q.topic for q in bank.questions.values()} == {t.id for t in bank.meta.topics}


def test_hand_written_bank_needs_declared_or_mapped_topics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fx"
    out.mkdir()
    (out / "bank.yaml").write_text(
        "id: fx\ntitle: Hand written\nexam_code: FX\npassing_score: 70\n"
        "mock_exam: {questions: 5, minutes: 10}\n"
        "topics:\n  - {id: rag, name: RAG, weight: 50}\n"
        "  - {id: data-preparation, name: Data preparation, weight: 50}\n"
    )
    before = (out / "bank.yaml").read_text()
    rag = PAGES / "rag-chunking-four-options.txt"
    dedup = PAGES / "dataprep-dedup-three-options.txt"
    assert import_pages(out, rag, dedup) == 1
    err = capsys.readouterr().err
    assert f"{rag}:1: topic 'Retrieval Augmented Generation' is not declared" in err
    assert (out / "bank.yaml").read_text() == before, "a hand-written bank.yaml is never rewritten"
    extra = ("--topic-map", "Retrieval Augmented Generation=rag")
    assert import_pages(out, rag, dedup, extra=extra) == 0
    assert {q.topic for q in load_bank(out).questions.values()} == {"rag", "data-preparation"}


PAGE_HEAD = "GENAI-PRACTICE Evaluation Practice Question\nWhich metric?\n"
GOOD_TAIL = (
    "Correct answer & explanation\n✓\nRecall\nBecause.\nAnswer analysis\n"
    "- ✓\nRecall\nWhy this is correct\nIt is.\n- ✗\nPrecision\nWhy it's wrong here\nNo.\n"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Some words\nmore words\n", "page.txt:1: first line is not"),
        (PAGE_HEAD + "Answer choices\n- ✓\nRecall\n", 'page.txt:4: no "Correct answer & '),
        (PAGE_HEAD + GOOD_TAIL.replace("- ✗", "- ?"), "page.txt:12: unknown mark '?'"),
        (
            PAGE_HEAD + GOOD_TAIL.replace("Why it's wrong here\nNo.\n", ""),
            'page.txt:12: option 2 has no "Why this is correct"',
        ),
        (PAGE_HEAD + GOOD_TAIL.replace("No.\n", ""), "page.txt:14: option 2 has no rationale"),
        (
            PAGE_HEAD + GOOD_TAIL.replace("Why this is correct", "Why it's wrong here"),
            "page.txt:10: option 1 is marked ✓ but its label says",
        ),
        (
            PAGE_HEAD + GOOD_TAIL.replace("✓\nRecall\nBecause", "✓\nRecal\nBecause"),
            "page.txt:5: correct answer 'Recal' is not an option marked ✓",
        ),
        (PAGE_HEAD + GOOD_TAIL.replace("Precision", "recall"), "page.txt:13: duplicates option A"),
        (
            PAGE_HEAD + GOOD_TAIL + "About these practice questions\nLast reviewed Smarch 2026\n",
            "page.txt:17: unknown month 'Smarch'",
        ),
    ],
)
def test_page_errors_name_the_file_and_line(
    text: str,
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("page.txt").write_text(text, encoding="utf-8")
    assert main(["import", "page", "page.txt", "--bank", "fx", "--out", "out"]) == 1
    err = capsys.readouterr().err
    assert expected in err, err


def test_good_page_snippet_imports(tmp_path: Path) -> None:
    (tmp_path / "p.txt").write_text(PAGE_HEAD + GOOD_TAIL, encoding="utf-8")
    assert import_pages(tmp_path / "fx", tmp_path / "p.txt") == 0


def test_equal_shares_sum_to_100() -> None:
    assert equal_shares([], 3) == [34, 33, 33]
    assert equal_shares([50, 50], 2) == [25, 25, 25, 25]
    assert equal_shares([34, 33, 33], 1) == [25, 25, 25, 25]
    assert equal_shares([60, 40], 1) == [40, 27, 33]
    assert sum(equal_shares([], 7)) == 100
    shares = equal_shares([], 150)
    assert abs(sum(shares) - 100) < 0.01 and min(shares) > 0


CSV_FIXTURE = Path(__file__).parent / "fixtures" / "csv" / "questions.csv"


def import_csv(out: Path, file: Path, *extra: str) -> int:
    return main(["import", "csv", str(file), "--bank", "csvfx", "--out", str(out), *extra])


def test_csv_round_trip(tmp_path: Path) -> None:
    import csv

    assert import_csv(tmp_path / "b", CSV_FIXTURE) == 0
    bank = load_bank(tmp_path / "b")
    with CSV_FIXTURE.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(bank.questions) == len(rows) == 3
    by_stem = {q.stem: q for q in bank.questions.values()}
    for row in rows:
        q = by_stem[row["stem"]]
        n = len(q.options)
        assert [o.text for o in q.options] == [row[f"option_{i}"] for i in range(1, n + 1)]
        assert [o.rationale for o in q.options] == [row[f"rationale_{i}"] for i in range(1, n + 1)]
        assert row.get(f"option_{n + 1}", "") == ""
        assert q.explanation == row["explanation"]
        assert q.trap == (row["trap"] or None)
        assert q.tags == [t for t in row["tags"].split(";") if t]
        assert q.author == (row["author"] or None)
        assert (q.reviewed.isoformat() if q.reviewed else "") == row["reviewed"]
        assert q.difficulty.value == row["difficulty"]
        if row["id"]:
            assert q.id == row["id"]
    assert by_stem[rows[0]["stem"]].correct_indices == frozenset({0})
    contamination = bank.questions["eval-contamination"]
    assert contamination.kind.value == "multiple"
    assert contamination.correct_indices == frozenset({0, 1})
    assert by_stem[rows[2]["stem"]].correct_indices == frozenset({1})
    assert {t.id: t.name for t in bank.meta.topics}["evaluation"] == "Evaluation"


def test_csv_with_bom_and_crlf(tmp_path: Path) -> None:
    text = CSV_FIXTURE.read_text(encoding="utf-8").replace("\n", "\r\n")
    (tmp_path / "excel.csv").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert import_csv(tmp_path / "a", CSV_FIXTURE) == 0
    assert import_csv(tmp_path / "b", tmp_path / "excel.csv") == 0
    a, b = load_bank(tmp_path / "a"), load_bank(tmp_path / "b")
    assert sorted(a.questions) == sorted(b.questions)
    # A quoted cell's own line break arrives as \r\n from Excel; the models keep it as text.
    assert a.questions["eval-contamination"].options == b.questions["eval-contamination"].options


def test_csv_error_rows_name_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = "topic,stem,option_1,rationale_1,option_2,rationale_2,option_3,correct,explanation"
    rows = [
        "evaluation,Good row?,Yes,Because,No,Not so,,A,Fine.",  # line 2
        "evaluation,Missing rationale?,Yes,Because,No,,,A,Fine.",  # line 3
        "evaluation,Bad letter?,Yes,Because,No,Not so,,D,Fine.",  # line 4
        'evaluation,"Two lines\nin the stem, and two correct?",Yes,Because,No,Not so,,"",',  # 5-6
        "evaluation,Gap?,Yes,Because,,,Third,A,Fine.",  # line 7
    ]
    (tmp_path / "bad.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    assert import_csv(tmp_path / "out", tmp_path / "bad.csv") == 1
    err = capsys.readouterr().err.splitlines()
    bad = tmp_path / "bad.csv"
    assert f"{bad}:3: rationale_2: Field required" in err
    assert f"{bad}:4: correct: 'D': there is no such option (the row has 2)" in err
    assert not any("single-answer" in line for line in err), "a bad cell is reported once"
    assert any(line.startswith(f"{bad}:5: correct: no correct option given") for line in err)
    assert f"{bad}:5: explanation: Field required" in err
    assert any(line.startswith(f"{bad}:7: option_2: empty, but a later option") for line in err)
    assert f"{bad}:7: rationale_3: Field required" in err
    # The good row is still written.
    assert len(list((tmp_path / "out").glob("evaluation-*.yaml"))) == 1


def test_csv_header_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "h.csv").write_text("topic,stem,colour\nx,y,z\n", encoding="utf-8")
    assert import_csv(tmp_path / "out", tmp_path / "h.csv") == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'h.csv'}:1: colour: unknown column" in err
    assert "missing columns: option_1, option_2, rationale_1, rationale_2, correct" in err
    assert not (tmp_path / "out").exists()


def test_csv_help_documents_the_columns(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["import", "csv", "--help"])
    out = capsys.readouterr().out
    for column in (
        "id",
        "topic",
        "difficulty",
        "kind",
        "stem",
        "option_1 .. option_12",
        "rationale_1 .. rationale_12",
        "correct",
        "explanation",
        "trap",
        "tags",
        "author",
        "reviewed",
    ):
        assert f"\n  {column} " in out, column


def test_one_file_may_hold_several_pages(tmp_path: Path) -> None:
    both = "\n".join(p.read_text(encoding="utf-8") for p in FIXTURES[:2])
    (tmp_path / "two.txt").write_text(both, encoding="utf-8")
    assert import_pages(tmp_path / "fx", tmp_path / "two.txt") == 0
    assert len(load_bank(tmp_path / "fx").questions) == 2
