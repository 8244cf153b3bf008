"""One plural rule in every text: '1 answer', '2 answers', '1 day', in the chat and the CLI."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot.bank.models import Bank
from bot.cli import main
from bot.plural import plural
from bot.practice.clock import FakeClock
from tests import factories, mock_bank
from tests.backend import database_env
from tests.botharness import running_bot
from tests.ops_support import write_bank
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
