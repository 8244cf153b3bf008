"""FSRS-6 as plain formulas over a weight vector, for the fit's tests: answer histories
generated with known weights, which the fit must recover. The same formulas as the `fsrs`
package's scheduler (tests/test_memory_fit.py checks them against it), without its Card
objects."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fsrs.scheduler import DEFAULT_PARAMETERS

MIN_STABILITY = 0.001
MIN_DIFFICULTY, MAX_DIFFICULTY = 1.0, 10.0
AGAIN, HARD, GOOD = 1, 2, 3


@dataclass(frozen=True, slots=True)
class Model:
    """FSRS-6 with the weights `w` (21 floats)."""

    w: tuple[float, ...] = tuple(DEFAULT_PARAMETERS)
    decay: float = field(init=False, repr=False, compare=False)
    factor: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.w) != 21:
            raise ValueError(f"FSRS-6 has 21 weights, not {len(self.w)}")
        decay = -self.w[20]
        object.__setattr__(self, "decay", decay)
        object.__setattr__(self, "factor", 0.9 ** (1 / decay) - 1)

    def recall(self, elapsed_days: float, stability: float) -> float:
        """Retrievability `elapsed_days` after the last answer."""
        return float((1 + self.factor * max(0.0, elapsed_days) / stability) ** self.decay)

    def first(self, rating: int) -> tuple[float, float]:
        """Stability and difficulty after the first answer."""
        return max(self.w[rating - 1], MIN_STABILITY), _clamp(self._d0(rating))

    def next(
        self, stability: float, difficulty: float, days: int, rating: int
    ) -> tuple[float, float]:
        """Stability and difficulty after an answer `days` whole days after the last one."""
        w = self.w
        if days < 1:
            grow = math.exp(w[17] * (rating - 3 + w[18])) * stability ** -w[19]
            new_s = stability * (max(grow, 1.0) if rating > AGAIN else grow)
        else:
            r = self.recall(days, stability)
            if rating == AGAIN:
                new_s = min(
                    w[11]
                    * difficulty ** -w[12]
                    * ((stability + 1) ** w[13] - 1)
                    * math.exp((1 - r) * w[14]),
                    stability / math.exp(w[17] * w[18]),
                )
            else:
                penalty = w[15] if rating == HARD else 1.0
                new_s = stability * (
                    1
                    + math.exp(w[8])
                    * (11 - difficulty)
                    * stability ** -w[9]
                    * (math.exp((1 - r) * w[10]) - 1)
                    * penalty
                )
        delta = -w[6] * (rating - 3)
        damped = difficulty + (10.0 - difficulty) * delta / 9.0
        new_d = w[7] * self._d0(4) + (1 - w[7]) * damped
        return max(new_s, MIN_STABILITY), _clamp(new_d)

    def _d0(self, rating: int) -> float:
        return self.w[4] - math.exp(self.w[5] * (rating - 1)) + 1


def _clamp(difficulty: float) -> float:
    return min(max(difficulty, MIN_DIFFICULTY), MAX_DIFFICULTY)


DEFAULT_MODEL = Model()
