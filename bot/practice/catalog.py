"""The banks the bot serves, swappable as a whole when an operator reloads them."""

from __future__ import annotations

from collections.abc import Mapping

from bot.bank.models import Bank, Question
from bot.domain.display import question_version
from bot.learning.blueprint import Blueprint

# Versions of questions replaced by reloads, kept so an answer to a question on screen before
# an edit is graded against what the learner saw. Bounded: the oldest go first.
MAX_OLD_VERSIONS = 20_000


class Catalog:
    """Loaded banks by id; the first one is the default for new learners."""

    def __init__(self, banks: Mapping[str, Bank]) -> None:
        if not banks:
            raise ValueError("no question bank loaded")
        self._banks = dict(banks)
        self.default_id = next(iter(self._banks))
        self._versions: dict[tuple[str, str], str] = {}
        self._old: dict[tuple[str, str, str], Question] = {}
        self._blueprints: dict[str, tuple[Bank, Blueprint]] = {}
        self._index()

    def _index(self) -> None:
        self._versions = {
            (bank_id, qid): question_version(q)
            for bank_id, bank in self._banks.items()
            for qid, q in bank.questions.items()
        }

    def replace(self, banks: Mapping[str, Bank]) -> None:
        """Swap in a freshly validated set of banks (history of removed questions is kept)."""
        if not banks:
            raise ValueError("no question bank loaded")
        for (bank_id, qid), version in self._versions.items():
            question = self.question(bank_id, qid)
            if question is not None:
                self._old[(bank_id, qid, version)] = question
        while len(self._old) > MAX_OLD_VERSIONS:
            del self._old[next(iter(self._old))]
        self._banks = dict(banks)
        self._index()
        if self.default_id not in self._banks:
            self.default_id = next(iter(self._banks))

    def version(self, bank_id: str, question_id: str) -> str | None:
        """Content hash of a question as loaded now (None if it is gone)."""
        return self._versions.get((bank_id, question_id))

    def question_at(self, bank_id: str, question_id: str, version: str | None) -> Question | None:
        """The question as it was at `version` (now, or before a reload of this process);
        None when that version is not known any more. No version: the current question."""
        current = self.question(bank_id, question_id)
        if version is None or self.version(bank_id, question_id) == version:
            return current
        return self._old.get((bank_id, question_id, version))

    def blueprint(self, bank: Bank) -> Blueprint:
        """The study queue's view of a bank, computed once per loaded bank."""
        found = self._blueprints.get(bank.id)
        if found is None or found[0] is not bank:
            found = self._blueprints[bank.id] = (bank, Blueprint.of(bank))
        return found[1]

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
