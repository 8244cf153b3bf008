"""`quizbot backup` while answers are being written, and `quizbot health`."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.health import check
from bot.storage.sqlite.database import connect_sync, run_transaction
from bot.storage.sqlite.migrations import apply_migrations
from bot.telegram import status
from bot.telegram.context import QuizContext
from tests import factories, sample_bank
from tests.botharness import running_bot
from tests.ops_support import write_bank


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """QUIZBOT_DB and QUIZBOT_QUESTIONS for the CLI; cwd away from any developer .env."""
    monkeypatch.chdir(tmp_path)
    for name in ("BOT_TOKEN", "QUIZBOT_ADMINS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("QUIZBOT_DB", str(tmp_path / "bot.sqlite3"))
    monkeypatch.setenv(
        "QUIZBOT_QUESTIONS", str(write_bank(tmp_path / "banks", sample_bank.bank()))
    )
    return tmp_path / "bot.sqlite3"


def record_answer(conn: sqlite3.Connection, n: int) -> int:
    """One delivery and its answer, as the bot writes them (one transaction)."""
    cur = conn.execute(
        "INSERT INTO deliveries (chat_id, user_id, bank_id, question_id, sent_at)"
        " VALUES (?, ?, 'demo', 'a1', ?)",
        (n, n, float(n)),
    )
    delivery_id = int(cur.lastrowid or 0)
    conn.execute(
        "INSERT INTO answers (delivery_id, user_id, chat_id, bank_id, question_id, topic,"
        " chosen, correct, answered_at) VALUES (?, ?, ?, 'demo', 'a1', 'alpha', '1', 1, ?)",
        (delivery_id, n, n, float(n)),
    )
    return delivery_id


def test_backup_while_answers_are_written(
    env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with connect_sync(env) as setup:
        apply_migrations(setup)
    setup.close()
    committed: list[int] = []
    stop = threading.Event()

    def writer() -> None:
        conn = connect_sync(env)
        try:
            n = 0
            while not stop.is_set():
                n += 1
                committed.append(run_transaction(conn, lambda c, n=n: record_answer(c, n)))
        finally:
            conn.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while len(committed) < 300:
            time.sleep(0.005)
        before = set(committed)  # every answer committed before the backup starts
        code = main(["backup", str(tmp_path / "copy.sqlite3")])
        while len(committed) < len(before) + 100:  # and the bot kept writing meanwhile
            time.sleep(0.005)
    finally:
        stop.set()
        thread.join()

    assert code == 0
    out = capsys.readouterr().out
    assert "integrity_check: ok" in out and "answers" in out
    with sqlite3.connect(tmp_path / "copy.sqlite3") as copy:
        saved = {row[0] for row in copy.execute("SELECT delivery_id FROM answers")}
        deliveries = copy.execute("SELECT COUNT(*) FROM deliveries").fetchone()[0]
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    copy.close()
    assert before <= saved  # nothing committed before the backup is missing
    assert deliveries == len(saved)  # one snapshot: no delivery without its answer
    assert len(saved) < len(committed)  # the writer was really running during the backup
    assert not list(tmp_path.glob(".copy.sqlite3*"))


def test_backup_fails_without_a_database(
    env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["backup", str(tmp_path / "copy.sqlite3")]) == 1
    assert "no database" in capsys.readouterr().err
    assert not env.exists() and not (tmp_path / "copy.sqlite3").exists()


def health(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["health", *args])
    return code, json.loads(capsys.readouterr().out)


async def test_health_after_a_run(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    user = factories.user(5)
    async with running_bot(env.parent) as h:
        await h.feed(factories.command("/start", user, factories.private_chat(user)))
        h.clock.advance(2)  # within the write throttle: only the heartbeat persists it
        await h.feed(factories.command("/help", user, factories.private_chat(user)))
        await status.heartbeat(QuizContext(h.app))  # the job, run by hand
        settings = h.services.settings.model_copy(update={"questions": [env.parent / "banks"]})
        alive = check(settings, now=h.clock.now() + 10)
        assert alive["ok"] and alive["database"]["bot"]["state"] == "running"
        assert alive["database"]["bot"]["last_update_age_s"] == 10.0  # the throttled one too
        hung = check(settings, now=h.clock.now() + 1000)
        assert not hung["ok"] and "no heartbeat" in hung["database"]["bot"]["problem"]
    code, report = health(capsys)
    assert code == 0, report
    bot = report["database"]["bot"]
    assert bot["state"] == "stopped" and bot["mode"] == "polling"
    assert report["database"]["schema_version"] >= "0003_ops"
    assert report["question_banks"] == {
        "ok": True,
        "banks": {"demo": 5},
        "problems": 0,
        "first_problems": [],
    }
    assert report["database"]["push_backlog"] == {
        "pending_total": 0,
        "overdue": 0,
        "pending_today": 0,
    }


def test_health_reports_push_backlog(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    now = time.time()
    today = time.strftime("%Y-%m-%d", time.gmtime(now))
    rows = [
        (1, today, now - 60, "pending"),
        (2, today, now - 30, "sending"),
        (3, today, now - 90, "sent"),
        (4, today, now + 3600, "pending"),  # due later today: not overdue yet
        (5, "2000-01-01", 946_684_800.0, "pending"),
    ]
    with connect_sync(env) as conn:
        apply_migrations(conn)
        conn.executemany(
            "INSERT INTO push_log (chat_id, local_date, due_at, state) VALUES (?, ?, ?, ?)", rows
        )
    conn.close()
    code, report = health(capsys)
    assert code == 0
    assert report["database"]["push_backlog"] == {
        "pending_total": 4,
        "overdue": 3,
        "pending_today": 3,
    }
    assert report["database"]["bot"]["state"] == "never started"


def test_health_fails_on_missing_database_or_broken_bank(
    env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = health(capsys)
    assert code == 1 and report["database"]["error"] == "no database file"
    assert not env.exists()  # the check did not create an empty one
    with connect_sync(env) as conn:
        apply_migrations(conn)
    conn.close()
    (tmp_path / "banks" / "demo" / "bad.yaml").write_text("id: [\n")
    code, report = health(capsys)
    assert code == 1 and report["database"]["ok"] is True
    assert report["question_banks"]["ok"] is False
    assert "bad.yaml" in report["question_banks"]["first_problems"][0]
