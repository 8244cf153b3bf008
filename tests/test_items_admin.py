"""/report in Telegram: the worst-flagged questions for operators, the HTML report as a file."""

from __future__ import annotations

from pathlib import Path

import pytest
from telegram.error import BadRequest

from bot.analysis.admin import AdminReport, WorstQuestion
from bot.analysis.model import Status
from bot.analysis.render_html import render_html
from bot.bank.models import Bank
from bot.learning.forgetting import QueueMode, memory_check
from bot.learning.memory import DEFAULT_WEIGHTS
from bot.storage.item_sql import read_item_report
from bot.telegram.outbound.documents import DOCUMENT_BYTES_LIMIT, TooLarge, send_file
from bot.telegram.views.item_report_render import report_caption, report_text
from tests import factories
from tests.backend import database
from tests.botharness import Harness, running_bot
from tests.fakes import FakeBotApi, make_application
from tests.fakes.validation import html_to_plain
from tests.item_model import Item, Model, insert_rows, make_bank, question

BOSS = factories.user(900, "Boss")
ANN = factories.user(701, "Ann")


def _bank() -> Bank:
    questions = [question(f"q{i}", ("alpha", "beta")[i % 2]) for i in range(8)]
    # The stem and id carry HTML so escaping is checked on the way to Telegram.
    questions.append(question("mk", "alpha", stem="Which <b>tag</b> & why?"))
    return make_bank(questions, bank_id="demo")


def _answers(h: Harness, bank: Bank, learners: int = 120) -> None:
    """First attempts generated from a known model in the bot's own database: question `mk`
    is mis-keyed (strong learners pick option C, the file says A)."""
    model = Model(bank, {"mk": Item(true_key=(2,)), **{f"q{i}": Item(a=2.5) for i in range(8)}})
    with factories.blocking(h.db_path) as conn:
        insert_rows(conn, bank.id, model.rows(learners, per_learner=len(bank.questions)))


async def _say(h: Harness, text: str, user: factories.JSON) -> None:
    await h.feed(factories.command(text, user, factories.private_chat(user)))


async def test_report_lists_a_flagged_question_and_sends_the_html(tmp_path: Path) -> None:
    bank = _bank()
    async with running_bot(tmp_path, bank, admins=frozenset({900})) as h:
        _answers(h, bank)
        await _say(h, "/report", BOSS)
        (text_message,) = [m for m in h.api.messages_to(BOSS["id"]) if "text" in m]
        text = text_message["text"]
        assert text.startswith("📋 Item analysis · Bank demo")
        assert "120 learners, 1080 first attempts" in text
        # No fit stored yet: FSRS-6's defaults, on which a first memory lasts days, not a week.
        assert "Memory model: FSRS-6's defaults (no fit yet)" in text
        assert "Study order: standard (new questions at the exam date's pace" in text
        # The mis-keyed question comes first, with its flag in words.
        first = text.split("1. ", 1)[1].split("\n2. ", 1)[0]
        assert first.startswith("mk · alpha · n=120 (firm)")
        assert "likely mis-keyed: option C" in first
        (document, data), *others = h.api.documents_to(BOSS["id"])
        assert not others
        assert document["document"]["file_name"] == "item-analysis-demo.html"
        assert document["caption"].startswith("Item analysis of Bank demo")
        html = data.decode("utf-8")
        assert html.startswith("<!doctype html>") and "likely mis-keyed" in html
        # Exactly the report `quizbot report --format html` writes for this database.
        assert html == render_html(read_item_report(database(h.db_path), bank))
        assert "Which &lt;b&gt;tag&lt;/b&gt; &amp; why?" in html  # the stem, escaped


async def test_report_is_refused_to_others_and_says_when_nothing_is_flagged(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, _bank(), admins=frozenset({900})) as h:
        await _say(h, "/report", ANN)
        assert "for the bot's operators" in (h.api.last_text(ANN["id"]) or "")
        assert not h.api.documents_to(ANN["id"])
        await _say(h, "/report", BOSS)  # no answers yet
        assert "No question is flagged" in (h.api.last_text(BOSS["id"]) or "")
        assert len(h.api.documents_to(BOSS["id"])) == 1


def _worst(i: int, flags: int) -> WorstQuestion:
    flag = "likely mis-keyed: <option> & " + "word " * 200
    return WorstQuestion(f"q<{i}>", "t&t", 150, 0.5, -0.1, Status.FIRM, (flag,) * flags)


def test_report_text_fits_telegram_and_escapes_everything() -> None:
    report = AdminReport("b", 10, 100, 5, tuple(_worst(i, 9) for i in range(5)), (), b"", "f.html")
    weights = list(DEFAULT_WEIGHTS)
    weights[2] = 6.0  # a first right answer lasts about 6 days at 90%: over a week at 85%
    check = memory_check(tuple(weights), 1312)
    assert check.mode is QueueMode.COVER
    text = report_text(report, "Bank <&>", check)
    assert "fitted to 1312 spaced reviews; a first right answer stays above 85% recall" in text
    assert "cover first (first memories outlast a week)" in text
    assert len(text) <= 4096
    plain = html_to_plain(text)  # raises on a tag Telegram would refuse
    assert "Bank <&>" in plain and "q<0>" in plain and "and 5 more" in plain
    assert plain.rstrip().endswith("open it in a browser.")
    caption = report_caption("x" * 2000)
    assert len(html_to_plain(caption)) <= 1024


async def test_send_file_keeps_telegram_limits() -> None:
    api = FakeBotApi()
    async with make_application(api) as app:
        with pytest.raises(TooLarge):
            await send_file(app.bot, 5, b"x" * (DOCUMENT_BYTES_LIMIT + 1), "big.html", "c")
        with pytest.raises(BadRequest, match="caption is too long"):
            await send_file(app.bot, 5, b"<p>hi</p>", "a.html", "c" * 1025)
        message = await send_file(app.bot, 5, b"<p>hi</p>", "a.html", "<b>ok</b>")
        assert message.document is not None and message.document.file_name == "a.html"
        assert api.documents_to(5)[0][1] == b"<p>hi</p>"
    assert api.count("sendDocument") == 2  # the oversized file never left the bot
