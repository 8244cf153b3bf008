"""/export in a group (admins only) sends the members' results as CSV; `quizbot export --chat`
writes the same file. Read back with Python's csv module and checked cell by cell."""

from __future__ import annotations

import asyncio
import csv
import datetime as dt
import io
from pathlib import Path

import pytest

from bot.bank.models import Question
from bot.cli import main
from bot.practice.group_results import neutralised
from tests import factories, sample_bank
from tests.backend import database_env
from tests.botharness import running_bot
from tests.groups_support import (
    ADMIN,
    ANN,
    BOB,
    GROUP,
    GROUP_ID,
    ask,
    delivery_of,
    question_of,
    right_option,
    setup_admin,
    tap,
    wrong_option,
)
from tests.ops_support import write_bank

NO_PACE = {"QUIZBOT_GROUP_QUIZ_COOLDOWN_SECONDS": 0, "QUIZBOT_GROUP_MIN_OPEN_SECONDS": 0}
BANK = sample_bank.bank(
    [sample_bank.question(f"q{i}", "alpha" if i % 2 else "beta") for i in range(6)]
)
# A member whose name a spreadsheet would run as a formula.
EVE = factories.user(705, '=HYPERLINK("http://example.invalid","x")', "eve_s")
HEADER = [
    "name",
    "username",
    "user id",
    "answers",
    "right",
    "accuracy %",
    # In the bank's topic order.
    *(f"{t.name} accuracy %" for t in BANK.meta.topics),
    "last active",
]


def test_neutralised_quotes_every_formula_start() -> None:
    for start in ("=", "+", "-", "@", "\t", "\r"):
        assert neutralised(start + "1") == "'" + start + "1"
    assert neutralised("Ann") == "Ann"
    assert neutralised("") == ""


async def test_export_sends_one_row_per_member(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_bot(tmp_path, BANK, **NO_PACE) as h:
        setup_admin(h)
        h.api.set_member_status(GROUP_ID, EVE["id"], "member", EVE)
        asked: list[Question] = []
        for round_no in range(4):
            message = await ask(h)
            question = question_of(h, delivery_of(message))
            asked.append(question)
            await tap(h, ANN, message, right_option(question))
            pick = right_option(question) if round_no % 2 else wrong_option(question)
            await tap(h, BOB, message, pick)
            if round_no == 0:
                await tap(h, EVE, message, wrong_option(question))
            h.clock.advance(60)

        # A member is refused and no file goes out; the admin gets the document.
        await h.feed(factories.command("/export@quizbot_test_bot", BOB, GROUP))
        assert "only the group's admins" in (h.api.last_text(GROUP_ID) or "")
        assert h.api.documents_to(GROUP_ID) == []
        await h.feed(factories.command("/export@quizbot_test_bot", ADMIN, GROUP))
        documents = h.api.documents_to(GROUP_ID)
        assert len(documents) == 1
        message, data = documents[0]
        assert message["document"]["file_name"].endswith(".csv")
        assert "Exam prep" in message["caption"] and "3 members," in message["caption"]
        db_path = h.db_path
        last_at = h.clock.now() - 60

    assert data.startswith(b"\xef\xbb\xbf")  # the BOM Excel needs to read UTF-8
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    assert rows[0] == HEADER

    def accuracy(right: int, total: int) -> str:
        return f"{100 * right / total:.1f}" if total else ""

    def topic_cells(right_rounds: set[int], rounds: set[int]) -> list[str]:
        cells = []
        for topic in (t.id for t in BANK.meta.topics):
            mine = {i for i in rounds if asked[i].topic == topic}
            cells.append(accuracy(len(mine & right_rounds), len(mine)))
        return cells

    when = dt.datetime.fromtimestamp(last_at, dt.UTC).strftime("%Y-%m-%d %H:%M")
    first = dt.datetime.fromtimestamp(last_at - 180, dt.UTC).strftime("%Y-%m-%d %H:%M")
    everyone = {0, 1, 2, 3}
    assert rows[1] == ["Ann", "", "702", "4", "4", "100.0", *topic_cells(everyone, everyone), when]
    assert rows[2] == ["Bob", "", "703", "4", "2", "50.0", *topic_cells({1, 3}, everyone), when]
    # Eve's name is kept, with the apostrophe that stops a spreadsheet from evaluating it.
    assert rows[3] == [
        "'" + EVE["first_name"],
        "eve_s",
        "705",
        "1",
        "0",
        "0.0",
        *topic_cells(set(), {0}),
        first,
    ]
    assert len(rows) == 4

    # The command line writes the same bytes from the same database.
    monkeypatch.setenv("QUIZBOT_QUESTIONS", str(write_bank(tmp_path / "banks", BANK)))
    monkeypatch.setenv("QUIZBOT_TIMEZONE", "UTC")
    out = tmp_path / "results.csv"
    args = ["export", "--chat", str(GROUP_ID), "--out", str(out), "--db", database_env(db_path)]
    assert await asyncio.to_thread(main, args) == 0  # the command runs its own event loop
    assert out.read_bytes() == data
    assert "3 members of chat" in capsys.readouterr().out


def test_export_needs_a_format_or_a_chat(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--out", "x.csv"]) == 2
    assert "needs a format (moodle, gift) or --chat ID" in capsys.readouterr().err
    assert main(["export", "gift", "--out", "x.gift"]) == 2
    assert "export gift needs --bank ID" in capsys.readouterr().err
    assert main(["export", "gift", "--chat", "-100", "--out", "x.gift"]) == 2
    assert "--chat goes without a format" in capsys.readouterr().err
