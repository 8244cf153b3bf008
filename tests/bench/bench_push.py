"""Daily push benchmark: `python -m tests.bench push`.

Pacing off: 100,000 subscribers against an instant Bot API: deliveries/s of bookkeeping (claim,
pick, send through PTB, record), CPU per delivery, peak RSS. Pacing on: achieved rate against
the configured one over 20 s, and the p99 latency of answer callbacks (through
`app.process_update`) while the push runs, against idle.

The grace on a simulated clock: 10,000 subscribers due at one instant, 25/s, a 5-minute grace,
the run starting 10 s late: how many are sent, skipped, and sent after due + grace (must be 0).

A million subscribers planned (turned into push_log rows) in a fresh process: wall and CPU
time, the process's peak RSS, the longest planning transaction (inside it, and as a round trip
with its commit), the latency of an answer-sized write (one row) probing the writer every 5 ms
meanwhile, the WAL's largest size and the waits for checkpoint passes between transactions.

QUIZBOT_BENCH_PUSH=throughput,grace,million picks parts (default: all of them).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from telegram import Update

from bot.commands.run import load_catalog
from bot.config import Settings
from bot.domain import due, zones
from bot.domain.models import Learner
from bot.practice.clock import FakeClock
from bot.schedule.push import PushService
from bot.storage import push_log
from bot.storage.port import Connection
from bot.storage.sqlite import database as db_module
from bot.storage.sqlite.database import connect_sync
from bot.storage.sqlite.migrations import apply_migrations
from bot.telegram.app import build_application
from bot.telegram.context import QuizApp, Services
from bot.telegram.outbound.push_courier import TelegramCourier
from tests import factories
from tests.bench.instant import InstantRequest
from tests.botharness import make_settings, running_bot
from tests.fakes import FakeBotApi
from tests.push_support import insert_private_subscriptions

SUBSCRIBERS = 100_000
PACED_RATE = 25.0
PACED_SECONDS = 20.0
START = dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC)
TARGETS = {"deliveries/s": 5000.0, "rss MB": 150.0, "rate error": 0.05, "p99 ratio": 2.0}
HERE = Path(__file__).resolve().parents[2]
T = TypeVar("T")

GRACE_SUBSCRIBERS = 10_000
GRACE_RATE = 25.0
GRACE_MINUTES = 5
MILLION = int(os.environ.get("QUIZBOT_BENCH_MILLION", "1000000"))
MAX_HOLD_S = 0.1


def seed(db: Path, count: int, local_time: str) -> None:
    """`count` learners subscribed at local_time UTC (set up an hour before it)."""
    conn = connect_sync(db)
    now = START.timestamp()
    try:
        apply_migrations(conn)
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO users (id, first_name, started, created_at, seen_at)"
            " VALUES (?, 'L', 1, ?, ?)",
            ((1_000_000 + i, now, now) for i in range(count)),
        )
        for i in range(count):
            push_log.upsert_subscription(
                conn,
                chat_id=1_000_000 + i,
                user_id=1_000_000 + i,
                kind="private",
                local_time=local_time,
                timezone="UTC",
                now=now,
            )
        conn.execute("COMMIT")
    finally:
        conn.close()


async def started_app(
    folder: Path, clock: FakeClock, settings: Settings | None = None
) -> tuple[QuizApp, InstantRequest, Services]:
    """The bot on an instant Bot API, started as `quizbot run` starts it (`settings`: the
    SQLite file in `folder` unless given)."""
    request = InstantRequest()
    settings = settings or make_settings(folder, push_rate=PACED_RATE)
    catalog = load_catalog(settings)
    assert catalog is not None
    app = build_application(settings, catalog, request=request, clock=clock, with_updater=False)
    await app.initialize()
    assert app.post_init is not None
    await app.post_init(app)
    services = app.bot_data.services
    assert services is not None
    return app, request, services


async def unpaced_push(
    app: QuizApp, services: Services, clock: FakeClock, window: int
) -> PushService:
    """A push that sends as fast as the Bot API answers, `window` sends in flight; the app's
    own push is stopped, so that only the measured one claims."""
    if services.push is not None:
        await services.push.stop()
    courier = TelegramCourier(
        app.bot, services.catalog, practice=services.practice, groups=services.groups
    )
    return PushService(
        services.db,
        services.settings,
        courier,
        practice=services.practice,
        groups=services.groups,
        clock=clock,
        paced=False,
        window=window,
    )


async def stopped(app: QuizApp) -> None:
    assert app.post_shutdown is not None
    await app.post_shutdown(app)
    await app.shutdown()


async def unpaced(folder: Path) -> dict[str, float]:
    seed(folder / "bot.sqlite3", SUBSCRIBERS, "07:00")
    clock = FakeClock(START + dt.timedelta(hours=1, minutes=1))
    app, request, services = await started_app(folder, clock)
    try:
        push = await unpaced_push(app, services, clock, window=512)
        wall, cpu = time.perf_counter(), time.process_time()
        sent = await push.run_once()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        await stopped(app)
    assert sent == SUBSCRIBERS == len(request.sends), (sent, len(request.sends))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"deliveries/s": sent / wall, "cpu µs": cpu / sent * 1e6, "rss MB": rss_mb, "s": wall}


async def answer_latencies(
    app: QuizApp, services: Services, learners: range, spacing: float
) -> list[float]:
    """Answer one fresh question per learner through process_update; seconds per update."""
    out = []
    for uid in learners:
        delivery = await services.practice.next_delivery(uid, Learner(uid, "A"))
        assert delivery is not None
        user = factories.user(uid, "A")
        message = factories.message("q", None, factories.private_chat(user), message_id=1)
        option = next(iter(delivery.question.correct_indices))
        update = Update.de_json(
            factories.callback(f"a:{delivery.id}:{option}", user, message), app.bot
        )
        t0 = time.perf_counter()
        await app.process_update(update)
        out.append(time.perf_counter() - t0)
        await asyncio.sleep(spacing)
    return out


def p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100)[98]


async def paced(folder: Path) -> dict[str, float]:
    seed(folder / "bot.sqlite3", int(PACED_RATE * PACED_SECONDS * 1.5), "07:00")
    clock = FakeClock(START + dt.timedelta(hours=1, minutes=1))
    app, request, services = await started_app(folder, clock)
    push = services.push
    assert push is not None
    try:
        idle = await answer_latencies(app, services, range(1, 401), 0.01)
        runner = asyncio.create_task(push.run_once())
        busy = await answer_latencies(app, services, range(1001, 1801), 0.02)
        await asyncio.sleep(max(0.0, PACED_SECONDS - (time.monotonic() - request.sends[0])))
        await push.stop()
        await asyncio.gather(runner, return_exceptions=True)
    finally:
        await stopped(app)
    first = request.sends[0]
    window = [t for t in request.sends if t - first <= PACED_SECONDS]
    achieved = (len(window) - 1) / (window[-1] - first)
    return {
        "achieved/s": achieved,
        "rate error": abs(achieved - PACED_RATE) / PACED_RATE,
        "idle p99 ms": p99(idle) * 1e3,
        "push p99 ms": p99(busy) * 1e3,
        "p99 ratio": p99(busy) / p99(idle),
    }


class DatedApi(FakeBotApi):
    """The fake Bot API, keeping the date of every message it accepted (the fake clock's)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__(clock=clock)
        self.dates: list[int] = []

    def handle(
        self, method: str, params: dict[str, Any], files: dict[str, bytes] | None = None
    ) -> tuple[int, Any]:
        status, body = super().handle(method, params, files)
        if method.lower() == "sendmessage" and status == 200:
            self.dates.append(body["result"]["date"])
        return status, body


async def grace_run(folder: Path) -> dict[str, Any]:
    """10,000 due at 06:01 at 25/s with a 5-minute grace, the run starting at 06:01:10, on a
    simulated clock: pacing waits move the clock and cost no time. One send at a time, so the
    clock moves exactly by each wait (several in flight would each move it by their own)."""
    box: list[Any] = []
    api = DatedApi(clock=lambda: box[0].clock.now() if box else 0.0)
    settings = {"push_rate": GRACE_RATE, "push_grace_minutes": GRACE_MINUTES}
    async with running_bot(folder, api=api, **settings) as h:
        box.append(h)
        push = h.services.push
        assert push is not None
        push.pace_now = h.clock.now
        push.window = 1

        async def advance(seconds: float) -> None:
            h.clock.advance(seconds)

        push.sleep = advance
        h.clock.set(START)
        chats = range(10_000, 10_000 + GRACE_SUBSCRIBERS)
        now = h.clock.now()

        def subscribe(conn: Connection) -> None:
            for chat in chats:
                push_log.upsert_subscription(
                    conn,
                    chat_id=chat,
                    user_id=chat,
                    kind="private",
                    local_time="06:01",
                    timezone="UTC",
                    now=now,
                )

        await h.services.db.write(subscribe)
        cap = await push.capacity()
        due_at = (START + dt.timedelta(minutes=1)).timestamp()
        h.clock.set(START + dt.timedelta(minutes=1, seconds=10))
        wall, cpu = time.perf_counter(), time.process_time()
        sent = await push.run_once()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        dates = api.dates
        states = dict(
            factories.rows(h.db_path, "SELECT state, COUNT(*) FROM push_log GROUP BY state")
        )
        picked = factories.rows(
            h.db_path, "SELECT COUNT(*) FROM deliveries WHERE source = 'daily'"
        )[0][0]
    deadline = due_at + GRACE_MINUTES * 60
    return {
        "sent": sent,
        "messages": len(dates),
        "late": sum(d > deadline for d in dates),
        "last after due s": max(dates) - due_at if dates else 0,
        "states": states,
        "picked": picked,
        "warning": cap.warning() if cap is not None else None,
        "s": wall,
        "cpu s": cpu,
    }


def seed_million(db: Path, count: int) -> None:
    """`count` subscriptions due by 07:01 UTC: 61 local times (06:00-07:00) in two zones, as
    a real audience spreads (Lisbon's are over two hours late at 07:01 UTC: skipped)."""
    conn = connect_sync(db)
    now = (START - dt.timedelta(hours=2)).timestamp()  # 04:00 UTC: every time is due today
    pairs = [
        (f"06:{m:02d}" if m < 60 else "07:00", z)
        for m in range(61)
        for z in ("UTC", "Europe/Lisbon")
    ]
    occurrences = []
    for local_time, zone in pairs:
        tz = zones.zone(zone)
        assert tz is not None
        occ = due.next_due(local_time, tz, now)
        occurrences.append((local_time, zone, occ.local_date, occ.at))
    try:
        apply_migrations(conn)
        conn.execute("BEGIN")
        insert_private_subscriptions(
            conn,
            ((2_000_000 + i, *occurrences[i % len(occurrences)]) for i in range(count)),
            now,
        )
        # The probe's answer-sized write: one row, a page or two in the WAL, as an answer.
        conn.execute("CREATE TABLE probe (id INTEGER PRIMARY KEY, at REAL NOT NULL)")
        conn.execute("COMMIT")
    finally:
        conn.close()


def _percentile(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100)[q - 1] if len(samples) > 1 else samples[0]


def clocked(fn: Callable[[Connection], T], into: list[float]) -> Callable[[Connection], T]:
    """fn, each call's duration appended to `into`."""

    def run(conn: Connection) -> T:
        began = time.perf_counter()
        try:
            return fn(conn)
        finally:
            into.append(time.perf_counter() - began)

    return run


async def plan_million(folder: Path) -> dict[str, float]:
    """In this process: start the app on the seeded database and plan everything due."""
    clock = FakeClock(START + dt.timedelta(hours=1, minutes=1))
    app, _, services = await started_app(folder, clock)
    push = services.push
    assert push is not None
    rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cap = await push.capacity()
    assert cap is not None
    db = services.db
    write = db.write
    holds: list[float] = []
    probes: list[float] = []

    inside: list[float] = []

    async def timed(fn: Callable[[Connection], T]) -> T:
        started = time.perf_counter()
        try:
            return await write(clocked(fn, inside))
        finally:
            holds.append(time.perf_counter() - started)

    wal_file = folder / "bot.sqlite3-wal"
    wal_sizes: list[int] = []

    def answer_sized(conn: Connection) -> None:
        conn.execute("INSERT INTO probe (at) VALUES (?)", (time.time(),))

    async def probe() -> None:
        while True:
            started = time.perf_counter()
            await write(answer_sized)
            probes.append(time.perf_counter() - started)
            # The WAL file grows only when the WAL passes its largest size so far.
            wal_sizes.append(wal_file.stat().st_size if wal_file.exists() else 0)
            await asyncio.sleep(0.005)

    # Waits for the checkpoint thread between planning transactions (where there are any).
    waits: list[float] = []
    keeper = getattr(db, "wal", None)  # the checkpoint thread of revisions that had one
    settle = getattr(keeper, "settle", None)
    if keeper is not None and settle is not None:

        async def timed_settle() -> object:
            started = time.perf_counter()
            try:
                return await settle()
            finally:
                waits.append(time.perf_counter() - started)

        keeper.settle = timed_settle  # type: ignore[method-assign]

    # Settles that ended with the writer copying what writes beside the passes added.
    catch_ups: list[float] = []
    catch_up = getattr(db_module, "catch_up_wal", None)
    if catch_up is not None:
        db_module.catch_up_wal = clocked(catch_up, catch_ups)

    # The same probe with nothing else writing: what this machine's scheduling costs alone.
    prober = asyncio.create_task(probe())
    await asyncio.sleep(3.0)
    prober.cancel()
    await asyncio.gather(prober, return_exceptions=True)
    idle, probes = probes, []
    db.write = timed  # type: ignore[method-assign]
    prober = asyncio.create_task(probe())
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        planned = await push.plan(clock.now())
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        prober.cancel()
        await asyncio.gather(prober, return_exceptions=True)
        db.write = write  # type: ignore[method-assign]
        await stopped(app)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    (rows,) = factories.one(folder / "bot.sqlite3", "SELECT COUNT(*) FROM push_log")
    return {
        "planned": planned,
        "rows": rows,
        "s": wall,
        "cpu s": cpu,
        "rss start MB": rss_start,
        "rss MB": rss,
        "batches": len(holds),
        "longest in-transaction ms": max(inside) * 1e3,
        "in-transaction p99 ms": _percentile(inside, 99) * 1e3,
        "longest round trip ms": max(holds) * 1e3,
        "round trip p99 ms": _percentile(holds, 99) * 1e3,
        "longest outside ms": max(h - i for h, i in zip(holds, inside, strict=True)) * 1e3,
        "probe p99 ms": _percentile(probes, 99) * 1e3,
        "probe max ms": max(probes) * 1e3,
        "probes": len(probes),
        "idle p99 ms": _percentile(idle, 99) * 1e3,
        "idle max ms": max(idle) * 1e3,
        "wal MB": max(wal_sizes, default=0) / 2**20,
        "waits": len(waits),
        "wait ms": sum(waits) * 1e3,
        "longest wait ms": max(waits, default=0.0) * 1e3,
        "catch-ups": len(catch_ups),
        "catch-up p50 ms": _percentile(catch_ups, 50) * 1e3 if catch_ups else 0.0,
        "longest catch-up ms": max(catch_ups, default=0.0) * 1e3,
        "peak due": cap.peak_subscribers,
        "servable": cap.servable,
        "warning": cap.warning(),  # type: ignore[dict-item]
    }


def plan_million_child(folder: str) -> None:
    """Entry point of the child process: print plan_million's figures as one JSON line."""
    print(json.dumps(asyncio.run(plan_million(Path(folder)))))


def million(folder: Path) -> dict[str, Any]:
    """Seed a million subscriptions here, plan them in a fresh process (its own peak RSS)."""
    started = time.perf_counter()
    seed_million(folder / "bot.sqlite3", MILLION)
    seeded = time.perf_counter() - started
    code = (
        "from tests.bench.bench_push import plan_million_child; "
        f"plan_million_child({str(folder)!r})"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=HERE,
        env={**os.environ, "PYTHONPATH": str(HERE)},
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        raise SystemExit(f"plan_million failed:\n{out.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    figures["seed s"] = seeded
    return figures


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main() -> None:
    """Run the parts asked for and print the figures against the targets."""
    parts = set(os.environ.get("QUIZBOT_BENCH_PUSH", "throughput,grace,million").split(","))
    if "throughput" in parts:
        throughput()
    if "grace" in parts:
        with tempfile.TemporaryDirectory() as tmp:
            g = asyncio.run(grace_run(Path(tmp)))
        print(
            f"   grace, simulated clock: {GRACE_SUBSCRIBERS:,} due at 06:01, {GRACE_RATE:g}/s,"
            f" {GRACE_MINUTES}-minute grace, run from 06:01:10"
            f" ({g['s']:.1f} s, {g['cpu s']:.1f} s CPU)"
        )
        print(f"   capacity     {g['warning']}")
        print(f"   log rows     {g['states']}; {g['messages']:,} messages sent")
        print(f"   picked       {g['picked']:,} questions picked and deliveries written")
        ok = g["late"] == 0
        print(
            f"   after grace  {g['late']} sent after due + grace; last sent"
            f" {g['last after due s']:.0f} s after due (target 0)  {verdict(ok)}"
        )
    if "million" in parts:
        with tempfile.TemporaryDirectory() as tmp:
            m = million(Path(tmp))
        print(
            f"   planning {MILLION:,} subscribers (seeded in {m['seed s']:.0f} s):"
            f" {m['planned']:,} planned into {m['rows']:,} rows"
            f" in {m['s']:.1f} s ({m['cpu s']:.1f} s CPU),"
            f" {m['batches']} transactions"
        )
        ok = m["rss MB"] < TARGETS["rss MB"]
        print(
            f"   peak rss     {m['rss MB']:8.1f} MB (started at {m['rss start MB']:.0f})"
            f"  (target < {TARGETS['rss MB']:.0f})  {verdict(ok)}"
        )
        ok = m["longest in-transaction ms"] <= MAX_HOLD_S * 1e3
        print(
            f"   writer hold  planning transactions: longest"
            f" {m['longest in-transaction ms']:.1f} ms"
            f" inside (p99 {m['in-transaction p99 ms']:.1f})  (target <= {MAX_HOLD_S * 1e3:.0f})"
            f"  {verdict(ok)}"
        )
        print(
            f"   round trip   longest {m['longest round trip ms']:.1f} ms with its commit and"
            f" thread hand-off (p99 {m['round trip p99 ms']:.1f}); longest outside the"
            f" transaction {m['longest outside ms']:.1f} ms"
        )
        print(
            f"   probe write  p99 {m['probe p99 ms']:.1f} ms, max {m['probe max ms']:.1f} ms"
            f" over {m['probes']:,} one-row writes during planning; idle: p99"
            f" {m['idle p99 ms']:.1f} ms, max {m['idle max ms']:.1f} ms"
        )
        print(
            f"   wal          largest {m['wal MB']:.1f} MB on disk; planning waited for"
            f" {m['waits']} checkpoint passes, {m['wait ms'] / 1e3:.1f} s in all"
            f" (longest {m['longest wait ms']:.0f} ms); {m['catch-ups']} ended with the"
            f" writer copying the rest (p50 {m['catch-up p50 ms']:.1f} ms,"
            f" longest {m['longest catch-up ms']:.1f} ms)"
        )
        print(
            f"   capacity     {m['warning'] or 'fits'} (busiest instant: {m['peak due']:,} due;"
            f" the rate serves {m['servable']:,} within the grace)"
        )


def throughput() -> None:
    """The unpaced and paced parts (100,000 subscribers; 25/s for 20 s)."""
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        off = asyncio.run(unpaced(Path(a)))
        on = asyncio.run(paced(Path(b)))
    t = TARGETS
    print(f"   pacing off, {SUBSCRIBERS:,} subscribers in {off['s']:.1f} s")
    ok = off["deliveries/s"] >= t["deliveries/s"]
    print(
        f"   bookkeeping  {off['deliveries/s']:8,.0f} deliveries/s"
        f"  (target >= {t['deliveries/s']:,.0f})  {verdict(ok)}"
    )
    print(f"   cpu          {off['cpu µs']:8.0f} µs per delivery")
    ok = off["rss MB"] < t["rss MB"]
    print(f"   peak rss     {off['rss MB']:8.1f} MB  (target < {t['rss MB']:.0f})  {verdict(ok)}")
    print(f"   pacing on, configured {PACED_RATE:g}/s over {PACED_SECONDS:g} s")
    ok = on["rate error"] <= t["rate error"]
    print(
        f"   achieved     {on['achieved/s']:8.2f} /s  (error {on['rate error']:.1%},"
        f" target <= {t['rate error']:.0%})  {verdict(ok)}"
    )
    ok = on["p99 ratio"] <= t["p99 ratio"]
    print(
        f"   answer p99   {on['idle p99 ms']:.2f} ms idle, {on['push p99 ms']:.2f} ms during"
        f" push (x{on['p99 ratio']:.2f}, target <= x{t['p99 ratio']:g})  {verdict(ok)}"
    )


if __name__ == "__main__":
    main()
