"""Operator commands given a database, an input or an output path they cannot use: one line
naming it and why, a non-zero exit, no traceback, no password; and nothing left behind.

The databases are real: random bytes in a file, a database a newer release migrated (a
migration this code does not ship recorded in it), a PostgreSQL URL nobody listens at.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.commands.play_mock import play_mock
from bot.practice.catalog import Catalog
from bot.storage.factory import connect_blocking, display_name, prepare_database
from tests import exchange_files as fx
from tests import factories, mock_bank, sample_bank
from tests.backend import database, database_env
from tests.fakes import TOKEN
from tests.ops_support import write_bank

REPO = Path(__file__).resolve().parent.parent
BANK = sample_bank.bank()
FUTURE = "0099_future"
NEWER = (
    f"the database is newer than this quizbot: migrations {FUTURE} it does not know; "
    "run the newer release"
)
NOT_SQLITE = "not a SQLite database (corrupt or another kind of file)"
# Nobody listens on port 1: connecting fails at once, with the driver's two-line message.
PASSWORD = "s3cret-pw"
DEAD_URL = f"postgresql://quiz:{PASSWORD}@127.0.0.1:1/quiz"
DEAD_SHOWN = "postgresql://quiz@127.0.0.1:1/quiz"
# A folder that cannot be made: /proc takes no new entries.
NO_FOLDER = Path("/proc/quizbot-no-such-folder")


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Commands run in tmp_path (away from a developer's .env) with the sample bank."""
    monkeypatch.chdir(tmp_path)
    for name in ("BOT_TOKEN", "QUIZBOT_ADMINS", "QUIZBOT_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("QUIZBOT_QUESTIONS", str(write_bank(tmp_path / "banks", BANK)))
    return tmp_path


def one_line(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 1) -> str:
    """Run `quizbot ARGV`: it must exit with `code` after one line on stderr."""
    assert main(list(argv)) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = err.splitlines()
    assert line.startswith("quizbot: "), line
    return line


def random_file(path: Path) -> Path:
    path.write_bytes(os.urandom(8192))
    return path


def newer_database(path: Path) -> str | Path:
    """A database migrated by this code, then by a newer release (one more migration)."""
    target = database(path)
    prepare_database(target)
    conn = connect_blocking(target)
    try:
        conn.execute("INSERT INTO schema_migrations (name) VALUES (?)", (FUTURE,))
    finally:
        conn.close()
    return target


def health(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    code = main(["health"])
    report: dict[str, object] = json.loads(capsys.readouterr().out)["database"]
    return code, report


@pytest.mark.sqlite_only("a file of random bytes where the SQLite file should be")
def test_health_fails_on_a_file_that_is_not_a_database(
    cli: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = random_file(cli / "random.sqlite3")
    before = path.read_bytes()
    monkeypatch.setenv("QUIZBOT_DB", str(path))
    code, report = health(capsys)
    assert code == 1 and report["ok"] is False
    # The words `quizbot run` refuses it with.
    assert report["error"] == f"cannot use the database {path}: {NOT_SQLITE}"
    assert path.read_bytes() == before


def test_a_database_newer_than_the_code_is_refused_by_migrate_health_and_commands(
    cli: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = newer_database(cli / "newer.sqlite3")
    monkeypatch.setenv("QUIZBOT_DB", str(target))
    applied = factories.rows(cli / "newer.sqlite3", "SELECT name FROM schema_migrations")

    line = one_line(capsys, "migrate")
    assert line.endswith(NEWER), line
    code, report = health(capsys)
    assert code == 1 and report["ok"] is False and report["error"] == NEWER
    assert report["schema_version"] == FUTURE
    # The store's own open (every command that works on the database goes through it).
    assert one_line(capsys, "stats", "--user", "1").endswith(NEWER)
    assert factories.rows(cli / "newer.sqlite3", "SELECT name FROM schema_migrations") == applied


def test_the_bot_does_not_start_on_a_database_newer_than_the_code(tmp_path: Path) -> None:
    newer_database(tmp_path / "newer.sqlite3")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))},
        "PYTHONPATH": str(REPO),
        "BOT_TOKEN": TOKEN,
        "BOT_API_URL": "http://127.0.0.1:9",  # never reached: the database is checked first
        "QUIZBOT_DB": database_env(tmp_path / "newer.sqlite3"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("quizbot: cannot use the database") and line.endswith(NEWER)


@pytest.mark.sqlite_only("a file of random bytes where the SQLite file should be")
def test_stats_export_and_fit_on_a_corrupt_file_say_one_line(
    cli: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(random_file(cli / "random.sqlite3"))
    said = [
        one_line(capsys, "stats", "--user", "1", "--db", path),
        one_line(capsys, "export", "--chat", "-1", "--out", "e.csv", "--db", path),
    ]
    monkeypatch.setenv("QUIZBOT_DB", path)
    said.append(one_line(capsys, "fit"))
    assert said == [f"quizbot: cannot use the database {path}: {NOT_SQLITE}"] * 3
    assert not (cli / "e.csv").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "--user", "1", "--db", DEAD_URL],
        ["export", "--chat", "-1", "--out", "e.csv", "--db", DEAD_URL],
        ["fit", "--db", DEAD_URL],
        ["report", "--db", DEAD_URL],
        ["db", "copy", "--from", DEAD_URL, "--to", "copy.sqlite3"],
    ],
    ids=["stats", "export", "fit", "report", "db copy"],
)
def test_an_unreachable_postgres_url_gives_one_line_without_its_password(
    cli: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    line = one_line(capsys, *argv)
    assert PASSWORD not in line
    assert line.startswith(f"quizbot: cannot use the database {DEAD_SHOWN}: "), line
    assert "Connection refused" in line
    assert not (cli / "e.csv").exists() and not (cli / "copy.sqlite3").exists()


def test_output_paths_that_cannot_be_written_are_named_in_one_line(
    cli: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    prepare_database(database(cli / "bot.sqlite3"))
    monkeypatch.setenv("QUIZBOT_DB", database_env(cli / "bot.sqlite3"))
    factories.execute(
        database(cli / "bot.sqlite3"),
        "INSERT INTO chats (id, type, title, created_at, updated_at)"
        " VALUES (-100, 'supergroup', 'Prep', 0, 0)",
    )
    folder = cli / "out"
    folder.mkdir()
    gone = NO_FOLDER / "x"
    cases = [
        (["stats", "--user", "5", "--png", f"{gone}.png"], f"{gone}.png", 1),
        (["stats", "--user", "5", "--png", str(folder)], str(folder), 2),
        (["export", "--chat", "-100", "--out", f"{gone}.csv"], f"{gone}.csv", 1),
        (["export", "--chat", "-100", "--out", str(folder)], str(folder), 2),
        (["export", "moodle", "--bank", BANK.id, "--out", f"{gone}.xml"], f"{gone}.xml", 1),
        (["export", "moodle", "--bank", BANK.id, "--out", str(folder)], str(folder), 2),
    ]
    for argv, path, code in cases:
        line = one_line(capsys, *argv, code=code)
        why = "it is a directory" if code == 2 else "No such file or directory"
        assert line == f"quizbot: cannot write {path}: {why}", argv
    assert list(folder.iterdir()) == []
    # A chat the bot never recorded: said, and no empty file that reads as an export.
    where = display_name(database_env(cli / "bot.sqlite3"))
    line = one_line(capsys, "export", "--chat", "-200", "--out", str(cli / "r.csv"), code=2)
    assert line == f"quizbot: no chat -200 in {where}: a group is recorded once the bot is in it"
    assert not (cli / "r.csv").exists()
    assert [p.name for p in cli.iterdir() if p.name.startswith(".")] == []  # no temporary file


def test_a_superscript_digit_in_an_answer_column_is_an_import_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "²".isdigit() holds, yet int("²") fails: it is no option number.
    rows = [
        "topic,stem,option_1,rationale_1,option_2,rationale_2,correct,explanation",
        "evaluation,Squared?,Yes,Because,No,Not so,²,Fine.",
    ]
    csv_file = tmp_path / "q.csv"
    csv_file.write_text("\n".join(rows) + "\n", encoding="utf-8")
    argv = ["import", "csv", str(csv_file), "--bank", "fx", "--out", str(tmp_path / "csv")]
    assert main(argv) == 1
    err = capsys.readouterr().err.splitlines()
    assert (
        f"{csv_file}:2: correct: '²' is neither a letter (A, B, ...) nor an option number" in err
    )

    note = (1004, fx.MCQ_TYPE, "", ("Which?", "A. One thing<br>B. Another", "²", "", ""))
    deck = fx.apkg(tmp_path / "deck.apkg", [note])
    maps = ["--map", "Question=stem", "--map", "Choices=options", "--map", "Correct=answer"]
    argv = ["import", "anki", str(deck), "--bank", "fx", "--out", str(tmp_path / "anki"), *maps]
    assert main(argv) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"{deck}: note 1004: answer: '²' is no option's letter, number or text"


def test_a_superscript_digit_in_a_size_or_a_jump_is_refused_like_any_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = one_line(capsys, "simulate", "--bank", "generated-²", code=2)
    assert line == "quizbot: generated-²: expected generated-N with N from 10 to 5000"


async def test_a_superscript_jump_in_a_terminal_mock_exam_is_not_a_crash(tmp_path: Path) -> None:
    catalog = Catalog({"mockbank": mock_bank.three_topics()})
    out = io.StringIO()
    stdin = io.StringIO("g ²\nq\n")
    assert await play_mock(catalog, database(tmp_path / "t.sqlite3"), None, True, stdin, out) == 0
    assert "[Question 1/3" in out.getvalue() and "? letters to answer" in out.getvalue()


@pytest.mark.sqlite_only("the target is a SQLite file the copy creates")
def test_a_failed_copy_leaves_no_target_behind(
    cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = cli / "adir"
    folder.mkdir()
    behind = cli / "behind.sqlite3"
    prepare_database(behind)
    factories.execute(behind, "DELETE FROM schema_migrations WHERE name = '0026_leases'")
    sources = {
        "a directory": (str(folder), f"not copied: the source {folder} is a directory"),
        "random bytes": (
            str(random_file(cli / "random.sqlite3")),
            f"cannot read the source {cli / 'random.sqlite3'}: file is not a database",
        ),
        "no file": (str(cli / "none.sqlite3"), "does not exist"),
        # Refused once the target is migrated: it was made by this copy, so it goes again.
        "behind": (str(behind), "lacks migrations 0026_leases"),
        "newer": (str(newer_database(cli / "newer.sqlite3")), NEWER),
    }
    target = cli / "new" / "deeper" / "copy.sqlite3"
    for name, (source, said) in sources.items():
        line = one_line(capsys, "db", "copy", "--from", source, "--to", str(target))
        assert said in line, (name, line)
        assert not (cli / "new").exists(), name
    assert not (cli / "none.sqlite3").exists()  # a missing source is not created either
    # A target that was there before the failed copy stays as it was.
    prepare_database(target)
    factories.execute(
        target, "INSERT INTO bot_status (key, value, updated_at) VALUES ('x', 'y', 0)"
    )
    line = one_line(capsys, "db", "copy", "--from", str(behind), "--to", str(target))
    assert "lacks migrations 0026_leases" in line
    assert factories.rows(target, "SELECT key FROM bot_status") == [("x",)]


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "--user", "99999999999999999999999"],
        ["export", "--chat", "-99999999999999999999999", "--out", "results.csv"],
        ["stats", "--user", "12ab"],
    ],
    ids=["stats past 64 bits", "export past 64 bits", "not a number"],
)
def test_an_id_no_telegram_chat_can_have_is_an_argument_error(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    # Past 64 bits the database driver raised OverflowError with a traceback.
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "is not a Telegram id" in err.splitlines()[-1]
