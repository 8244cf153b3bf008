"""The learning engine: memory per question, misconceptions, the study queue and readiness.

Pure functions and frozen dataclasses only: no storage, no Telegram, no clock of its own. Callers
pass in what the learner did and the time; the same code serves the bot, the terminal player and
the learner simulation.
"""
