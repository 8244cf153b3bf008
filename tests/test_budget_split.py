"""Several bot processes share Telegram's bot-wide limits: each enforces its part of every
budget it keeps in memory, so that together they stay within the whole."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.schedule.pacer import GroupWindow, Pacer
from bot.telegram.app import split_budgets
from bot.telegram.outbound.flood import FloodGate, Verdict
from bot.telegram.outbound.group_budget import GroupBudget
from bot.telegram.outbound.throttle import EditThrottle
from tests.botharness import running_bot


def passed(gate: FloodGate, updates: int, now: float = 0.0) -> int:
    return sum(gate.check(1, now) is Verdict.PASS for _ in range(updates))


def test_each_process_takes_its_part_and_gets_the_whole_back() -> None:
    gate = FloodGate(burst=20, per_minute=60)
    gate.split(2)
    assert passed(gate, 30) == 10
    assert passed(gate, 30, now=10.0) == 5  # 30 a minute refill, not 60
    gate.split(1)
    assert passed(gate, 40, now=100.0) == 20

    budget = GroupBudget(per_minute=20)
    budget.split(2)
    assert sum(budget.allow_member(-1, i, 0.0) for i in range(20)) == 7  # (20 - 6) / 2

    throttle = EditThrottle(budget=12, gap_s=5.0)
    throttle.split(3)
    assert (throttle.budget, throttle.gap_s) == (4, 15.0)
    throttle.split(1)
    assert (throttle.budget, throttle.gap_s) == (12, 5.0)


def test_a_senders_share_grows_at_once_when_a_process_goes() -> None:
    gate = FloodGate(burst=20, per_minute=60)
    gate.split(2)
    assert passed(gate, 6) == 6  # 4 of this process's 10 left
    gate.split(1)  # the other process died: its share of the sender's bucket comes here
    assert passed(gate, 20) == 8
    gate.split(2)
    assert passed(gate, 20, now=4.0) == 2  # what refilled (4 s at 30 a minute), no more


async def test_the_push_sends_its_part_of_the_rate() -> None:
    now = [0.0]

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    pacer = Pacer(25.0, lambda: now[0], sleep)
    pacer.split(2)
    for _ in range(26):
        await pacer.acquire()
    assert now[0] == pytest.approx(2.0)  # 12.5 a second
    now[0] = 0.0
    window = GroupWindow(20, lambda: now[0], sleep)
    window.split(2)
    await asyncio.gather(*(window.acquire(-5) for _ in range(11)))
    assert now[0] == 60.0  # the eleventh waited for the minute to pass


async def test_the_bot_splits_in_webhook_mode_and_keeps_the_flood_gate_when_polling(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        services = h.services
        split_budgets(services, 2, polling=True)
        assert services.flood.rate == services.settings.flood_per_minute / 60
        assert services.push.pacing.pacer.interval == 2 / services.push.rate
        split_budgets(services, 2, polling=False)
        assert services.flood.rate == services.settings.flood_per_minute / 120
