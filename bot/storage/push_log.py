"""SQL of the daily push: subscriptions and the delivery log (`push_log`). Plain sync functions
on a connection, run by `Database.write`/`read`, each batch one transaction in one round trip.

Life of a log row: pending -> sending (claimed, committed before the API call) -> sent | failed
| blocked; pending -> skipped when it is more than the grace late. A claim carries its
owner and a lease (`lease_until`, renewed while the send is in flight): a `sending` row whose
lease expired, or whose owner is known to be dead, was cut off (a crash, a database error
before its outcome was recorded) and goes back to pending after a backoff (at-least-once, see
README); a live owner's rows are never touched. A send that
may succeed later (timeout, 5xx, repeated 429) goes back to pending with `not_before` set: the
retry waits an exponential backoff (bot/domain/push_retry.py), and the row gives up (failed)
once the next try would come later than the grace after its due time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.domain import due, zones
from bot.domain.kinds import ChatKind, PushState
from bot.domain.push_retry import MAX_ATTEMPTS, retry_delay
from bot.storage.port import Connection


@dataclass(frozen=True, slots=True)
class Subscription:
    chat_id: int
    user_id: int | None
    kind: ChatKind
    local_time: str
    timezone: str
    active: bool
    next_due_at: float | None
    thread: int | None = None  # the forum topic it goes to


@dataclass(frozen=True, slots=True)
class DueRow:
    """What a picker needs to choose a question for one chat."""

    chat_id: int
    user_id: int | None
    kind: ChatKind
    bank_id: str | None
    topic: str | None


@dataclass(frozen=True, slots=True)
class Claim:
    """A log row claimed for sending, with the delivery (question) it carries."""

    log_id: int
    chat_id: int
    kind: ChatKind
    delivery_id: int
    bank_id: str
    question_id: str
    attempts: int
    due_at: float = 0.0  # when it fell due: a send later than due + grace is not made
    option_order: str | None = None  # the delivery's display order (deliveries.option_order)
    token: str | None = None  # the delivery's button token
    thread: int | None = None  # the forum topic it goes to (None: the chat, or General)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one send came to: sent, failed, blocked, skipped or retry."""

    log_id: int
    chat_id: int
    state: PushState
    delivery_id: int | None = None
    message_id: int | None = None
    error: str | None = None
    # A retry at a time Telegram gave (429 for this chat), instead of the backoff schedule.
    retry_after: float | None = None


KINDS = frozenset(ChatKind)
LATE_SLOT = "late: its send slot comes after due + grace"
# Picks a question for a due chat and records its delivery: (delivery_id, bank_id, question_id).
Picker = Callable[[Connection, DueRow, float], tuple[int, str, str] | None]


def upsert_subscription(
    conn: Connection,
    *,
    chat_id: int,
    user_id: int | None,
    kind: ChatKind,
    local_time: str,
    timezone: str,
    now: float,
    thread: int | None = None,
) -> due.Occurrence:
    """Subscribe (or change time/zone, and the forum topic `thread` it goes to); returns the
    next push. Today's sent push still counts."""
    tz = zones.zone(timezone)
    if tz is None:
        raise ValueError(f"unknown timezone {timezone!r}")
    nxt = due.next_due(local_time, tz, now)
    if conn.execute(
        "SELECT 1 FROM push_log WHERE chat_id = ? AND local_date = ?", (chat_id, nxt.local_date)
    ).fetchone():
        # Today's push already went out (one per chat and day): the next one is tomorrow's,
        # and that is what the subscriber must be told.
        nxt = due.next_due(local_time, tz, nxt.at + 1)
    conn.execute(
        "INSERT INTO subscriptions (chat_id, user_id, kind, local_time, timezone, active,"
        " next_local_date, next_due_at, created_at, updated_at, thread_id)"
        " VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)"
        " ON CONFLICT (chat_id) DO UPDATE SET user_id = excluded.user_id, kind = excluded.kind,"
        " local_time = excluded.local_time, timezone = excluded.timezone, active = 1,"
        " next_local_date = excluded.next_local_date, next_due_at = excluded.next_due_at,"
        " updated_at = excluded.updated_at, thread_id = excluded.thread_id",
        (chat_id, user_id, kind, local_time, timezone, nxt.local_date, nxt.at, now, now, thread),
    )
    return nxt


def deactivate(conn: Connection, chat_id: int, now: float) -> bool:
    """Unsubscribe; False if there was no active subscription."""
    cur = conn.execute(
        "UPDATE subscriptions SET active = 0, updated_at = ? WHERE chat_id = ? AND active = 1",
        (now, chat_id),
    )
    return cur.rowcount > 0


def subscription(conn: Connection, chat_id: int) -> Subscription | None:
    """The chat's subscription (active or not), or None."""
    row = conn.execute(
        "SELECT chat_id, user_id, kind, local_time, timezone, active, next_due_at, thread_id"
        " FROM subscriptions WHERE chat_id = ?",
        (chat_id,),
    ).fetchone()
    if row is None:
        return None
    return Subscription(
        row[0], row[1], ChatKind(row[2]), row[3], row[4], bool(row[5]), row[6], row[7]
    )


def forget_thread(conn: Connection, chat_id: int, thread: int) -> None:
    """The chat's daily question goes to the chat itself again: its topic `thread` is gone."""
    conn.execute(
        "UPDATE subscriptions SET thread_id = NULL WHERE chat_id = ? AND thread_id = ?",
        (chat_id, thread),
    )


def materialize_due(conn: Connection, now: float, grace_s: float, limit: int) -> int:
    """Turn up to `limit` due subscriptions into log rows and move them to their next push."""
    rows = conn.execute(
        "SELECT chat_id, local_time, timezone FROM subscriptions"
        " WHERE active = 1 AND next_due_at <= ? ORDER BY next_due_at LIMIT ?",
        (now, limit),
    ).fetchall()
    entries: list[tuple[int, str, float, str, float | None]] = []
    moves: list[tuple[str | None, float | None, float, int]] = []
    # Subscribers due together mostly share a time and zone: work out each pair once.
    plans: dict[tuple[str, str], tuple[due.Occurrence, bool, due.Occurrence] | None] = {}
    for chat_id, local_time, tz_name, *_ in rows:
        key = (local_time, tz_name)
        if key not in plans:
            plans[key] = _plan(local_time, tz_name, now, grace_s)
        plan = plans[key]
        if plan is None:  # zone data lost an entry: park the row, never loop on it
            moves.append((None, None, now, chat_id))
            continue
        occ, late, nxt = plan
        state = "skipped" if late else "pending"
        entries.append((chat_id, occ.local_date, occ.at, state, now if late else None))
        moves.append((nxt.local_date, nxt.at, now, chat_id))
    # DO NOTHING: the unique (chat, day) key turns a repeated wall time, a time changed after
    # today's push or a second tick into a no-op.
    conn.executemany(
        "INSERT INTO push_log (chat_id, local_date, due_at, state, finished_at)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (chat_id, local_date) DO NOTHING",
        entries,
    )
    conn.executemany(
        "UPDATE subscriptions SET next_local_date = ?, next_due_at = ?, updated_at = ?"
        " WHERE chat_id = ?",
        moves,
    )
    return len(rows)


def _plan(
    local_time: str, tz_name: str, now: float, grace_s: float
) -> tuple[due.Occurrence, bool, due.Occurrence] | None:
    """Today's occurrence, whether it is past the grace, and the next one; None: no zone."""
    tz = zones.zone(tz_name)
    if tz is None:
        return None
    # The latest occurrence, not the stored one: after days of downtime only today counts.
    occ = due.latest_due(local_time, tz, now)
    return occ, due.is_late(occ, now, grace_s), due.next_due(local_time, tz, now)


def shift_pending(conn: Connection, seconds: float) -> int:
    """Move the times of rows not yet sent by `seconds`, the wall clock's step: a row is
    planned only once due, so one planned while the clock was ahead stays due after it steps
    back (and keeps its place in the grace), and a backoff or a lease keeps its length."""
    cur = conn.execute(
        "UPDATE push_log SET due_at = due_at + ?, not_before = not_before + ?,"
        " lease_until = lease_until + ? WHERE state IN ('pending', 'sending')",
        (seconds, seconds, seconds),
    )
    return cur.rowcount


def skip_late(
    conn: Connection, now: float, grace_s: float, *, send_at: float | None = None
) -> int:
    """Pending rows more than the grace late (the bot was down) are skipped for the day; rows
    already tried (waiting in backoff, or cut off by a crash) are failed with their last error.
    `send_at`: the earliest instant the push can send (its pacer's next free slot, later than
    `now` under a backlog): rows whose grace ends before it are late already."""
    cur = conn.execute(
        "UPDATE push_log SET finished_at = ?,"
        " state = CASE WHEN attempts > 0 THEN 'failed' ELSE 'skipped' END,"
        " error = CASE WHEN attempts > 0 THEN substr('gave up: ' || COALESCE(error, 'late'), 1,"
        " 200) ELSE 'late' END"
        " WHERE state = 'pending' AND due_at < ?",
        (now, (now if send_at is None else max(now, send_at)) - grace_s),
    )
    return cur.rowcount


def claim(
    conn: Connection,
    now: float,
    limit: int,
    pick: Picker,
    *,
    owner: str | None = None,
    lease_until: float | None = None,
    slots: SendSlots | None = None,
) -> list[Claim]:
    """Claim up to `limit` ready pending rows (oldest first), choosing each one's question once;
    the claims belong to `owner` until `lease_until` (None: recovered at the next look).
    With `slots`, rows that would be sent after their due time plus the grace are skipped
    first, with no question picked and no delivery written for them."""
    if slots is None:
        rows = ready_rows(conn, now, limit)
        return claim_rows(conn, rows, now, pick, owner=owner, lease_until=lease_until)
    skip_late(conn, now, slots.grace_s, send_at=slots.first)
    claims: list[Claim] = []
    # Every row read leaves `pending` (claimed, skipped, failed or taken by another claimer),
    # so reading again finds the next ones: a batch is short only when no row is left.
    while (want := limit - len(claims)) > 0:
        rows = ready_rows(conn, now, want)
        claims += claim_rows(
            conn, rows, now, pick, owner=owner, lease_until=lease_until, slots=slots,
            position=len(claims),
        )  # fmt: skip
        if len(rows) < want:
            break
    return claims


@dataclass(frozen=True, slots=True)
class SendSlots:
    """When the claims of one batch would be sent: the first at `first` (wall-clock seconds,
    the pacer's next free slot), each next one `interval` later; none after due + `grace_s`."""

    first: float
    interval: float
    grace_s: float

    def late(self, due_at: float, position: int) -> bool:
        """Whether the claim at `position` in the batch would go out past its grace."""
        return self.first + position * self.interval > due_at + self.grace_s


# A pending row as `claim` reads it: the log row, its delivery if one was chosen, and its chat's
# subscription (id, chat_id, attempts, due_at, delivery_id, bank_id, question_id, user_id,
# kind, subscribed bank, subscribed topic, active).
ReadyRow = Sequence[Any]


def ready_rows(conn: Connection, now: float, limit: int) -> list[ReadyRow]:
    """Up to `limit` pending rows ready to send, oldest first (what `claim` reads).

    Ready: not waiting in backoff (`not_before` passed). Rows exist only once due, so the ready
    time is COALESCE(not_before, due_at); the expression matches the index push_log_ready.
    """
    return conn.execute(
        "SELECT l.id, l.chat_id, l.attempts, l.due_at, l.delivery_id, d.bank_id, d.question_id,"
        " s.user_id, s.kind, s.bank_id, s.topic, s.active, s.thread_id"
        " FROM push_log l LEFT JOIN subscriptions s ON s.chat_id = l.chat_id"
        " LEFT JOIN deliveries d ON d.id = l.delivery_id"
        " WHERE l.state = 'pending' AND COALESCE(l.not_before, l.due_at) <= ?"
        " ORDER BY COALESCE(l.not_before, l.due_at), l.id LIMIT ?",
        (now, limit),
    ).fetchall()


def claim_rows(
    conn: Connection,
    rows: Iterable[ReadyRow],
    now: float,
    pick: Picker,
    *,
    owner: str | None = None,
    lease_until: float | None = None,
    slots: SendSlots | None = None,
    position: int = 0,
) -> list[Claim]:
    """Claim the rows `ready_rows` read (what `claim` writes); `position`: the first claim's
    place in its batch's send slots. Each write applies only while
    the row is still pending with the attempts read (compare and set), so a row another
    claimer took in between stays theirs: it is left out, and no question is picked for it."""
    claims: list[Claim] = []
    done: list[tuple[str, float, str, int, int]] = []
    unpicked: list[tuple[float, int]] = []
    for log_id, chat_id, attempts, due_at, delivery_id, bank_id, question_id, *sub in rows:
        user_id, kind_text, sub_bank, sub_topic, active, thread = sub
        if not active:  # unsubscribed (or blocked) after it fell due
            done.append((PushState.SKIPPED, now, "unsubscribed", log_id, attempts))
            continue
        if kind_text not in KINDS:
            error = f"unknown chat kind {kind_text!r}"
            done.append((PushState.FAILED, now, error, log_id, attempts))
            continue
        if slots is not None and slots.late(due_at, position + len(claims)):
            state = PushState.FAILED if attempts else PushState.SKIPPED
            done.append((state, now, LATE_SLOT, log_id, attempts))
            continue
        won = conn.execute(
            "UPDATE push_log SET state = 'sending', claimed_at = ?, attempts = ?, owner = ?,"
            " lease_until = ? WHERE id = ? AND state = 'pending' AND attempts = ?",
            (now, attempts + 1, owner, lease_until, log_id, attempts),
        ).rowcount
        if won != 1:
            continue
        kind = ChatKind(kind_text)
        if delivery_id is None or bank_id is None:
            picked = pick(conn, DueRow(chat_id, user_id, kind, sub_bank, sub_topic), now)
            if picked is None:
                unpicked.append((now, log_id))
                continue
            delivery_id, bank_id, question_id = picked
        shown = conn.execute(
            "SELECT option_order, token FROM deliveries WHERE id = ?", (delivery_id,)
        ).fetchone()
        order, token = shown if shown is not None else (None, None)
        claims.append(
            Claim(
                log_id,
                chat_id,
                kind,
                delivery_id,
                bank_id,
                question_id,
                attempts + 1,
                due_at,
                order,
                token,
                thread,
            )
        )
    conn.executemany(
        "UPDATE push_log SET state = ?, finished_at = ?, error = ?"
        " WHERE id = ? AND state = 'pending' AND attempts = ?",
        done,
    )
    conn.executemany(
        "UPDATE push_log SET state = 'failed', finished_at = ?, error = 'no question to send',"
        " owner = NULL, lease_until = NULL WHERE id = ?",
        unpicked,
    )
    conn.executemany(
        "UPDATE push_log SET delivery_id = ? WHERE id = ?",
        [(c.delivery_id, c.log_id) for c in claims],
    )
    return claims


def record(conn: Connection, outcomes: Iterable[Outcome], now: float, grace_s: float) -> None:
    """Store the outcome of each send: message ids, inactive chats, retries (with backoff)."""
    finals: list[tuple[str, float, str | None, int]] = []
    retries: list[tuple[float, float, str | None, int]] = []
    messages: list[tuple[int, int, int]] = []
    blocked: list[tuple[float, int]] = []
    for o in outcomes:
        if o.state is PushState.RETRY:
            # Rare (an outage, a timeout): a lookup per row costs nothing next to the send.
            attempts, due_at = conn.execute(
                "SELECT attempts, due_at FROM push_log WHERE id = ?", (o.log_id,)
            ).fetchone()
            wait = retry_delay(attempts) if o.retry_after is None else o.retry_after
            retry_at = now + wait
            if retry_at > due_at + grace_s or attempts >= MAX_ATTEMPTS:
                error = f"gave up after {attempts} tries: {o.error}"
                finals.append(("failed", now, error[:200], o.log_id))
            else:
                retries.append((retry_at, now, o.error, o.log_id))
        else:
            finals.append((o.state, now, o.error, o.log_id))
        if o.state is PushState.SENT and o.message_id is not None and o.delivery_id is not None:
            messages.append((o.message_id, o.chat_id, o.delivery_id))
        if o.state is PushState.BLOCKED:
            blocked.append((now, o.chat_id))
    conn.executemany(
        "UPDATE push_log SET state = ?, finished_at = ?, error = ? WHERE id = ?", finals
    )
    conn.executemany(
        "UPDATE push_log SET state = 'pending', not_before = ?, finished_at = ?, error = ?"
        " WHERE id = ?",
        retries,
    )
    conn.executemany(
        # chat_id too: after a migration the buttons live in the new chat.
        "UPDATE deliveries SET message_id = ?, chat_id = ? WHERE id = ?",
        messages,
    )
    conn.executemany(
        "UPDATE subscriptions SET active = 0, updated_at = ? WHERE chat_id = ?", blocked
    )
    conn.executemany("UPDATE chats SET active = 0, updated_at = ? WHERE id = ?", blocked)


def next_wake(conn: Connection) -> float | None:
    """The earliest instant a subscription falls due or a pending row is ready (backoff over).

    A pending row that is ready already (a run stopped claiming early) gives an instant in the
    past, i.e. "wake now"; rows in backoff give their `not_before`, so a retry is not left to
    the next tick. Both MINs are answered from an index (subscriptions_due, push_log_ready).
    """
    row = conn.execute(
        "SELECT MIN(t) FROM (SELECT MIN(next_due_at) AS t FROM subscriptions WHERE active = 1"
        " UNION ALL SELECT MIN(COALESCE(not_before, due_at)) FROM push_log"
        " WHERE state = 'pending') AS wakes"
    ).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def push_counts(conn: Connection, since: float) -> dict[str, int]:
    """Log rows by state for pushes due since `since`."""
    rows = conn.execute(
        "SELECT state, COUNT(*) FROM push_log WHERE due_at >= ? GROUP BY state", (since,)
    ).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def subscriber_counts(conn: Connection, now: float, horizon: float) -> tuple[int, int, int]:
    """(active, inactive, due within `horizon` seconds) subscriptions."""
    # Three range counts on subscriptions_by_active, never a scan of the table.
    row = conn.execute(
        "SELECT (SELECT COUNT(*) FROM subscriptions WHERE active = 1),"
        " (SELECT COUNT(*) FROM subscriptions WHERE active = 0),"
        " (SELECT COUNT(*) FROM subscriptions WHERE active = 1 AND next_due_at <= ?)",
        (now + horizon,),
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2])
