"""The update processor keeps one sender's updates in the order they came, while different
senders are handled side by side: a learner's quick "toggle A, toggle C, Submit" must reach
the answer in that order, whatever the database's locks do."""

from __future__ import annotations

import asyncio
from typing import Any

from telegram import Update

from bot.telegram.inbox import InboxProcessor
from tests import factories

ANN = factories.user(9002, "Ann")
BOB = factories.user(9003, "Bob")
GROUP = factories.group_chat(-1002000000001)


def tap(user: dict[str, Any], data: str) -> Update:
    message = factories.message("question", factories.user(1, "quizbot"), GROUP)
    update = Update.de_json(factories.callback(data, user, message), None)
    assert update is not None
    return update


async def handled(processor: InboxProcessor, updates: list[tuple[Update, float]]) -> list[str]:
    """Process the updates at once, the way PTB does; each handler takes its delay."""
    done: list[str] = []

    async def handle(update: Update, delay: float) -> None:
        await asyncio.sleep(delay)
        assert update.callback_query is not None
        done.append(f"{update.callback_query.from_user.first_name} {update.callback_query.data}")

    await asyncio.gather(*(processor.process_update(u, handle(u, d)) for u, d in updates))
    return done


async def test_one_senders_updates_keep_their_order() -> None:
    processor = InboxProcessor(32)
    # The first tap is the slowest to handle: without the order kept, Submit would come first.
    got = await handled(
        processor,
        [(tap(ANN, "toggle A"), 0.05), (tap(ANN, "toggle C"), 0.02), (tap(ANN, "submit"), 0)],
    )
    assert got == ["Ann toggle A", "Ann toggle C", "Ann submit"]
    assert processor._senders == {}  # nothing kept once a sender's updates are handled


async def test_different_senders_do_not_wait_for_each_other() -> None:
    processor = InboxProcessor(32)
    got = await handled(processor, [(tap(ANN, "slow"), 0.05), (tap(BOB, "quick"), 0)])
    assert got == ["Bob quick", "Ann slow"]
