"""Charts as PNG bytes (matplotlib, Agg canvas, no pyplot): pure functions of plain data.

Rendering takes tens of milliseconds of CPU: callers on the event loop run these in a thread
(`asyncio.to_thread`). No global matplotlib state is touched, so threads do not interfere.
matplotlib is imported on the first render, not with this package: it is close to half of
the bot's import time, and a start should not wait for a chart nobody asked for yet.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.charts.models import DayActivity, TopicBar

__all__ = ["DayActivity", "TopicBar", "mock_chart", "stats_chart"]


def stats_chart(
    topics: Sequence[TopicBar],
    days: Sequence[DayActivity],
    *,
    passing_score: float,
    today: dt.date,
    title: str = "Predicted score per topic",
) -> bytes:
    """The /stats PNG: predicted score per topic against the pass line, and answers per day."""
    from bot.charts import render

    return render.stats_chart(topics, days, passing_score=passing_score, today=today, title=title)


def mock_chart(
    topics: Sequence[TopicBar], *, passing_score: float, title: str = "Mock exam by topic"
) -> bytes:
    """The mock result PNG: per-topic bars against the pass line."""
    from bot.charts import render

    return render.mock_chart(topics, passing_score=passing_score, title=title)
