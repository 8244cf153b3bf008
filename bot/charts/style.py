"""Colours, sizes and the PNG writer shared by every chart.

Colours come from the Okabe–Ito palette, which stays distinct for the common forms of colour
blindness; pass and fail also differ by a text mark, never by colour alone. Sizes are for a
phone: the image is 1000 px wide and shown about 400 points wide, so text is drawn at 17–22 pt
(at 100 dpi) to land near 7–9 points on screen.
"""

from __future__ import annotations

import io

from matplotlib.figure import Figure

from bot.charts.agg_glyphs import attach_canvas

BLUE = "#0072B2"  # at or above the passing score
VERMILLION = "#D55E00"  # below it
SKY = "#56B4E9"  # answers per day
GREEN = "#009E73"  # accuracy
GREY = "#999999"
INK = "#222222"

DPI = 100
WIDTH_IN = 10.0  # 1000 px
TITLE_PT = 22
LABEL_PT = 19
TICK_PT = 17
NOTE_PT = 16


def new_figure(height_in: float) -> Figure:
    """A white figure 1000 px wide with an Agg canvas (no pyplot, no global backend)."""
    fig = Figure(figsize=(WIDTH_IN, height_in), dpi=DPI, facecolor="white")
    attach_canvas(fig)
    return fig


def to_png(fig: Figure) -> bytes:
    """The figure as PNG bytes, without the metadata that would change between versions."""
    out = io.BytesIO()
    # Compression level 1: a few KB more than the default 6, a third of the encoding time.
    fig.savefig(
        out, format="png", dpi=DPI, metadata={"Software": None}, pil_kwargs={"compress_level": 1}
    )
    return out.getvalue()
