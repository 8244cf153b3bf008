"""Grading a choice against a question."""

from __future__ import annotations

from collections.abc import Iterable

from bot.bank.models import Question


def encode_choice(chosen: Iterable[int]) -> str:
    """Stored form of a choice: sorted, comma-separated option indices."""
    return ",".join(str(i) for i in sorted(set(chosen)))


def decode_choice(text: str) -> frozenset[int]:
    """Inverse of encode_choice."""
    return frozenset(int(p) for p in text.split(",") if p != "")


def is_correct(question: Question, chosen: frozenset[int]) -> bool:
    """All and only the correct options were chosen."""
    return chosen == question.correct_indices


def valid_choice(question: Question, chosen: frozenset[int]) -> bool:
    """Every chosen index names an option, and there is at least one."""
    return bool(chosen) and all(0 <= i < len(question.options) for i in chosen)
