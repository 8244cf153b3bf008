"""When a failed daily push is tried again, and when it gives up (pure policy, no I/O)."""

from __future__ import annotations

# Waits before the 1st, 2nd, ... retry (then the last, repeated). Short first: most outages are
# blips (a 502 for a second, a timeout); then long enough that an hour-long outage costs a
# handful of tries, not thousands. The pacer spreads the retried rows out again when they fall
# ready together. No jitter needed for that reason.
BACKOFF_S = (5.0, 30.0, 120.0, 600.0, 1800.0, 3600.0)
# Retries give up on time, not on a count: a retry is scheduled only if it comes no later than
# the grace after the push fell due (QUIZBOT_PUSH_GRACE_MINUTES, the same "still worth sending"
# bound that skips pushes missed during downtime), so a morning question is never sent in the
# evening, and an outage within the grace costs nobody their question. The end of the local day
# would allow a 06:00 question at 23:59, which the grace rule already says is not wanted.
# MAX_ATTEMPTS is only a backstop (a crash loop, a huge grace): with the default 120 minutes the
# schedule above allows 7 tries.
MAX_ATTEMPTS = 20


def retry_delay(attempts: int) -> float:
    """Seconds before the next try of a row claimed `attempts` times so far (1 = first try)."""
    return BACKOFF_S[min(max(attempts, 1), len(BACKOFF_S)) - 1]
