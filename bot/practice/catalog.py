"""The banks the bot serves, swappable as a whole when an operator reloads them."""

from __future__ import annotations

from collections.abc import Mapping

from bot.bank.models import Bank, Question


class Catalog:
    """Loaded banks by id; the first one is the default for new learners."""

    def __init__(self, banks: Mapping[str, Bank]) -> None:
        if not banks:
            raise ValueError("no question bank loaded")
        self._banks = dict(banks)
        self.default_id = next(iter(self._banks))

    def replace(self, banks: Mapping[str, Bank]) -> None:
        """Swap in a freshly validated set of banks (history of removed questions is kept)."""
        if not banks:
            raise ValueError("no question bank loaded")
        self._banks = dict(banks)
        if self.default_id not in self._banks:
            self.default_id = next(iter(self._banks))

    @property
    def banks(self) -> Mapping[str, Bank]:
        return self._banks

    def bank(self, bank_id: str | None) -> Bank:
        """The bank with this id, or the default one when unknown or None."""
        if bank_id is not None and bank_id in self._banks:
            return self._banks[bank_id]
        return self._banks[self.default_id]

    def question(self, bank_id: str, question_id: str) -> Question | None:
        """A question, or None if its bank or the question itself is gone."""
        bank = self._banks.get(bank_id)
        return bank.questions.get(question_id) if bank else None

    def question_count(self) -> int:
        """Questions across all banks."""
        return sum(len(b.questions) for b in self._banks.values())
