"""`quizbot db copy`: a deployment with history, built by driving the real bot on SQLite, moved
to a real PostgreSQL (and back), after which the bot says the same; a target with rows is
refused untouched; a copy that does not read back the same is reported and rolled back."""

from __future__ import annotations

import io
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.analysis.render_text import render_text
from bot.bank.models import Bank
from bot.cli import main
from bot.commands.db import ProgressBar
from bot.config import Settings
from bot.domain.models import Learner
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.storage import db_copy
from bot.storage.db_copy import Side
from bot.storage.factory import connect_blocking, prepare_database
from bot.storage.item_sql import item_report
from bot.telegram.app import build_application
from tests import factories, mock_bank
from tests.botharness import Harness
from tests.fakes import TOKEN, FakeBotApi, FakeRequest

T0 = 1_800_000_000.0
DAY = 86_400.0
ANN = factories.user(701, "Ann")
BOB = factories.user(702, "Bob")


@asynccontextmanager
async def bot_on(db: str, tmp_path: Path, bank: Bank, now: float) -> AsyncIterator[Harness]:
    """The real app on the database `db` (a SQLite URL or a PostgreSQL one), clock at `now`."""
    api, clock = FakeBotApi(), FakeClock(now)
    settings = Settings(BOT_TOKEN=TOKEN, QUIZBOT_DB=db)  # type: ignore[call-arg]
    app = build_application(
        settings,
        Catalog({bank.id: bank}),
        request=FakeRequest(api),
        clock=clock,
        rng=random.Random(3),
        with_updater=False,
    )
    async with app:
        assert app.post_init is not None and app.post_shutdown is not None
        await app.post_init(app)
        try:
            yield Harness(app, api, clock, tmp_path)
        finally:
            await app.post_shutdown(app)


async def practise(h: Harness, user: dict[str, Any], count: int, right_every: int = 4) -> None:
    """Answer `count` practice questions through the service, three in four right."""
    learner = Learner(user["id"], user["first_name"])
    for i in range(count):
        delivery = await h.services.practice.next_delivery(user["id"], learner)
        assert delivery is not None
        q = delivery.question
        wrong = next(j for j in range(len(q.options)) if j not in q.correct_indices)
        right = i % right_every != 0
        chosen = q.correct_indices if right else frozenset({*sorted(q.correct_indices)[1:], wrong})
        await h.services.practice.answer(delivery.id, learner, user["id"], chosen)
        h.clock.advance(60)


async def what_the_bot_says(h: Harness) -> dict[str, str]:
    """/stats and /ready for both learners, as they read them."""
    said: dict[str, str] = {}
    for user in (ANN, BOB):
        chat = factories.private_chat(user)
        for command in ("/stats", "/ready"):
            await h.feed(factories.command(command, user, chat))
            said[f"{user['first_name']} {command}"] = h.api.last_words(user["id"]) or ""
    return said


def report_text(db: str, bank: Bank) -> str:
    """The item analysis of the bank (bot/analysis), rendered as text."""
    conn = connect_blocking(db)
    try:
        return render_text(item_report(conn, bank, min_n=1))
    finally:
        conn.close()


def tables_and_checksums(db: str) -> dict[str, tuple[int, str]]:
    """Every table's row count and checksum, as db copy computes them."""
    conn = connect_blocking(db)
    try:
        return Side(db, conn).fingerprint()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def bank() -> Bank:
    return mock_bank.three_topics(per_topic=20)


@pytest.fixture
async def history(tmp_path: Path, bank: Bank) -> tuple[str, float, dict[str, str]]:
    """A SQLite deployment with four days of answers by two learners and a question report;
    its URL, the clock at the end, and what the bot said then."""
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    async with bot_on(url, tmp_path, bank, T0) as h:
        for day in range(4):
            await practise(h, ANN, 14)
            if day != 1:  # a gap: Bob's streak restarts
                await practise(h, BOB, 6, right_every=3)
            h.clock.advance(DAY)
        said = await what_the_bot_says(h)
        now = h.clock.now()
    assert "Answered: 56" in said["Ann /stats"]
    assert "Predicted exam score:" in said["Ann /ready"]
    return url, now, said


async def test_a_deployment_moved_to_postgres_and_back_says_what_it_said(
    history: tuple[str, float, dict[str, str]],
    pg_url: str,
    bank: Bank,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lite, now, said = history
    before = tables_and_checksums(lite)
    assert main(["db", "copy", "--from", lite, "--to", pg_url]) == 0
    out, err = capsys.readouterr()
    rows = sum(n for n, _ in before.values())
    assert f"{len(before)} tables, {rows} rows in " in out and "checksums match" in out
    assert "  answers: 74 rows" in err  # plain lines: stderr is not a terminal here
    assert tables_and_checksums(pg_url) == before
    # And back: PostgreSQL's rows, read by the other driver, are the SQLite deployment's.
    back = f"sqlite:///{tmp_path / 'back' / 'bot.sqlite3'}"
    assert main(["db", "copy", "--from", pg_url, "--to", back]) == 0
    assert tables_and_checksums(back) == before
    report = report_text(back, bank)
    assert "first attempts" in report and report == report_text(lite, bank)
    async with bot_on(back, tmp_path / "back", bank, now) as h:
        assert await what_the_bot_says(h) == said
        # The ids continue after the copied ones: new answers are stored and counted.
        await practise(h, ANN, 2)
        assert "Answered: 58" in (await what_the_bot_says(h))["Ann /stats"]


async def test_streaks_are_copied_as_the_source_has_them_not_rebuilt_by_triggers(
    tmp_path: Path, pg_url: str
) -> None:
    lite = f"sqlite:///{tmp_path / 'runs.sqlite3'}"
    prepare_database(lite)
    conn = connect_blocking(lite)
    days = [(1, "2027-01-01"), (1, "2027-01-02"), (1, "2027-01-03"), (2, "2027-01-05")]
    conn.executemany("INSERT INTO learner_days VALUES (?, ?, 1)", days)
    # A run the triggers would not rebuild from these days: only a copy of the rows keeps it.
    conn.execute("UPDATE learner_runs SET run_start = '2026-12-30' WHERE user_id = 1")
    conn.close()
    assert main(["db", "copy", "--from", lite, "--to", pg_url]) == 0
    pg = connect_blocking(pg_url)
    runs = pg.execute("SELECT * FROM learner_runs ORDER BY user_id").fetchall()
    pg.close()
    assert [tuple(r) for r in runs] == [
        (1, "2026-12-30", "2027-01-03"),
        (2, "2027-01-05", "2027-01-05"),
    ]


async def test_ids_are_never_reused_after_the_copy(tmp_path: Path, pg_url: str) -> None:
    lite = f"sqlite:///{tmp_path / 'ids.sqlite3'}"
    prepare_database(lite)
    conn = connect_blocking(lite)
    insert = "INSERT INTO deliveries (chat_id, bank_id, question_id, sent_at)"
    insert += " VALUES (1, 'b', 'q', 0)"
    for _ in range(3):
        conn.execute(insert)
    conn.execute("DELETE FROM deliveries WHERE id = 3")  # a stale button of delivery 3 stays stale
    conn.close()
    assert main(["db", "copy", "--from", lite, "--to", pg_url]) == 0
    pg = connect_blocking(pg_url)
    new = pg.execute(insert + " RETURNING id").fetchone()[0]
    pg.close()
    assert new == 4


async def test_a_target_with_rows_is_refused_and_left_as_it_was(
    history: tuple[str, float, dict[str, str]],
    pg_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lite, _, _ = history
    pg = connect_blocking(pg_url)
    pg.execute("INSERT INTO bot_status (key, value, updated_at) VALUES ('x', 'y', 0)")
    pg.close()
    before = tables_and_checksums(pg_url)
    assert main(["db", "copy", "--from", lite, "--to", pg_url]) == 1
    err = capsys.readouterr().err
    assert "not copied: the target" in err and "is not empty: bot_status (1 rows)" in err
    assert tables_and_checksums(pg_url) == before


async def test_a_copy_that_reads_back_differently_is_reported_and_rolled_back(
    history: tuple[str, float, dict[str, str]],
    pg_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lite, _, _ = history
    copy_table = db_copy._copy_table

    def corrupting(source: Side, target: Side, table: str, *rest: Any) -> Any:
        done = copy_table(source, target, table, *rest)
        if table == "answers":  # a value changed on the way, as a faulty driver would
            target.conn.execute("UPDATE answers SET chosen = '9' WHERE id = 5")
        return done

    monkeypatch.setattr(db_copy, "_copy_table", corrupting)
    assert main(["db", "copy", "--from", lite, "--to", pg_url]) == 1
    err = capsys.readouterr().err
    assert "does not match the source in answers;" in err and "answers: checksum" in err
    assert all(n == 0 for n, _ in tables_and_checksums(pg_url).values())


def test_a_source_behind_on_migrations_is_refused(tmp_path: Path, pg_url: str) -> None:
    lite = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    prepare_database(lite)
    conn = connect_blocking(lite)
    conn.execute("DELETE FROM schema_migrations WHERE name = '0020_question_reports'")
    conn.close()
    with pytest.raises(db_copy.CopyRefused, match="lacks migrations 0020_question_reports"):
        db_copy.copy_database(lite, pg_url)


def test_values_normalise_alike_from_either_driver() -> None:
    assert db_copy.normalised(3) == db_copy.normalised(3.0) == "i3"
    assert db_copy.normalised(True) == "i1"
    assert db_copy.normalised(0.1 + 0.2) == db_copy.normalised(0.3)
    assert db_copy.normalised(None) != db_copy.normalised("") != db_copy.normalised("N")


class Terminal(io.StringIO):
    """stderr as a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_progress_bar_redraws_in_place_on_a_terminal_and_ends_each_table_on_a_line() -> None:
    out = Terminal()
    bar = ProgressBar(out)
    bar("answers", 0, 4)
    bar("answers", 4, 4)
    bar("inbox", 0, 0)
    lines = out.getvalue().split("\n")
    assert lines[0].startswith("\r  answers") and "[" + "." * 30 + "] 0/4" in lines[0]
    assert lines[0].endswith("\r  answers                [" + "#" * 30 + "] 4/4")
    assert lines[1] == "\r  inbox                  [" + "#" * 30 + "] 0/0" and lines[2] == ""


def test_a_database_is_not_copied_onto_itself(tmp_path: Path) -> None:
    path = tmp_path / "self.sqlite3"
    with pytest.raises(db_copy.CopyRefused, match="the same database"):
        db_copy.copy_database(f"sqlite:///{path}", str(tmp_path / "." / "self.sqlite3"))
    assert not path.exists()  # refused before the target was migrated (created)


async def test_the_bot_on_postgres_says_what_it_said_on_sqlite(
    history: tuple[str, float, dict[str, str]], pg_url: str, bank: Bank, tmp_path: Path
) -> None:
    lite, now, said = history
    assert main(["db", "copy", "--from", lite, "--to", pg_url]) == 0
    assert report_text(pg_url, bank) == report_text(lite, bank)
    async with bot_on(pg_url, tmp_path / "pg", bank, now) as h:
        assert await what_the_bot_says(h) == said
        # The identity sequences continue after the copied ids: new answers are stored.
        await practise(h, ANN, 2)
        assert "Answered: 58" in (await what_the_bot_says(h))["Ann /stats"]
