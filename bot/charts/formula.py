"""A question's formulas typeset as a picture: its lines of text, each `$…$` drawn by
matplotlib's mathtext (Agg, no TeX), the prose around it as it is."""

from __future__ import annotations

import hashlib
import io
import textwrap
from collections.abc import Sequence

from PIL import Image

from bot.bank.images import MAX_RATIO, MAX_SIDES_PX
from bot.bank.rich import pieces
from bot.charts.style import DPI, INK, new_figure

FORMULA_PT = 17
WRAP_CHARS = 64  # prose per line; a formula is never cut
LINE_IN = 0.42  # height of one line; a line with a fraction gets more
TALL_LINE_IN = 0.7
PAD_IN = 0.25
# Bumped when the drawing changes, so pictures cached under the old look are drawn again.
STYLE = "formula-2"


def picture_key(lines: Sequence[str]) -> str:
    """The cache key of the picture of these lines: their content and the drawing's style."""
    digest = hashlib.sha256("\n".join((STYLE, *lines)).encode()).hexdigest()
    return f"formula:{digest}"


def _tokens(text: str) -> list[str]:
    """A line's words and formulas as mathtext source (prose dollars escaped); a formula
    stays one word with the punctuation that touches it."""
    out: list[str] = []
    for piece in pieces(text):
        if piece.kind == "math":
            out.append("$" + piece.text.replace(" ", "\x00") + "$")
        else:
            out.append(piece.text.replace("\\$", "$").replace("$", r"\$"))
    return [word.replace("\x00", " ") for word in "".join(out).split()]


def wrapped(text: str) -> list[str]:
    """The text cut into drawn lines of about WRAP_CHARS, never inside a formula."""
    lines: list[str] = []
    current: list[str] = []
    width = 0
    for token in _tokens(text):
        # A formula's source is longer than what it draws: count about half of it.
        size = len(token) // 2 if "$" in token.replace(r"\$", "") else len(token)
        if current and width + 1 + size > WRAP_CHARS:
            lines.append(" ".join(current))
            current, width = [], 0
        current.append(token)
        width += size + (1 if width else 0)
    if current:
        lines.append(" ".join(current))
    return lines or [""]


def formula_png(lines: Sequence[str]) -> bytes:
    """The lines (bank text, `$…$` formulas in it) drawn one under the other, as PNG bytes."""
    drawn: list[str] = []
    for i, line in enumerate(lines):
        if i and not line:
            drawn.append("")
            continue
        drawn.extend(textwrap.dedent(w) for w in wrapped(line))
    heights = [TALL_LINE_IN if "\\frac" in d or "\\sqrt" in d else LINE_IN for d in drawn]
    fig = new_figure(sum(heights) + 2 * PAD_IN)
    total = sum(heights) + 2 * PAD_IN
    y = total - PAD_IN
    for text, height in zip(drawn, heights, strict=True):
        y -= height
        if text:
            fig.text(
                PAD_IN / fig.get_figwidth(),
                (y + height / 2) / total,
                text,
                fontsize=FORMULA_PT,
                color=INK,
                va="center",
                ha="left",
            )
    out = io.BytesIO()
    fig.savefig(
        out,
        format="png",
        dpi=DPI,
        metadata={"Software": None},
        bbox_inches="tight",
        pad_inches=PAD_IN,
        pil_kwargs={"compress_level": 1},
    )
    return _within_photo_limits(out.getvalue())


def _within_photo_limits(png: bytes) -> bytes:
    """The picture as Telegram takes a photo: a long one-line formula drawn wider than
    MAX_RATIO times its height gets white space above and below; one too wide for any photo
    raises ValueError (the question then goes without it)."""
    with Image.open(io.BytesIO(png)) as image:
        width, height = image.size
        if width + height > MAX_SIDES_PX:
            raise ValueError(f"the formulas are drawn {width} px wide, too wide for a photo")
        if width <= (MAX_RATIO - 1) * height:
            return png
        taller = Image.new("RGBA", (width, -(-width // (MAX_RATIO - 1))), "white")
        taller.paste(image, (0, (taller.height - height) // 2))
    out = io.BytesIO()
    taller.save(out, format="png", compress_level=1)
    return out.getvalue()
