"""Pacer and GroupWindow on a fake clock: spacing, no catch-up burst, pauses, per-chat windows."""

from __future__ import annotations

import pytest

from bot.schedule.pacer import GroupWindow, Pacer, PushPacing


class Time:
    def __init__(self) -> None:
        self.t = 100.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds


async def test_acquisitions_are_evenly_spaced() -> None:
    clock = Time()
    pacer = Pacer(10.0, clock.now, clock.sleep)
    for _ in range(5):
        await pacer.acquire()
    assert clock.t == pytest.approx(100.4)
    assert clock.slept == pytest.approx([0.1] * 4)


async def test_no_burst_after_an_idle_spell() -> None:
    clock = Time()
    pacer = Pacer(10.0, clock.now, clock.sleep)
    await pacer.acquire()
    clock.t += 60  # idle: the missed slots are not owed
    await pacer.acquire()
    await pacer.acquire()
    assert clock.slept == pytest.approx([0.1])


async def test_pause_holds_every_sender() -> None:
    clock = Time()
    pacer = Pacer(10.0, clock.now, clock.sleep)
    pacer.pause(7.0)
    await pacer.acquire()
    assert clock.slept == [7.0]


def test_rate_must_be_positive() -> None:
    clock = Time()
    with pytest.raises(ValueError):
        Pacer(0, clock.now, clock.sleep)


async def test_group_window_allows_the_limit_then_waits_for_the_oldest() -> None:
    clock = Time()
    window = GroupWindow(3, clock.now, clock.sleep, window=60.0)
    for _ in range(3):
        await window.acquire(-1)
    await window.acquire(-2)  # another chat has its own window
    assert clock.slept == []
    await window.acquire(-1)
    assert clock.slept == [60.0]


async def test_forget_idle_drops_only_quiet_chats() -> None:
    clock = Time()
    window = GroupWindow(3, clock.now, clock.sleep, window=60.0)
    await window.acquire(-1)
    clock.t += 61
    await window.acquire(-2)
    window.forget_idle()
    assert list(window._sent) == [-2]


async def test_push_pacing_uses_the_group_window_for_negative_ids_only() -> None:
    clock = Time()
    pacing = PushPacing(
        Pacer(1000.0, clock.now, clock.sleep), GroupWindow(1, clock.now, clock.sleep), clock.sleep
    )
    await pacing.acquire(5)
    await pacing.acquire(5)  # private chats: only the bot-wide pace
    assert max(clock.slept, default=0.0) < 1.0
    await pacing.acquire(-9)
    await pacing.acquire(-9)  # a group's second message in a minute waits for its window
    assert clock.slept[-1] >= 59.0
    await pacing.flood_wait(3.0)
    assert clock.slept[-1] == 3.0
