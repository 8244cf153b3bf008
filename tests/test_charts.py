"""Charts come out as PNG files of the expected size, decodable, within the byte budget."""

from __future__ import annotations

import datetime as dt
import io
import struct
import sys
from typing import Any

import pytest
from PIL import Image

from bot.charts import DayActivity, TopicBar, mock_chart, stats_chart
from bot.charts.render import stats_figure
from tests.bench.bench_charts import TODAY, mock_topics, predicted, year_of_history

BUDGET = 150_000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which a PNG must have first."""
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (length, kind) == (13, b"IHDR")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_stats_chart_for_a_year_of_history_is_a_phone_sized_png_under_budget() -> None:
    data = stats_chart(predicted(), year_of_history(), passing_score=70, today=TODAY)
    width, height = png_size(data)
    assert width == 1000 and 900 <= height <= 1300
    assert len(data) < BUDGET
    with Image.open(io.BytesIO(data)) as img:
        img.load()  # decodes every pixel: a truncated or corrupt file raises here
        assert img.size == (width, height)
        colours = {c for _, c in img.convert("RGB").getcolors(1 << 20) or []}
    # The Okabe-Ito blue and vermillion of passing and failing bars are both drawn.
    assert (0x00, 0x72, 0xB2) in colours and (0xD5, 0x5E, 0x00) in colours
    assert "matplotlib.pyplot" not in sys.modules  # no global pyplot state behind our back


def test_stats_chart_without_history_or_evidence_still_renders() -> None:
    bare = stats_chart(
        [TopicBar("Only topic", None, 100)], [], passing_score=65, today=dt.date(2026, 1, 1)
    )
    old = [DayActivity(dt.date(2020, 1, 1), 10, 5)]  # outside the 30 days: ignored
    also = stats_chart([TopicBar("Only topic", None, 100)], old, passing_score=65,
                       today=dt.date(2026, 1, 1))  # fmt: skip
    assert png_size(bare) == png_size(also) and png_size(bare)[0] == 1000
    assert bare == also  # the same picture: no timestamps or versions written into the file


def test_mock_chart_grows_with_its_topics() -> None:
    six = mock_chart(mock_topics(), passing_score=70, title="Mock exam: 73% · passed")
    two = mock_chart(mock_topics()[:2], passing_score=70)
    (w6, h6), (w2, h2) = png_size(six), png_size(two)
    assert w6 == w2 == 1000 and h6 > h2 >= 250
    assert len(six) < BUDGET and len(two) < BUDGET
    with Image.open(io.BytesIO(six)) as img:
        img.load()
        assert img.size == (w6, h6)


def test_long_topic_names_stay_clear_of_the_passing_line() -> None:
    long_names = [
        TopicBar("Production Monitoring and Reliability of Served Models", 55.0, 7),
        TopicBar("GPU Acceleration and Optimization for Training and Serving", 81.0, 14),
        TopicBar("Safety, Ethics and Compliance", None, 5),
    ]
    fig = stats_figure(long_names, [], passing_score=70, today=TODAY)
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    fig.draw(renderer)
    ax = fig.axes[0]
    labels = [t.get_window_extent(renderer) for t in ax.texts if t.get_gid() == "topic-label"]
    assert len(labels) == 3
    [line] = [c for c in ax.collections if c.get_gid() == "pass-line"]
    segments = [ax.transData.transform(seg) for seg in line.get_segments()]
    assert len(segments) == 3
    x = segments[0][0][0]
    assert any(box.x0 < x < box.x1 for box in labels)  # names long enough to reach the line
    for (x0, y0), (_, y1) in segments:
        for box in labels:
            crosses = box.x0 <= x0 <= box.x1 and min(y0, y1) <= box.y1 and box.y0 <= max(y0, y1)
            assert not crosses


def test_the_kept_figure_and_glyphs_draw_what_a_fresh_agg_figure_draws() -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from bot.charts import agg_glyphs, style

    topics = [TopicBar("Prompts", 74.0, 30), TopicBar("Safety", None, 20), TopicBar("RAG", 50, 50)]
    days = [DayActivity(TODAY - dt.timedelta(days=i), 3 + i, 2) for i in range(12)]
    first = stats_chart(topics, days, passing_score=70, today=TODAY)
    kept = len(agg_glyphs._GLYPHS)
    assert kept > 50  # the text's glyphs are kept
    # Another learner's chart on the same figure, then the first again: nothing of the other
    # stays, and no glyph is drawn anew for text drawn before.
    other = [TopicBar("Prompts", 20.0, 30), TopicBar("Safety", 95.0, 20), TopicBar("RAG", 5, 50)]
    stats_chart(other, days[:3], passing_score=60, today=TODAY - dt.timedelta(days=40))
    assert stats_chart(topics, days, passing_score=70, today=TODAY) == first
    fresh = stats_figure(topics, days, passing_score=70, today=TODAY)
    FigureCanvasAgg(fresh)  # matplotlib's own Agg, no kept glyphs
    assert style.to_png(fresh) == first
    again = len(agg_glyphs._GLYPHS)
    stats_chart(topics, days, passing_score=70, today=TODAY)
    assert len(agg_glyphs._GLYPHS) == again


def test_the_private_names_the_glyph_adapter_uses_still_exist() -> None:
    # A matplotlib release that moves them must fail here: the charts would still be drawn
    # (by plain Agg), but at the cost the adapter exists to save.
    from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
    from matplotlib.figure import Figure

    from bot.charts import agg_glyphs

    assert agg_glyphs.CAN_KEEP
    assert hasattr(RendererAgg(10, 10, 100), "_renderer")
    assert hasattr(FigureCanvasAgg(Figure()), "_lastKey")


def test_a_thread_draws_its_charts_with_its_own_fonts(monkeypatch: pytest.MonkeyPatch) -> None:
    # /stats renders in worker threads, and matplotlib keeps fonts per thread because FreeType
    # faces are not thread-safe: a text layout kept by one thread must not make another
    # thread draw with the first one's font objects.
    import threading

    from bot.charts import agg_glyphs

    used: dict[int, set[int]] = {}
    draw = agg_glyphs._GlyphKeepingRenderer._draw_text_glyphs_and_boxes

    def spying(self: Any, gc: Any, x: float, y: float, angle: float, glyphs: Any, boxes: Any):
        glyphs = list(glyphs)
        used.setdefault(threading.get_ident(), set()).update(id(g[0]) for g in glyphs)
        draw(self, gc, x, y, angle, glyphs, boxes)

    monkeypatch.setattr(agg_glyphs._GlyphKeepingRenderer, "_draw_text_glyphs_and_boxes", spying)
    topics = [TopicBar("Prompts", 74.0, 30), TopicBar("Safety", None, 20)]
    days = [DayActivity(TODAY - dt.timedelta(days=i), 3 + i, 2) for i in range(5)]
    agg_glyphs._LAYOUTS.clear()
    worker = threading.Thread(
        target=stats_chart, args=(topics, days), kwargs={"passing_score": 70, "today": TODAY}
    )
    worker.start()
    worker.join()
    here = stats_chart(topics, days, passing_score=70, today=TODAY)
    assert len(used) == 2 and not set.intersection(*used.values())
    assert here == stats_chart(topics, days, passing_score=70, today=TODAY)
