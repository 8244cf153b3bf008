"""Rich bank text: `$…$` formulas and ``` fenced code inside a stem, option or explanation.

The source keeps the author's markup; this module finds its parts and writes them out where
a picture cannot go: formulas as plain readable text (x² for `$x^2$`), code as monospace HTML
or indented lines. Rendering formulas to pictures is `bot.charts.formula`'s business.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

# Pandoc's rule, so that prices stay prices: a formula opens with `$` followed by a non-space
# and closes with a non-space followed by `$` that is not followed by a digit ("$2.50 to $3"
# is no formula); `\$` is a literal dollar sign.
FORMULA = re.compile(r"(?<![\\$])\$(?=[^\s$])((?:\\.|[^$\\\n])+?)(?<=\S)\$(?!\d)")
FENCE = re.compile(r"^[ \t]*```[^\n`]*\n(.*?)^[ \t]*```[ \t]*$", re.DOTALL | re.MULTILINE)

Kind = Literal["text", "math", "code"]


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of bank text: plain prose, a formula (without its dollars) or a code block."""

    kind: Kind
    text: str


def pieces(text: str) -> Iterator[Piece]:
    """The text cut into prose, formulas and fenced code, in order (no formulas inside code)."""
    at = 0
    for fence in FENCE.finditer(text):
        yield from _prose(text[at : fence.start()])
        yield Piece("code", fence.group(1).rstrip("\n"))
        at = fence.end()
    yield from _prose(text[at:])


def _prose(text: str) -> Iterator[Piece]:
    at = 0
    for match in FORMULA.finditer(text):
        if match.start() > at:
            yield Piece("text", text[at : match.start()])
        yield Piece("math", match.group(1))
        at = match.end()
    if at < len(text):
        yield Piece("text", text[at:])


def formulas(text: str) -> list[str]:
    """The formulas of a text, in order, without their dollars."""
    if "$" not in text:
        return []
    return [p.text for p in pieces(text) if p.kind == "math"]


def has_rich(text: str) -> bool:
    """Whether the text holds a formula or fenced code (most do not: a cheap test first)."""
    return ("$" in text or "```" in text) and any(p.kind != "text" for p in pieces(text))


# Plain readable stand-ins for the mathtext commands authors use most; anything else loses
# its backslash and stays readable as a word.
_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ",
    "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ",
    "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "sum": "Σ", "prod": "Π",
    "int": "∫", "infty": "∞", "partial": "∂", "nabla": "∇", "cdot": "·", "times": "×",
    "div": "÷", "pm": "±", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠",
    "ne": "≠", "approx": "≈", "sim": "~", "equiv": "≡", "propto": "∝", "in": "∈",
    "notin": "∉", "subset": "⊂", "cup": "∪", "cap": "∩", "forall": "∀", "exists": "∃",
    "rightarrow": "→", "to": "→", "leftarrow": "←", "Rightarrow": "⇒", "mapsto": "↦",
    "ldots": "…", "cdots": "⋯", "dots": "…", "log": "log", "ln": "ln", "exp": "exp",
    "sin": "sin", "cos": "cos", "max": "max", "min": "min", "sqrt": "√",
    "left": "", "right": "", "mathrm": "", "mathbf": "", "mathit": "", "text": "",
    "operatorname": "", ",": " ", ";": " ", "quad": " ", "qquad": "  ", "!": "",
}  # fmt: skip
_SUPER = str.maketrans("0123456789+-=()nix", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱˣ")
_SUB = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_SUPER_KEYS = frozenset("0123456789+-=()nix")
_SUB_KEYS = frozenset("0123456789+-=()")
_COMMAND = re.compile(r"\\([A-Za-z]+|[,;!{}$%_&#])")
_FRAC = re.compile(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_SCRIPT = re.compile(r"([_^])(\{[^{}]*\}|\\[A-Za-z]+|.)")


def _script(match: re.Match[str]) -> str:
    mark, body = match.group(1), match.group(2)
    inner = body[1:-1] if body.startswith("{") else body
    table, keys = (_SUPER, _SUPER_KEYS) if mark == "^" else (_SUB, _SUB_KEYS)
    if inner and set(inner) <= keys:
        return inner.translate(table)
    # No Unicode script for every letter: keep the caret or underscore, readable as ASCII.
    return f"{mark}{inner}" if len(inner) == 1 else f"{mark}({inner})"


def _group(text: str) -> str:
    """A fraction's part or a root's argument: bare when it is one word, else in brackets."""
    return text if re.fullmatch(r"\\?\w+", text.strip()) else f"({text})"


def plain_formula(source: str) -> str:
    """A formula as plain readable text: `\\frac{a}{b}` as (a)/(b), `x^2` as x², `\\alpha` as α."""
    text = source
    for _ in range(3):  # nested fractions and roots, innermost first
        text = _FRAC.sub(lambda m: f"{_group(m.group(1))}/{_group(m.group(2))}", text)
        text = _SQRT.sub(lambda m: f"√{_group(m.group(1))}", text)
    text = _SCRIPT.sub(_script, text)

    def command(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in "{}$%_&#":
            return name
        return _SYMBOLS.get(name, name)

    text = _COMMAND.sub(command, text)
    text = text.replace("{", "").replace("}", "")
    return " ".join(text.split())


def plain_text(text: str) -> str:
    """Bank text for a terminal: formulas readable, code indented by four spaces on its own
    lines."""
    if not has_rich(text):
        return text.replace("\\$", "$")
    out: list[str] = []
    for piece in pieces(text):
        if piece.kind == "math":
            out.append(plain_formula(piece.text))
        elif piece.kind == "code":
            block = "\n".join("    " + line for line in piece.text.split("\n"))
            out.append(f"\n{block}\n")
        else:
            out.append(piece.text.replace("\\$", "$"))
    return "".join(out).strip("\n")


def telegram_html(text: str) -> str:
    """Bank text as Telegram HTML: escaped, formulas readable, fenced code as <pre><code>."""
    if not has_rich(text):
        return html.escape(text.replace("\\$", "$"), quote=False)
    out: list[str] = []
    for piece in pieces(text):
        if piece.kind == "math":
            out.append(html.escape(plain_formula(piece.text), quote=False))
        elif piece.kind == "code":
            code = html.escape(piece.text, quote=False)
            out.append(f"\n<pre><code>{code}</code></pre>\n")
        else:
            out.append(html.escape(piece.text.replace("\\$", "$"), quote=False))
    return re.sub(r"\n{3,}", "\n\n", "".join(out)).strip("\n")
