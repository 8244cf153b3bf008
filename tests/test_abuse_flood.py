"""Flood control: one user's flood, while Telegram answers 429 for their chat, neither holds
the update slots nor stalls anyone else; the flooder is told once to slow down."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from telegram import Update

from bot.storage import inbox_sql
from bot.telegram.outbound import send
from bot.telegram.outbound.flood import FloodGate, Verdict
from bot.telegram.views import texts
from tests import factories
from tests.botharness import Harness, running_bot
from tests.groups_support import db_rows

FLOODER = factories.user(801, "Flo")
OTHER = factories.user(802, "Ola")


def private(user: dict[str, Any]) -> dict[str, Any]:
    return factories.private_chat(user)


async def wait_for(h: Harness, chat_id: int, within: float = 10.0) -> dict[str, Any]:
    """The first message the bot sent to chat_id, waiting for the running app to send it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not h.api.messages_to(chat_id):
        assert loop.time() < deadline, f"nothing sent to {chat_id} in {within} s"
        await asyncio.sleep(0.01)
    return h.api.messages_to(chat_id)[0]


def slow_downs(h: Harness, chat_id: int) -> int:
    return sum(1 for m in h.api.messages_to(chat_id) if m.get("text") == texts.SLOW_DOWN)


async def test_one_users_flood_under_429_does_not_hold_back_another_users_quiz(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        h.api.rate_limit(retry_after=5, times=100_000, chat_id=FLOODER["id"])
        await h.app.start()  # the real update queue and its 32 concurrent slots
        try:
            for i in range(300):
                text = "/quiz" if i % 2 else "hello?"
                payload = (factories.command if i % 2 else factories.text_message)(
                    text, FLOODER, private(FLOODER)
                )
                await h.app.update_queue.put(Update.de_json(payload, h.app.bot))
            other = factories.command("/quiz", OTHER, private(OTHER))
            await h.app.update_queue.put(Update.de_json(other, h.app.bot))
            reply = await wait_for(h, OTHER["id"])
            # The flooder's replies still wait out their 429 in the background, not in a slot.
            assert send.pending_retries() > 0
        finally:
            await h.app.stop()
        assert reply.get("reply_markup"), "the other user got their question with its buttons"
        # Work stopped at the gate: the burst was served, the rest never picked a question.
        questions = db_rows(
            h.db_path, "SELECT COUNT(*) FROM deliveries WHERE user_id = ?", (FLOODER["id"],)
        )[0][0]
        assert questions <= h.services.settings.flood_burst
        attempts = h.api.count("sendMessage", FLOODER["id"])
        assert attempts <= h.services.settings.flood_burst + 1  # the burst replies + 1 notice
        notices = [
            c
            for c in h.api.calls_of("sendMessage")
            if c.params.get("chat_id") == FLOODER["id"] and c.params.get("text") == texts.SLOW_DOWN
        ]
        assert len(notices) == 1


async def test_slow_down_is_said_once_per_flood_and_again_after_a_pause(tmp_path: Path) -> None:
    async with running_bot(tmp_path, QUIZBOT_FLOOD_BURST=3, QUIZBOT_FLOOD_PER_MINUTE=6) as h:
        for _ in range(10):
            await h.feed(factories.text_message("hi", FLOODER, private(FLOODER)))
        assert slow_downs(h, FLOODER["id"]) == 1
        hints = [m for m in h.api.messages_to(FLOODER["id"]) if m.get("text") == texts.FREE_TEXT]
        assert len(hints) == 3  # the burst got its answers, nothing more
        # A button flood is answered in the spinner once, then ignored.
        for _ in range(3):
            await h.feed(
                factories.callback(
                    "n:1", FLOODER, {"message_id": 1, "chat": private(FLOODER), "date": 0}
                )
            )
        answers = [c.params.get("text") for c in h.api.calls_of("answerCallbackQuery")]
        assert answers == []  # still the same flood: already told
        # 30 s later the bucket is full again: a new flood earns a new notice.
        h.clock.advance(30)
        for _ in range(5):
            await h.feed(factories.text_message("hi", FLOODER, private(FLOODER)))
        assert slow_downs(h, FLOODER["id"]) == 2
        # Another user was never limited.
        await h.feed(factories.command("/quiz", OTHER, private(OTHER)))
        assert h.api.messages_to(OTHER["id"])


def test_token_bucket_refills_at_its_rate() -> None:
    gate = FloodGate(burst=2, per_minute=60)
    assert [gate.check(1, 0.0) for _ in range(4)] == [
        Verdict.PASS,
        Verdict.PASS,
        Verdict.WARN,
        Verdict.DROP,
    ]
    assert gate.check(1, 1.0) is Verdict.PASS  # one token a second
    assert gate.check(1, 1.0) is Verdict.DROP
    assert gate.check(2, 1.0) is Verdict.PASS  # buckets are per sender
    assert gate.check(1, 0.5) is Verdict.DROP  # a clock set back gives nothing
    assert FloodGate(burst=0, per_minute=60).check(1, 0.0) is Verdict.PASS  # off


async def test_a_429_reply_is_sent_by_the_background_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = asyncio.Event()

    async def held_sleep(seconds: float) -> None:
        await release.wait()

    monkeypatch.setattr(send, "_sleep", held_sleep)
    async with running_bot(tmp_path) as h:
        h.api.rate_limit(retry_after=3, times=1, chat_id=OTHER["id"])
        await h.feed(factories.command("/quiz", OTHER, private(OTHER)))
        assert h.api.messages_to(OTHER["id"]) == []  # the handler returned without waiting
        assert send.pending_retries() == 1
        release.set()
        for _ in range(100):
            if send.pending_retries() == 0:
                break
            await asyncio.sleep(0.01)
        [question] = h.api.messages_to(OTHER["id"])
        # The background send attached the message to its delivery like a direct one would.
        assert db_rows(h.db_path, "SELECT message_id FROM deliveries") == [
            (question["message_id"],)
        ]


async def test_a_long_429_drops_the_stale_reply_with_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(tmp_path) as h:
        h.api.rate_limit(retry_after=60, times=1, chat_id=OTHER["id"])
        await h.feed(factories.command("/quiz", OTHER, private(OTHER)))
        assert send.pending_retries() == 0
        assert "reply dropped" in caplog.text


async def test_updates_taken_over_from_a_dead_process_pass_the_gate(tmp_path: Path) -> None:
    # A process died holding a learner's updates: its gate counted them when they came, so
    # the process that takes them over handles each, however many it claims at once.
    async with running_bot(tmp_path, QUIZBOT_FLOOD_BURST=2, QUIZBOT_FLOOD_PER_MINUTE=6) as h:
        inbox = h.services.inbox
        assert inbox is not None
        payloads = [
            {**factories.text_message("hi", FLOODER, private(FLOODER)), "update_id": 900 + i}
            for i in range(5)
        ]
        dead = "this-host-no-more:1:dead"
        await inbox.db.write(
            lambda c: inbox_sql.receive(
                c,
                [(p["update_id"], json.dumps(p)) for p in payloads],
                h.clock.now(),
                dead,
                0.0,  # its lease long lapsed
            )
        )
        claimed = await inbox.sweep()
        assert [u["update_id"] for u in claimed] == [900 + i for i in range(5)]
        for update in claimed:
            await h.feed(update)
        hints = [m for m in h.api.messages_to(FLOODER["id"]) if m.get("text") == texts.FREE_TEXT]
        assert len(hints) == 5
        assert slow_downs(h, FLOODER["id"]) == 0
        # The learner's own next updates meet the gate as before.
        for _ in range(4):
            await h.feed(factories.text_message("hi", FLOODER, private(FLOODER)))
        assert slow_downs(h, FLOODER["id"]) == 1
