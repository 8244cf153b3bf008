"""A learner reports a bad question from its verdict, through the real Application on the fake
Bot API: reason, optional comment by reply, once per learner and question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.analysis.learner_reports import LearnerReport
from bot.telegram import report_digest
from bot.telegram.views.item_report_render import digest_text
from tests import factories
from tests.botharness import Harness, running_bot
from tests.test_private_chat import buttons, db_rows
from tests.test_stale_buttons import ANN, ANN_CHAT, answered, press

REPORTS = "SELECT user_id, question_id, reason, comment, option_order FROM question_reports"


async def reasons(h: Harness, verdict: dict[str, Any]) -> dict[str, str]:
    """Press ⚑ Report; the reason buttons of the message that asks why."""
    text = await press(h, dict(buttons(verdict))["⚑ Report"], verdict)
    assert text == "Why are you reporting it?"
    ask = h.api.last_message(ANN["id"]) or {}
    assert "What is wrong" in ask["text"]
    return dict(buttons(ask)) | {"message_id": ask["message_id"]}


async def test_report_with_a_comment_is_stored_with_the_order_shown(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        verdict = await answered(h)
        choice = await reasons(h, verdict)
        assert list(choice)[:5] == [
            "Wrong answer key", "Unclear or ambiguous", "Typo", "Outdated", "Other",
        ]  # fmt: skip
        ask = h.api.message(ANN["id"], int(choice["message_id"]))
        assert await press(h, choice["Wrong answer key"], ask) == (
            "Thanks: the authors will look at it."
        )
        (prompt_call,) = [
            c for c in h.api.calls_of("sendMessage") if "force_reply" in str(c.params)
        ]
        prompt = h.api.last_message(ANN["id"]) or {}
        assert "one-line comment" in prompt["text"]
        assert h.api.message(ANN["id"], ask["message_id"])["text"].startswith("⚑ Reported")
        reply = factories.text_message(
            "B is right <b>too</b>\nsecond line ignored",
            ANN,
            ANN_CHAT,
            reply_to_message=prompt,
        )
        await h.feed(reply)
        assert (h.api.last_message(ANN["id"]) or {})["text"].startswith("Thanks, your comment")
        ((user, qid, reason, comment, order),) = db_rows(h.db_path, REPORTS)
        delivered = db_rows(h.db_path, "SELECT question_id, option_order FROM deliveries")
        assert (user, reason, comment) == (ANN["id"], "key", "B is right <b>too</b>")
        assert (qid, order) == delivered[0]
        markup = prompt_call.params["reply_markup"]
        markup = json.loads(markup) if isinstance(markup, str) else markup
        assert markup["force_reply"] is True


async def test_skip_leaves_no_comment_and_other_replies_are_free_text(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        verdict = await answered(h)
        choice = await reasons(h, verdict)
        ask = h.api.message(ANN["id"], int(choice["message_id"]))
        await press(h, choice["Typo"], ask)
        prompt = h.api.last_message(ANN["id"]) or {}
        await h.feed(factories.text_message("skip", ANN, ANN_CHAT, reply_to_message=prompt))
        assert "without a comment" in (h.api.last_message(ANN["id"]) or {})["text"]
        # A reply to a message that is no report's prompt is plain free text.
        await h.feed(factories.text_message("hello", ANN, ANN_CHAT, reply_to_message=verdict))
        assert "without a comment" not in (h.api.last_message(ANN["id"]) or {})["text"]
        assert db_rows(h.db_path, "SELECT reason, comment FROM question_reports") == [
            ("typo", None)
        ]


async def test_repeated_and_forged_presses_are_answered_politely(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        verdict = await answered(h)
        choice = await reasons(h, verdict)
        ask = h.api.message(ANN["id"], int(choice["message_id"]))
        await press(h, choice["Outdated"], ask)
        sent = len(h.api.messages_to(ANN["id"]))
        already = "You have reported this question already. Thank you!"
        assert await press(h, choice["Other"], ask) == already  # a second reason
        assert await press(h, dict(buttons(verdict))["⚑ Report"], verdict) == already
        delivery_id = int(choice["Other"].split(":")[1])
        forged = await press(h, f"rw:{delivery_id + 50}:key", ask)
        assert "no longer valid" in forged
        assert "older copy" in await press(h, f"rw:{delivery_id}:key:zzzz", ask)
        assert len(h.api.messages_to(ANN["id"])) == sent
        assert db_rows(h.db_path, "SELECT reason FROM question_reports") == [("outdated",)]


async def test_admins_get_one_daily_message_listing_new_reports(tmp_path: Path) -> None:
    async with running_bot(tmp_path, admins=frozenset({900})) as h:
        (job,) = h.app.job_queue.get_jobs_by_name(report_digest.DIGEST_JOB)
        assert "hour='8'" in str(job.job.trigger)  # daily, at DIGEST_AT
        assert await report_digest.send_digest(h.app.bot, h.services) == 0  # nothing new
        verdict = await answered(h)
        choice = await reasons(h, verdict)
        ask = h.api.message(ANN["id"], int(choice["message_id"]))
        await press(h, choice["Unclear or ambiguous"], ask)
        prompt = h.api.last_message(ANN["id"]) or {}
        await h.feed(
            factories.text_message("A & B <both>", ANN, ANN_CHAT, reply_to_message=prompt)
        )
        h.api.clear_calls()
        assert await report_digest.send_digest(h.app.bot, h.services) == 1
        (sent,) = h.api.calls_of("sendMessage")
        assert sent.params["chat_id"] in (900, "900")
        text = str(sent.params["text"])
        (qid,) = db_rows(h.db_path, "SELECT question_id FROM question_reports")[0]
        assert f"<code>{qid}</code>" in text and "unclear or ambiguous" in text
        assert "A &amp; B &lt;both&gt;" in text  # escaped for HTML parse mode
        h.api.clear_calls()
        assert await report_digest.send_digest(h.app.bot, h.services) == 0  # listed once
        assert h.api.calls_of("sendMessage") == []


async def test_without_admins_reports_wait_for_a_digest(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        verdict = await answered(h)
        choice = await reasons(h, verdict)
        await press(h, choice["Other"], h.api.message(ANN["id"], int(choice["message_id"])))
        assert await report_digest.send_digest(h.app.bot, h.services) == 0
        assert db_rows(h.db_path, "SELECT digested_at FROM question_reports") == [(None,)]


async def test_admins_report_command_lists_reported_questions(tmp_path: Path) -> None:
    admin = factories.user(900, "Ops")
    async with running_bot(tmp_path, admins=frozenset({900})) as h:
        verdict = await answered(h)
        choice = await reasons(h, verdict)
        await press(h, choice["Typo"], h.api.message(ANN["id"], int(choice["message_id"])))
        (qid,) = db_rows(h.db_path, "SELECT question_id FROM question_reports")[0]
        await h.feed(factories.command("/report", admin, factories.private_chat(admin)))
        texts = [m.get("text", "") for m in h.api.messages_to(900)]  # and the document
        (listing,) = [t for t in texts if "Learners' reports" in t]
        assert f"{qid} · 1 learner · typo" in listing


def test_the_digest_fits_one_message_however_many_reports() -> None:
    reports = [
        LearnerReport(i, i, i, "demo", f"q{i % 40}", None, "other", "x" * 200 + " <&>", 1.0 * i)
        for i in range(400)
    ]
    text = digest_text(reports, {"demo": "Demo <bank>"})
    assert len(text) <= 4096 and "more questions" in text
    assert "<bank>" not in text and "&lt;&amp;&gt;" in text
