"""End to end: one short mock exam through `quizbot run` against the fake Bot API over HTTP."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests import factories
from tests.botprocess import BotProcess
from tests.fakes import FakeBotApi, FakeBotApiServer

pytestmark = pytest.mark.slow

MIA = factories.user(7101, "Mia")
MIA_CHAT = factories.private_chat(MIA)


def keyboard(message: dict[str, Any]) -> dict[str, str]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return {b["text"]: b["callback_data"] for row in rows for b in row}


def latest_with(api: FakeBotApi, words: str) -> dict[str, Any] | None:
    found = [m for m in api.messages_to(MIA["id"]) if words in m.get("text", "")]
    return found[-1] if found else None


def test_short_mock_exam_to_result_chart_and_review(tmp_path: Path) -> None:
    with FakeBotApiServer() as server, BotProcess(server, tmp_path) as bot:
        api = server.api
        server.wait_for(lambda a: a.count("getUpdates") >= 1, timeout=20)
        # The menus are set in the background: they may come after the first poll.
        menu = server.wait_for(lambda a: a.my_commands({"type": "all_private_chats"}))
        assert {"mock", "ready"} <= {c["command"] for c in menu}
        api.push_update(factories.command("/mock short", MIA, MIA_CHAT))
        screen = server.wait_for(lambda a: latest_with(a, "Question 1/18 · 31 min left"))
        api.push_update(factories.callback(keyboard(screen)["A"], MIA, screen))
        # Ticked either way; a "select two" question is not answered with one letter.
        server.wait_for(lambda a: "☑️ A." in a.message(7101, screen["message_id"])["text"])
        answered = int("Answered 1/18" in api.message(MIA["id"], screen["message_id"])["text"])
        api.push_update(factories.callback(keyboard(screen)["🏁 Finish"], MIA, screen))
        server.wait_for(
            lambda a: "Finish the exam?" in a.message(7101, screen["message_id"])["text"]
        )
        confirm = api.message(MIA["id"], screen["message_id"])
        api.push_update(factories.callback(keyboard(confirm)["🏁 Finish now"], MIA, confirm))
        server.wait_for(lambda a: len(a.photos_to(MIA["id"])) == 1)
        result = latest_with(api, "Mock exam: ")
        assert result is not None and "(pass mark 70%)" in result["text"]
        photo, png = api.photos_to(MIA["id"])[0]
        assert Image.open(io.BytesIO(png)).size[0] == 1000
        review = next(d for t, d in keyboard(photo).items() if t.startswith("🔎 Review"))
        api.push_update(factories.callback(review, MIA, photo))
        server.wait_for(lambda a: latest_with(a, "Mistake 1/"))
        assert bot.stop() == 0
    assert factories.rows(bot.db, "SELECT status, size FROM mock_exams") == [("finished", 18)]
    (answers,) = factories.one(bot.db, "SELECT COUNT(*) FROM answers")
    assert answers == answered
