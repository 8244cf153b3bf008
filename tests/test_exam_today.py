"""An exam sat today is a valid exam date, for /exam and the JSON-lines driver alike."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests import factories
from tests.botharness import running_bot
from tests.test_play_jsonl import START, talk

ANN = factories.user(611, "Ann")
ANN_CHAT = factories.private_chat(ANN)


async def test_exam_today_is_set_kindly_and_yesterday_is_refused(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        today = dt.datetime.fromtimestamp(h.clock.now(), dt.UTC).date()
        await h.feed(factories.command(f"/exam {today.isoformat()}", ANN, ANN_CHAT))
        text = h.api.last_text(ANN["id"]) or ""
        assert f"Exam date set: {today.isoformat()} — today. Good luck!" in text
        await h.feed(factories.command("/exam", ANN, ANN_CHAT))
        assert f"{today.isoformat()} — today." in (h.api.last_text(ANN["id"]) or "")
        yesterday = today - dt.timedelta(days=1)
        await h.feed(factories.command(f"/exam {yesterday.isoformat()}", ANN, ANN_CHAT))
        refusal = h.api.last_text(ANN["id"]) or ""
        assert "has already passed: pick today or a later date" in refusal
    stored = factories.rows(h.db_path, "SELECT exam_date FROM exam_dates")
    assert stored == [(today.isoformat(),)]


async def test_jsonl_follows_the_same_rule(tmp_path: Path) -> None:
    today = START.date()
    replies = await talk(
        tmp_path,
        [
            {"cmd": "exam_date", "user": 4, "date": today.isoformat()},
            {"cmd": "exam_date", "user": 5, "date": "2099-01-01"},
            {"cmd": "exam_date", "user": 6, "date": "20270301"},
        ],
    )
    assert replies[0] == {"type": "ok", "user": 4}
    assert (
        replies[1]["message"] == f"the exam date 2099-01-01 is more than two years after {today}"
    )
    assert replies[2]["message"] == '"date" must be YYYY-MM-DD or null'
