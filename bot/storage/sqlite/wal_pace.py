"""A bulk writer kept to the checkpoint thread's pace, so that no commit copies the WAL.

A long run of write transactions (planning a million daily pushes) appends to the WAL faster
than the background passes can copy it and never leaves the pause in which the WAL could
start over: it grows to the writer's backstop, and the commit that reaches it copies the rest
of the WAL inside the writer, while every write queued behind it waits. A `WalPacer` stops
the bulk writer, between two of its transactions, before the WAL would pass
`WalPolicy.burst_pages`: it asks the checkpoint thread for a pass now and waits for it on the
event loop, holding nothing, while other writes (answers) go on. The pass copies the WAL,
the keeper's one-page write starts it over, and the bulk writer goes on from an empty WAL.
When answers landed during the passes (so that no pass could leave the WAL fully copied),
the writer copies their few pages itself before that write: two syncs, not a WAL's worth.

SQLite says how big the WAL is only to a checkpoint, so the pacer estimates it between passes
from the writer's own units of work (rows, say): each pass it waited for tells how many pages
the units written since the previous one took. The estimate keeps the largest of the last few
such rates: a pass or a restart the pacer did not ask for (the keeper's own, once a second)
makes one rate look smaller than it is, and the backstop is several times the threshold.
"""

from __future__ import annotations

from collections import deque

from bot.storage.sqlite.checkpoints import WalKeeper

RATES_KEPT = 3


class WalPacer:
    """Between a bulk writer's transactions: wait for a pass when the WAL would grow too big."""

    def __init__(self, keeper: WalKeeper | None, limit_pages: int) -> None:
        self._keeper = keeper if limit_pages > 0 else None
        self.limit_pages = limit_pages
        # WAL pages per unit. The first also counts what the WAL held before the first
        # transaction (too high: safe); it is not dropped early, since the next one can be
        # far too low when a pass and restart the pacer did not ask for fell between them.
        self._rates: deque[float] = deque(maxlen=RATES_KEPT)
        self._units = 0  # written since the last pass this pacer waited for
        self._left = 0  # pages that pass could not let start over (a reader kept them)

    async def room(self, units: int) -> int:
        """Before a transaction of up to `units`: how many it may take (fewer when that many
        would write more pages than the limit), after waiting until a pass has copied the
        WAL (and it has started over) if they could take the WAL past the limit."""
        if self._keeper is None or (not self._units and not self._rates):
            # Nothing written yet: a run that fits in one transaction never waits.
            return units
        if self._rates:
            units = self._fit(units)
            if self._left + (self._units + units) * max(self._rates) <= self.limit_pages:
                return units
        await self._settle()
        return self._fit(units)

    def _fit(self, units: int) -> int:
        if not self._rates:
            return units
        return max(1, min(units, int(self.limit_pages / max(self._rates))))

    def wrote(self, units: int) -> None:
        """A transaction of `units` committed."""
        self._units += units

    async def _settle(self) -> None:
        assert self._keeper is not None
        done = await self._keeper.settle()
        if done is None:
            # No checkpoint thread (or shutting down): the writer's backstop bounds the WAL.
            self._keeper = None
            return
        if self._units and done.frames > self._left:
            self._rates.append((done.frames - self._left) / self._units)
        self._units = 0
        self._left = 0 if done.complete or not done.frames else done.frames
