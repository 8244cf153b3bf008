"""/stats sends its chart as part of the reply: rendered first (an upload_photo action while it
renders), the text as the chart's caption when it fits, else the text and then the chart, with
no reply to a later command in between."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.bank.loader import load_bank
from tests import factories, mock_bank
from tests.botharness import Harness, running_bot
from tests.test_readiness_chat import ANN, ANN_CHAT, practise

BUNDLED = Path(__file__).resolve().parent.parent / "questions" / "genai-llm"


async def stats_then_help(h: Harness) -> list[str]:
    """/stats, and /help as soon as /stats shows anything (its chat action, or a message): what
    the chat shows after, oldest first: a text, or '<photo>' and its caption."""
    h.api.clear_calls()
    before = len(h.api.messages_to(ANN["id"]))
    stats = asyncio.create_task(h.feed(factories.command("/stats", ANN, ANN_CHAT)))
    while not (h.api.calls_of("sendChatAction") or len(h.api.messages_to(ANN["id"])) > before):
        assert not stats.done()
        await asyncio.sleep(0.001)
    await h.feed(factories.command("/help", ANN, ANN_CHAT))
    await stats
    shown = []
    for m in h.api.messages_to(ANN["id"])[before:]:
        shown.append(f"<photo> {m.get('caption', '')}" if "photo" in m else m["text"])
    return shown


def actions(h: Harness) -> list[str]:
    return [c.params["action"] for c in h.api.calls_of("sendChatAction")]


async def test_short_stats_is_the_charts_caption(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await practise(h, 3)
        shown = await stats_then_help(h)
        [photo] = [i for i, s in enumerate(shown) if s.startswith("<photo>")]
        assert "🎯 Readiness" in shown[photo] and "Answered: 3" in shown[photo]
        assert shown[0].startswith("How quizbot works") and len(shown) == 2
        assert actions(h) == ["upload_photo"]
        calls = [c.method for c in h.api.calls if c.method in ("sendChatAction", "sendPhoto")]
        assert calls == ["sendChatAction", "sendPhoto"]


async def test_long_stats_text_comes_right_before_its_chart(tmp_path: Path) -> None:
    async with running_bot(tmp_path, load_bank(BUNDLED)) as h:
        await practise(h, 3)
        shown = await stats_then_help(h)
        [photo] = [i for i, s in enumerate(shown) if s.startswith("<photo>")]
        assert shown[0].startswith("How quizbot works")  # it came while the chart rendered
        assert photo == 2 and "Readiness" in shown[1]  # then the text, and its chart
        assert "Predicted score per topic" in shown[photo]
        assert len(shown) == 3 and actions(h) == ["upload_photo"]
