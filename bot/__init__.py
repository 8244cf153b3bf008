"""quizbot: Telegram practice-exam bot."""

import os

# PTB 22 returns durations (RetryAfter.retry_after, ...) as timedelta once this is set, and warns
# on every read otherwise; we read them as timedelta everywhere.
os.environ.setdefault("PTB_TIMEDELTA", "true")
