"""First attempts read from a real SQLite file, and `quizbot report` / `validate --stats`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.analysis import FlagKind
from bot.bank.models import Bank
from bot.cli import main
from bot.storage import item_sql
from tests import factories
from tests.backend import database_env
from tests.item_model import Item, Model, Row, insert_rows, make_bank, new_database, question
from tests.item_model import write_bank as write_bank_dir


def _bank() -> Bank:
    questions = [question(f"q{i}", ("alpha", "beta")[i % 2]) for i in range(8)]
    questions.append(question("mk", "alpha", stem="Which <b>tag</b> & why?"))
    return make_bank(questions, bank_id="demo")


def _database(path: Path, bank: Bank, learners: int = 120) -> Path:
    model = Model(bank, {"mk": Item(true_key=(2,)), **{f"q{i}": Item(a=2.5) for i in range(8)}})
    conn = new_database(path)
    insert_rows(conn, bank.id, model.rows(learners, per_learner=len(bank.questions)))
    conn.close()
    return path


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A bank folder and a database of answers to it; the working folder has no .env."""
    monkeypatch.chdir(tmp_path)
    for name in ("QUIZBOT_DB", "QUIZBOT_QUESTIONS"):
        monkeypatch.delenv(name, raising=False)
    bank = _bank()
    return write_bank_dir(bank, tmp_path / "banks" / "demo"), _database(tmp_path / "a.db", bank)


def test_repeat_attempts_do_not_count_and_the_earliest_answer_is_first(tmp_path: Path) -> None:
    bank = make_bank([question("q1", "alpha"), question("q2", "alpha")], bank_id="demo")
    conn = new_database(tmp_path / "a.db")
    rows = [
        Row(1, "q1", "alpha", (1,), False, 100.0, 5000),
        Row(1, "q1", "alpha", (0,), True, 200.0, 900),  # a repeat, right this time
        Row(2, "q1", "alpha", (0,), True, 300.0, 7000),
        Row(2, "q2", "alpha", (2,), False, 250.0, 3000),
        # Inserted last but answered first: it is learner 2's first attempt at q2.
        Row(2, "q2", "alpha", (0,), True, 50.0, 2000),
        Row(3, "q2", "alpha", (3,), False, 400.0, None),
    ]
    insert_rows(conn, "demo", rows)
    # Another bank's answers are not this bank's.
    insert_rows(conn, "other", [Row(9, "q1", "alpha", (3,), False, 10.0, 1)])
    by_q = {r.question_id: r for r in item_sql.question_responses(conn, "demo")}
    assert sorted(by_q) == ["q1", "q2"]
    assert dict(zip(by_q["q1"].user_ids, by_q["q1"].correct, strict=True)) == {1: False, 2: True}
    assert dict(zip(by_q["q2"].user_ids, by_q["q2"].chosen, strict=True)) == {2: (0,), 3: (3,)}
    assert (by_q["q1"].time_total_ms, by_q["q1"].timed) == (12000, 2)
    assert (by_q["q2"].time_total_ms, by_q["q2"].timed) == (2000, 1)
    report = item_sql.item_report(conn, bank, min_n=0)
    q1 = next(q for q in report.questions if q.question_id == "q1")
    assert q1.n == 2 and q1.p == 0.5
    assert report.learners == 3 and report.first_attempts == 4


def test_group_answers_of_several_members_and_multiple_choice_are_read(tmp_path: Path) -> None:
    conn = new_database(tmp_path / "a.db")
    insert_rows(conn, "demo", [Row(u, "m", "alpha", (0, 2), True, 10.0 + u, 1) for u in (1, 2)])
    (only,) = item_sql.question_responses(conn, "demo")
    assert only.chosen == ((0, 2), (0, 2)) and only.user_ids == (1, 2)


def test_report_text_is_a_table_worst_first(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    banks, db = setup
    assert main(["report", "--db", database_env(db), "--questions", str(banks)]) == 0
    out = capsys.readouterr().out
    assert "Item analysis of Bank demo (demo)" in out
    assert "first attempt" in out
    table = out.split("\n\n")[1].splitlines()
    assert table[0].split()[:5] == ["question", "n", "p", "r", "D"]
    assert table[2].startswith("mk ") and "likely mis-keyed" in table[2]
    assert "    - likely mis-keyed: option C is picked by" in out


def test_report_json_is_stable_and_versioned(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    banks, db = setup
    args = ["report", "--format", "json", "--db", database_env(db), "--questions", str(banks)]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first
    data = json.loads(first)
    assert data["schema_version"] == 1
    assert list(data) == [
        "schema_version",
        "bank",
        "method",
        "summary",
        "questions",
        "learner_reports",
        "topics",
        "misconceptions",
    ]
    assert data["summary"]["learners"] == 120
    mk = data["questions"][0]
    assert mk["id"] == "mk" and mk["status"] == "firm" and mk["n"] == 120
    assert mk["flags"][0]["kind"] == FlagKind.MIS_KEYED.value and mk["flags"][0]["option"] == 2
    assert set(mk["options"][0]) >= {"letter", "share", "upper_share", "discrimination"}


def test_report_html_to_a_file_escapes_text(
    setup: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    banks, db = setup
    out = tmp_path / "r.html"
    args = ["report", "--format", "html", "--out", str(out), "--db", database_env(db)]
    assert main([*args, "--questions", str(banks), "--bank", "demo"]) == 0
    html = out.read_text()
    assert html.startswith("<!doctype html>")
    assert "Which &lt;b&gt;tag&lt;/b&gt; &amp; why?" in html and "<b>tag</b>" not in html
    # Self-contained: nothing to fetch (no links, sources, imports or CSS urls).
    assert not any(ref in html for ref in ("<link", "src=", "@import", "url(", "http"))
    assert 'id="q-mk"' in html


def test_min_n_leaves_questions_unflagged(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    banks, db = setup
    args = ["report", "--format", "json", "--min-n", "500", "--db", database_env(db)]
    assert main([*args, "--questions", str(banks)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["flagged"] == 0
    assert {q["status"] for q in data["questions"]} == {"too few"}


def test_an_unknown_bank_is_one_line(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    banks, db = setup
    assert (
        main(["report", "--db", database_env(db), "--questions", str(banks), "--bank", "x"]) == 1
    )
    assert capsys.readouterr().err == "quizbot: unknown bank 'x' (banks: demo)\n"


@pytest.mark.sqlite_only("a missing SQLite file, and a file that is not one")
def test_report_errors_are_one_line(
    setup: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    banks, _ = setup
    assert main(["report", "--db", str(tmp_path / "none.db"), "--questions", str(banks)]) == 1
    err = capsys.readouterr().err
    assert err == f"quizbot: no database at {tmp_path / 'none.db'}\n"
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    assert main(["report", "--db", str(junk), "--questions", str(banks)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"quizbot: cannot read {junk}:") and err.count("\n") == 1


def test_validate_with_stats_prints_the_flags(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    banks, db = setup
    assert main(["validate", str(banks), "--stats", database_env(db)]) == 0
    out = capsys.readouterr().out
    assert "demo: Bank demo (ITEMS-1), 9 questions" in out
    assert "demo: item analysis of 1080 first attempts by 120 learners" in out
    assert "  mk (n=120, firm)\n    likely mis-keyed: option C" in out
    assert main(["validate", str(banks)]) == 0
    assert "item analysis" not in capsys.readouterr().out


def _report(path: Path, user: int, qid: str, reason: str, comment: str | None = None) -> None:
    with factories.blocking(path) as conn:
        conn.execute(
            "INSERT INTO question_reports (delivery_id, user_id, bank_id, question_id,"
            " option_order, reason, comment, reported_at) VALUES (?, ?, 'demo', ?, '1,0,2,3',"
            " ?, ?, ?)",
            (user * 10, user, qid, reason, comment, 1000.0 + user),
        )


def test_learner_reports_are_listed_and_marked_for_review(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    banks, db = setup
    _report(db, 1, "mk", "key", "C is the <right> one")  # backed by the mis-key flag
    for user, reason in ((1, "typo"), (2, "typo"), (3, "unclear")):  # three learners
        _report(db, user, "q1", reason)
    _report(db, 4, "q2", "key")  # a wrong key alone, unbacked: listed, not for review
    _report(db, 5, "q3", "other")
    args = ["report", "--format", "json", "--db", database_env(db), "--questions", str(banks)]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    listed = {q["question_id"]: q for q in data["learner_reports"]}
    assert [q["question_id"] for q in data["learner_reports"]] == ["q1", "mk", "q2", "q3"]
    assert listed["q1"]["learners"] == 3 and listed["q1"]["reasons"] == {"typo": 2, "unclear": 1}
    assert listed["q1"]["review"] == "reported by 3 learners"
    assert "mis-keyed" in listed["mk"]["review"]
    assert listed["mk"]["comments"] == ["C is the <right> one"]
    assert listed["q2"]["review"] is None and listed["q3"]["review"] is None
    assert (data["summary"]["reported"], data["summary"]["for_review"]) == (4, 2)
    assert main([*args[:2], "text", *args[3:]]) == 0
    text = capsys.readouterr().out
    assert "  q1: 3 learners, typo ×2, unclear or ambiguous  REVIEW: reported by 3" in text
    assert main([*args[:2], "html", *args[3:]]) == 0
    html = capsys.readouterr().out
    assert "C is the &lt;right&gt; one" in html and "<right>" not in html
