"""The bulk writer's pacer sizes transactions from the WAL pages its units took."""

from __future__ import annotations

from typing import cast

from bot.storage.sqlite.checkpoints import Pass, WalKeeper
from bot.storage.sqlite.wal_pace import WalPacer


class ScriptedKeeper:
    """Answers each settle with the next pass of a script (frames the WAL held)."""

    def __init__(self, frames: list[int]) -> None:
        self.passes = [Pass(seq=i, frames=f, copied=f) for i, f in enumerate(frames)]
        self.settles = 0

    async def settle(self) -> Pass | None:
        self.settles += 1
        return self.passes.pop(0)


async def test_a_rate_made_small_by_an_unasked_restart_does_not_size_the_next_transaction() -> (
    None
):
    # 150 units took 26 pages; the next 150 seemed to take 3, because the keeper's own pass
    # and restart fell between them. Sized from 3 / 150 pages a unit, the next transaction
    # could take 3,000 units (about 400 pages against a limit of 60).
    keeper = ScriptedKeeper([26, 3, 20, 50])
    pacer = WalPacer(cast(WalKeeper, keeper), limit_pages=60)
    assert await pacer.room(150) == 150  # nothing written yet: no wait
    pacer.wrote(150)
    assert await pacer.room(150) == 150
    pacer.wrote(150)
    grants = []
    for _ in range(2):
        grants.append(await pacer.room(3_000))
        pacer.wrote(grants[-1])
    assert keeper.settles == 3
    assert max(grants) <= 60 / (26 / 150)


async def test_without_a_keeper_the_pacer_never_waits() -> None:
    pacer = WalPacer(None, limit_pages=60)
    for _ in range(3):
        assert await pacer.room(500) == 500
        pacer.wrote(500)
