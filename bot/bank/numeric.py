"""Options that are all numbers in one unit ("About 8 GiB", "0.52", "12%"): such options are
read in ascending order, never shuffled (a shuffled scale hides the answer's place on it)."""

from __future__ import annotations

import re

from bot.bank.models import Question

# "About 8 GiB", "~0.5", "$1,200", "12%": a short prefix, one number, an optional short unit.
NUMERIC = re.compile(
    r"^(?P<prefix>[^\d\-+]{0,20}?)\s*(?P<number>[-+]?\d[\d,]*(?:\.\d+)?)\s*(?P<unit>%|[^\W\d]{1,5})?\.?$"
)
UNIT_SCALE = {
    "b": 1.0,
    "kb": 1e3,
    "mb": 1e6,
    "gb": 1e9,
    "tb": 1e12,
    "kib": 2.0**10,
    "mib": 2.0**20,
    "gib": 2.0**30,
    "tib": 2.0**40,
}


def parse_numeric(text: str) -> tuple[str, float, str] | None:
    """(prefix, value, unit) of an option that is one number; byte units are made comparable."""
    match = NUMERIC.match(text.strip())
    if match is None:
        return None
    unit = (match["unit"] or "").casefold()
    value = float(match["number"].replace(",", ""))
    if unit in UNIT_SCALE:
        return match["prefix"].strip().casefold(), value * UNIT_SCALE[unit], "bytes"
    return match["prefix"].strip().casefold(), value, unit


def numeric_values(question: Question) -> tuple[float, ...] | None:
    """The options' values when the options are one scale: each a number after the same
    prefix ("About"), in one unit, no two equal; else None ("Option A of p1" and "Option B of
    p1" are labels that end in a digit, not a scale)."""
    parsed = [parse_numeric(o.text) for o in question.options]
    found = [p for p in parsed if p is not None]
    if len(found) != len(parsed) or len({(p[0], p[2]) for p in found}) != 1:
        return None
    values = tuple(p[1] for p in found)
    return values if len(set(values)) == len(values) else None


def ascending_order(question: Question) -> tuple[int, ...] | None:
    """File indices of all-numeric options from the smallest value up (ties in file order)."""
    values = numeric_values(question)
    if values is None:
        return None
    return tuple(sorted(range(len(values)), key=values.__getitem__))
