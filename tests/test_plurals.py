"""One plural rule in every text: '1 answer', '2 answers', '1 day', in the chat and the CLI."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot.bank.models import Bank
from bot.cli import main
from bot.plural import plural
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from tests import factories, groups_support, item_model, mock_bank, sample_bank
from tests.backend import database_env
from tests.botharness import running_bot
from tests.groups_support import GROUP, right_option
from tests.ops_support import write_bank
from tests.test_play_jsonl import talk
from tests.test_readiness_chat import ANN, ANN_CHAT, practise


def test_plural_counts_one_apart_from_the_rest() -> None:
    assert [plural(n, "answer") for n in (0, 1, 2)] == ["0 answers", "1 answer", "2 answers"]
    assert plural(1, "day") == "1 day" and plural(3, "day") == "3 days"
    assert plural(2, "quiz", "quizzes") == "2 quizzes"


async def one_answer(tmp_path: Path, bank: Bank) -> str:
    """Ann answers once; the text of her /ready."""
    # The stats command reads the real clock: answer now, so that the answer is in its 30 days.
    async with running_bot(tmp_path, bank, clock=FakeClock(time.time())) as h:
        await practise(h, 1)
        await h.feed(factories.command("/ready", ANN, ANN_CHAT))
        return h.api.last_text(ANN["id"]) or ""


async def test_ready_after_one_answer_reads_singular(tmp_path: Path) -> None:
    ready = await one_answer(tmp_path, mock_bank.three_topics())
    assert "(1 answer so far)" in ready and "1 answers" not in ready
    assert "• 39 more answers" in ready


def test_stats_command_after_one_answer_reads_singular(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = mock_bank.three_topics()
    asyncio.run(one_answer(tmp_path, bank))
    monkeypatch.setenv("QUIZBOT_DB", database_env(tmp_path / "bot.sqlite3"))
    monkeypatch.setenv("QUIZBOT_QUESTIONS", str(write_bank(tmp_path / "banks", bank)))
    assert main(["stats", "--user", str(ANN["id"])]) == 0
    out = capsys.readouterr().out
    assert "Not enough evidence: 1 answer (39 more needed)" in out
    assert "Last 30 days: 1 answer, " in out and " on 1 day\n" in out


async def test_export_of_one_member_says_member_in_the_caption_and_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = sample_bank.bank([sample_bank.question(f"q{i}", "alpha") for i in range(3)])
    async with running_bot(tmp_path, bank) as h:
        groups_support.setup_admin(h)
        message = await groups_support.ask(h)
        question = groups_support.question_of(h, groups_support.delivery_of(message))
        await groups_support.tap(h, groups_support.ANN, message, right_option(question))
        await h.feed(factories.command("/export@quizbot_test_bot", groups_support.ADMIN, GROUP))
        [(sent, _)] = h.api.documents_to(groups_support.GROUP_ID)
        db_path = h.db_path
    assert ": 1 member, one row each." in sent["caption"]
    assert "(s)" not in sent["caption"]

    monkeypatch.setenv("QUIZBOT_QUESTIONS", str(write_bank(tmp_path / "banks", bank)))
    out = tmp_path / "results.csv"
    chat = str(groups_support.GROUP_ID)
    args = ["export", "--chat", chat, "--out", str(out), "--db", database_env(db_path)]
    assert await asyncio.to_thread(main, args) == 0  # the command runs its own event loop
    assert f"{out}: 1 member of chat {chat}\n" == capsys.readouterr().out


def test_report_of_one_learner_says_learner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("QUIZBOT_DB", "QUIZBOT_QUESTIONS"):
        monkeypatch.delenv(name, raising=False)
    bank = item_model.make_bank([item_model.question("q1", "alpha")], bank_id="demo")
    banks = item_model.write_bank(bank, tmp_path / "banks" / "demo")
    conn = item_model.new_database(tmp_path / "a.db")
    item_model.insert_rows(conn, bank.id, [item_model.Row(1, "q1", "alpha", (0,), True, 100, 900)])
    conn.close()
    with factories.blocking(tmp_path / "a.db") as db:
        db.execute(
            "INSERT INTO question_reports (delivery_id, user_id, bank_id, question_id,"
            " option_order, reason, comment, reported_at) VALUES (1, 1, 'demo', 'q1',"
            " '0,1,2,3', 'typo', NULL, 1000.0)"
        )
    args = ["report", "--format", "text", "--db", database_env(tmp_path / "a.db")]
    assert main([*args, "--questions", str(banks)]) == 0
    text = capsys.readouterr().out
    assert "1 learner, 1 first attempt; " in text
    assert "  q1: 1 learner, typo" in text
    assert "(s)" not in text and "1 learners" not in text


async def test_jsonl_wrong_count_on_a_one_answer_question_says_option(tmp_path: Path) -> None:
    catalog = Catalog({"demo": sample_bank.bank([sample_bank.question("one")])})
    _, wrong = await talk(
        tmp_path,
        [{"cmd": "next"}, {"cmd": "answer", "delivery": 1, "chosen": [0, 1]}],
        catalog=catalog,
    )
    assert wrong == {"type": "error", "user": 1, "message": "this question asks for 1 option"}
