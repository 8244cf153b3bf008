"""Buttons that no longer fit: after /reset, on another message, from a withdrawn question."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests import factories
from tests.botharness import Harness, running_bot
from tests.test_private_chat import buttons, db_rows

ANN = factories.user(531, "Ann")
ANN_CHAT = factories.private_chat(ANN)


async def answered(h: Harness) -> dict[str, Any]:
    """Ann answers a /quiz question; the verdict message (with All options explained)."""
    await h.feed(factories.command("/quiz", ANN, ANN_CHAT))
    message = h.api.last_message(ANN["id"]) or {}
    await h.feed(factories.callback(buttons(message)[0][1], ANN, message))
    return h.api.message(ANN["id"], message["message_id"])


async def press(h: Harness, data: str, message: dict[str, Any]) -> str:
    h.api.clear_calls()
    await h.feed(factories.callback(data, ANN, message))
    (answer,) = h.api.calls_of("answerCallbackQuery")
    return str(answer.params.get("text", ""))


async def test_all_options_explained_after_reset_is_no_longer_valid(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        verdict = await answered(h)
        explain = dict(buttons(verdict))["All options explained"]
        await h.feed(factories.command("/reset", ANN, ANN_CHAT))
        ask = h.api.last_message(ANN["id"]) or {}
        await h.feed(factories.callback("rs:demo", ANN, ask))
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(0,)]
        sent = len(h.api.messages_to(ANN["id"]))
        text = await press(h, explain, verdict)
        assert "no longer valid" in text and "withdrawn" not in text
        assert len(h.api.messages_to(ANN["id"])) == sent  # no breakdown sent
