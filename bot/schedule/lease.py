"""Who owns a push claim, for how long, and when an owner is known to be gone.

A claim (a `sending` row) carries its owner, host:pid:token, and a lease the owner renews
while the send is in flight. Another process recovers a row only when the lease expired, or
when the owner is known dead, which only this host can tell (a pid that no longer runs).
"""

from __future__ import annotations

import os
import secrets
import socket

# A claim is its owner's for LEASE_S; the owner renews it every RENEW_EVERY_S while in flight.
LEASE_S = 60.0
RENEW_EVERY_S = LEASE_S / 3
# Waits between tries while the database refuses writes (disk full, a lock held elsewhere).
DB_RETRY_S = (0.1, 0.5, 1.0, 2.0, 5.0)
RUN_RETRY_S = 5.0  # a run that failed before sending (planning) is tried again this soon


def owner_id() -> str:
    """host:pid:token, unique per PushService: who a claim belongs to."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def owner_dead(owner: str, me: str) -> bool:
    """True when `owner` is known to be gone: a process of this host that no longer runs, or
    an earlier run in this very process (a container's pid 1 after a restart). Another
    host's owner is never known dead: only its lease expiry frees its rows."""
    host, _, rest = owner.partition(":")
    pid_text, _, _ = rest.partition(":")
    if owner == me or host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, under another user
    return False
