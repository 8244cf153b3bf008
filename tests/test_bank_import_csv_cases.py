"""`quizbot import csv` with the files spreadsheet authors produce: each names its cause."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.bank.loader import load_bank
from bot.cli import main

HEADER = "topic,stem,option_1,rationale_1,option_2,rationale_2,correct,explanation"
ROW = "evaluation,{stem},Yes,Because it is,No,Because it is not,A,Fine."
HAND_WRITTEN_BANK = (
    "id: fx\ntitle: Hand written\nexam_code: FX\npassing_score: 70\n"
    "mock_exam: {questions: 5, minutes: 10}\n"
    "topics:\n  - {id: rag, name: RAG, weight: 50}\n"
    "  - {id: evaluation, name: Evaluation, weight: 50}\n"
)


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def run(
    capsys: pytest.CaptureFixture[str], file: Path, out: Path, *extra: str, bank: str = "fx"
) -> tuple[int, list[str]]:
    code = main(["import", "csv", str(file), "--bank", bank, "--out", str(out), *extra])
    return code, capsys.readouterr().err.splitlines()


def hand_written(folder: Path) -> Path:
    folder.mkdir()
    write(folder / "bank.yaml", HAND_WRITTEN_BANK)
    return folder


def stems(folder: Path) -> list[str]:
    return sorted(q.stem for q in load_bank(folder).questions.values())


def test_topic_map_files_rows_under_a_declared_topic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = hand_written(tmp_path / "fx")
    rows = [HEADER, ROW.replace("evaluation", "Retrieval").format(stem="Mapped?")]
    csv_file = write(tmp_path / "q.csv", "\n".join(rows) + "\n")
    code, err = run(capsys, csv_file, out)
    assert code == 1
    assert err == [
        f"{csv_file}:2: topic: topic 'Retrieval' is not declared in {out / 'bank.yaml'}; "
        "declare it there or map it with --topic-map"
    ]
    # The option the hint names exists for CSV, matching the cell case-insensitively.
    assert run(capsys, csv_file, out, "--topic-map", "retrieval=rag")[0] == 0
    assert [q.topic for q in load_bank(out).questions.values()] == ["rag"]
    code, err = run(capsys, csv_file, tmp_path / "fx", "--topic-map", "Retrieval=nope", "--force")
    assert code == 1
    assert f"--topic-map files 'Retrieval' under 'nope', which {out / 'bank.yaml'}" in err[0]


@pytest.mark.parametrize("bank", ["new", "hand-written"])
def test_empty_topic_is_required_not_undeclared(
    bank: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = hand_written(tmp_path / "fx") if bank == "hand-written" else tmp_path / "fx"
    rows = [HEADER, ROW.replace("evaluation", "").format(stem="Empty topic?")]
    csv_file = write(tmp_path / "q.csv", "\n".join(rows) + "\n")
    code, err = run(capsys, csv_file, out)
    assert code == 1
    assert err == [f"{csv_file}:2: topic: required"]


def test_semicolon_excel_export_imports_like_the_comma_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stem = '"Which is right; and which, if any, is not?"'
    comma = write(tmp_path / "comma.csv", f"{HEADER}\n{ROW.format(stem=stem)}\n")
    semi_rows = [HEADER.replace(",", ";"), ROW.replace(",", ";").format(stem=stem)]
    # Excel in a comma-decimal locale: BOM, CRLF and semicolons.
    semi = tmp_path / "semi.csv"
    semi.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(semi_rows).encode() + b"\r\n")
    tab_rows = [HEADER.replace(",", "\t"), ROW.replace(",", "\t").format(stem=stem)]
    tsv = write(tmp_path / "tabs.txt", "\n".join(tab_rows))
    assert run(capsys, comma, tmp_path / "a")[0] == 0
    assert run(capsys, semi, tmp_path / "b") == (0, [])
    assert run(capsys, semi, tmp_path / "c", "--delimiter", ";") == (0, [])
    assert run(capsys, tsv, tmp_path / "d", "--delimiter", "tab") == (0, [])
    expected = ["Which is right; and which, if any, is not?"]
    assert stems(tmp_path / "a") == stems(tmp_path / "b") == expected
    assert stems(tmp_path / "c") == stems(tmp_path / "d") == expected
    # Told the wrong delimiter, the whole header is one name: reported, nothing written.
    code, err = run(capsys, semi, tmp_path / "e", "--delimiter", ",")
    assert code == 1 and "unknown column name in column 1 (A)" in err[0]
    assert not (tmp_path / "e").exists()


def test_headers_ignore_case_and_spaces_and_every_unknown_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = " Topic ,STEM,Option_1,RATIONALE_1, option_2 ,Rationale_2,Correct,Explanation"
    good = write(tmp_path / "good.csv", f"{header}\n{ROW.format(stem='Case?')}\n")
    assert run(capsys, good, tmp_path / "a") == (0, [])
    assert stems(tmp_path / "a") == ["Case?"]
    bad_header = f"{header},Colour,SIZE,Options_3"
    bad = write(tmp_path / "bad.csv", f"{bad_header}\n{ROW.format(stem='Case?')},x,y,z\n")
    code, err = run(capsys, bad, tmp_path / "b")
    assert code == 1
    assert err == [
        f"{bad}:1: Colour: unknown column name in column 9 (I)",
        f"{bad}:1: SIZE: unknown column name in column 10 (J)",
        f"{bad}:1: Options_3: unknown column name in column 11 (K); did you mean option_3?",
    ]
    assert not (tmp_path / "b").exists()


def test_duplicated_column_names_both_positions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{HEADER},Stem\n{ROW.format(stem='First?')},Second?\n"
    code, err = run(capsys, write(tmp_path / "dup.csv", text), tmp_path / "out")
    assert code == 1
    assert err == [
        f"{tmp_path / 'dup.csv'}:1: stem: duplicated column: column 2 (B) and column 9 (I) "
        "are both stem; keep one"
    ]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("name", "rows", "line", "column", "cause"),
    [
        # The quote opened on line 2 is never closed: the cell would eat the rest of the file.
        (
            "unterminated",
            [ROW.format(stem='"Unterminated?'), ROW.format(stem="Next?")],
            2,
            "stem",
            'unterminated quote: the " that opens this cell is never closed',
        ),
        # ... or it closes at the next quote, rows later, and text follows it.
        (
            "closed-late",
            [ROW.format(stem='"Open?'), ROW.format(stem="Plain?"), ROW.format(stem='"Quoted?"')],
            2,
            "stem",
            "the quoted cell that starts here is closed on line 4 and followed by more text",
        ),
        (
            "bare-cr",
            [ROW.format(stem="Bare\rCR?"), ROW.format(stem="Fine?")],
            2,
            "stem",
            "a carriage return (CR) alone inside the cell ends the row here",
        ),
        (
            "bare-cr-crlf-file",
            [ROW.format(stem="Fine?"), ROW.replace("Fine.", "Fine.\rMore.").format(stem="CR?")],
            3,
            "explanation",
            "a carriage return (CR) alone inside the cell ends the row here",
        ),
    ],
)
def test_quoting_mistakes_name_their_cause_line_and_cell(
    name: str,
    rows: list[str],
    line: int,
    column: str,
    cause: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ending = "\r\n" if name.endswith("crlf-file") else "\n"
    csv_file = write(tmp_path / f"{name}.csv", ending.join([HEADER, *rows]) + ending)
    code, err = run(capsys, csv_file, tmp_path / "out")
    assert code == 1
    [message] = err
    assert message.startswith(f"{csv_file}:{line}: {column}: {cause}")
    assert "correct option" not in message and "required" not in message
    assert not (tmp_path / "out").exists()


def test_cr_line_breaks_and_quoted_cr_are_still_fine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An old Mac export breaks rows with CR alone; a quoted cell may hold a CR as text.
    mac = write(tmp_path / "mac.csv", "\r".join([HEADER, ROW.format(stem="Mac?")]) + "\r")
    two_lines = ROW.format(stem='"Two\rlines?"')
    quoted = write(tmp_path / "q.csv", f"{HEADER}\n{two_lines}\n")
    assert run(capsys, mac, tmp_path / "a") == (0, [])
    assert run(capsys, quoted, tmp_path / "b") == (0, [])
    assert stems(tmp_path / "a") == ["Mac?"]
    assert stems(tmp_path / "b") == ["Two\rlines?"]


@pytest.mark.parametrize("text", [f"{HEADER}\n", f"{HEADER}\r\n,,,,,,,\n\n"])
def test_header_only_file_is_an_error(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv_file = write(tmp_path / "header.csv", text)
    code, err = run(capsys, csv_file, tmp_path / "out")
    assert code == 1
    assert err == [f"{csv_file}:1: no questions: nothing below the header row"]
    assert not (tmp_path / "out").exists()


def test_bank_id_must_match_the_folders_bank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv_file = write(tmp_path / "q.csv", f"{HEADER}\n{ROW.format(stem='Which bank?')}\n")
    out = hand_written(tmp_path / "fx")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code, err = run(capsys, csv_file, out, bank="other")
    assert code == 1
    assert err == [
        f"{out / 'bank.yaml'}:1: id: this folder holds bank 'fx', not 'other' (--bank); "
        "use --bank fx or another --out"
    ]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert run(capsys, csv_file, out) == (0, [])


def test_unnamed_columns_must_stay_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Spreadsheets often export a trailing column with no name; it is fine while empty.
    rows = [f"{HEADER},", f"{ROW.format(stem='Empty extra?')},", f"{ROW.format(stem='Note?')},ok"]
    csv_file = write(tmp_path / "extra.csv", "\n".join(rows) + "\n")
    code, err = run(capsys, csv_file, tmp_path / "out")
    assert code == 1
    assert err == [f"{csv_file}:3: text in column 9 (I), which has no name in the header"]
    assert stems(tmp_path / "out") == ["Empty extra?"]


def test_a_row_the_bank_would_refuse_is_reported_and_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A formula that does not typeset, or a misconception the bank does not declare, passes
    the row's own checks but would keep the whole bank from loading: such a row is named, with
    its cell, and only the others are written; fixed, it imports."""
    out = hand_written(tmp_path / "fx")
    header = HEADER.replace(",correct", ",misconception_2,correct")
    row = ROW.replace(",A,Fine.", ",{tag},A,Fine.")
    rows = [
        header,
        row.format(stem="Is $\\notacommand{x}$ right?", tag=""),
        row.format(stem="Does the typo count?", tag="lora-lr-typo"),
        row.format(stem="Is this one fine?", tag=""),
    ]
    csv_file = write(tmp_path / "q.csv", "\n".join(rows) + "\n")
    code, err = run(capsys, csv_file, out)
    assert code == 1
    assert [line.split(": ")[:2] for line in err] == [
        [f"{csv_file}:2", "stem"],
        [f"{csv_file}:3", "misconception_2"],
    ]
    assert "cannot be typeset" in err[0] and "'lora-lr-typo' is not declared" in err[1]
    assert stems(out) == ["Is this one fine?"]
    fixed = [
        rows[0],
        rows[1].replace("\\notacommand", "\\sqrt"),
        rows[2].replace("lora-lr-typo", ""),
    ]
    assert run(capsys, write(csv_file, "\n".join(fixed) + "\n"), out)[0] == 0
    assert len(stems(out)) == 3


def test_free_text_tags_become_bank_tags_as_in_the_lms_formats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [f"{HEADER},tags", ROW.format(stem="Tagged?") + ",LoRA; Fine tuning;lora;;"]
    csv_file = write(tmp_path / "q.csv", "\n".join(rows) + "\n")
    out = tmp_path / "fx"
    assert run(capsys, csv_file, out) == (0, [])
    [question] = load_bank(out).questions.values()
    assert question.tags == ["lora", "fine-tuning"]
