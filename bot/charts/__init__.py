"""Charts as PNG bytes (matplotlib, Agg canvas, no pyplot): pure functions of plain data.

Rendering takes tens of milliseconds of CPU: callers on the event loop run these in a thread
(`asyncio.to_thread`). No global matplotlib state is touched, so threads do not interfere.
"""

from bot.charts.models import DayActivity, TopicBar
from bot.charts.render import mock_chart, stats_chart

__all__ = ["DayActivity", "TopicBar", "mock_chart", "stats_chart"]
