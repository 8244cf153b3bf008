"""Mock exams as pure values: the blueprint draw, the exam state machine and its scoring.

Nothing here reads a clock, a database or Telegram: callers pass `now` and a seeded rng.
"""
