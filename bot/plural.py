"""The one plural rule for counted nouns in every text the bot, the CLI and the charts show."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`1 answer`, `2 answers`, `0 answers`; `many` spells an irregular plural."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {many or noun + 's'}"
