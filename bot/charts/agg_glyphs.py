"""The one adapter on matplotlib's private API: Agg drawing text from kept glyph bitmaps.

Rasterising glyphs is most of a chart's drawing, and a chart draws the same few hundred (its
names, titles, dates) at the same places each time. A glyph's bitmap depends only on the font,
size, glyph and the fractional part of its position (a whole-pixel move shifts the bitmap,
nothing more), so it is kept by those and copied. That needs Agg's per-glyph drawing, which
matplotlib does not publish (`PRIVATE_NAMES`). With a matplotlib that lacks them the charts are
drawn by plain Agg, so the bot keeps working; tests/test_charts.py fails loudly instead, and
checks that the PNG equals plain Agg's.
"""

from __future__ import annotations

from threading import get_ident
from typing import Any, cast

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg, get_hinting_flag
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font, RenderMode

PRIVATE_NAMES = {
    FT2Font: ("_layout", "_set_transform", "_render_glyph"),
    RendererAgg: ("_prepare_font", "_draw_text_glyphs_and_boxes"),
}
CAN_KEEP = all(hasattr(cls, name) for cls, names in PRIVATE_NAMES.items() for name in names)
_GLYPHS: dict[tuple[Any, ...], tuple[np.ndarray[Any, Any], int, int]] = {}
GLYPHS_KEPT = 8192
_IDENTITY = np.array([[0x10000, 0], [0, 0x10000]])


_LAYOUTS: dict[tuple[Any, ...], list[Any]] = {}
_hinting = cast(Any, get_hinting_flag)  # untyped in matplotlib


class _GlyphKeepingRenderer(RendererAgg):
    """Agg, drawing upright text from kept glyph bitmaps (see _GLYPHS) and kept layouts."""

    def draw_text(
        self,
        gc: Any,
        x: float,
        y: float,
        s: str,
        prop: Any,
        angle: float,
        ismath: Any = False,
        mtext: Any = None,
    ) -> None:
        if ismath or mtext is None:
            cast(Any, super()).draw_text(gc, x, y, s, prop, angle, ismath, mtext)
            return
        features, language = mtext.get_fontfeatures(), mtext.get_language()
        # Per thread: a layout holds the font objects that drew it, and matplotlib keeps
        # fonts per thread because FreeType's faces are not thread-safe (charts render in
        # worker threads).
        key = (get_ident(), hash(prop), prop.get_size_in_points(), self.dpi, s, features, language)
        items = _LAYOUTS.get(key)
        if items is None:
            font = cast(Any, self)._prepare_font(prop)
            items = list(font._layout(s, flags=_hinting(), features=features, language=language))
            if len(_LAYOUTS) >= GLYPHS_KEPT:
                _LAYOUTS.clear()
            _LAYOUTS[key] = items
        size = prop.get_size_in_points()
        self._draw_text_glyphs_and_boxes(
            gc, x, y, angle,
            [(i.ft_object, size, i.glyph_index, 0, 1, i.x, i.y) for i in items], [],
        )  # fmt: skip

    def _draw_text_glyphs_and_boxes(
        self, gc: Any, x: float, y: float, angle: float, glyphs: Any, boxes: Any
    ) -> None:
        glyphs = list(glyphs)
        if angle or boxes or any(g[3] != 0 or g[4] != 1 for g in glyphs):
            cast(Any, super())._draw_text_glyphs_and_boxes(gc, x, y, angle, glyphs, boxes)
            return
        antialiased = bool(gc.get_antialiased())
        height = int(self.height)
        for font, size, glyph_index, _slant, _extend, dx, dy in glyphs:  # dy is upwards
            fx, fy = round(0x40 * (x + dx)), round(0x40 * (self.height - y + dy))
            key = (font.fname, size, self.dpi, glyph_index, fx & 63, fy & 63, antialiased)
            found = _GLYPHS.get(key)
            if found is None:
                font.set_size(size, self.dpi)
                font._set_transform(_IDENTITY, [fx & 63, fy & 63])
                mode = RenderMode.NORMAL if antialiased else RenderMode.MONO
                bitmap = font._render_glyph(glyph_index, _hinting(), mode)
                buffer = np.array(bitmap.buffer)
                if not antialiased:
                    buffer *= 0xFF
                if len(_GLYPHS) >= GLYPHS_KEPT:
                    _GLYPHS.clear()
                found = _GLYPHS[key] = (buffer, bitmap.left, bitmap.top)
            buffer, left, top = found
            # draw_text_image's y is downwards and names the bitmap's bottom row.
            self._renderer.draw_text_image(
                buffer, left + (fx >> 6), height - (top + (fy >> 6)) + buffer.shape[0], 0, gc
            )


class _Canvas(FigureCanvasAgg):
    """Agg's canvas, drawing with the glyph-keeping renderer."""

    def get_renderer(self) -> RendererAgg:
        w, h = self.get_width_height(physical=True)
        key = w, h, self.figure.dpi
        if self._lastKey != key:
            self.renderer = cast(Any, _GlyphKeepingRenderer)(w, h, self.figure.dpi)
            self._lastKey = key
        return cast(RendererAgg, self.renderer)


def attach_canvas(fig: Figure) -> None:
    """Give `fig` its Agg canvas: the glyph-keeping one where matplotlib allows it."""
    (_Canvas if CAN_KEEP else FigureCanvasAgg)(fig)
