"""Daily push benchmark: `python -m tests.bench push`.

Pacing off: 100,000 subscribers against an instant Bot API: deliveries/s of bookkeeping (claim,
pick, send through PTB, record), CPU per delivery, peak RSS. Pacing on: achieved rate against
the configured one over 20 s, and the p99 latency of answer callbacks (through
`app.process_update`) while the push runs, against idle.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import resource
import statistics
import tempfile
import time
from pathlib import Path

from telegram import Update

from bot.commands.run import load_catalog
from bot.domain.models import Learner
from bot.practice.clock import FakeClock
from bot.schedule.push import PushService
from bot.storage import push_log
from bot.storage.db import connect_sync
from bot.storage.migrations import apply_migrations
from bot.telegram.app import build_application
from bot.telegram.context import QuizApp, Services
from bot.telegram.outbound.push_courier import TelegramCourier
from tests import factories
from tests.bench.instant import InstantRequest
from tests.botharness import make_settings

SUBSCRIBERS = 100_000
PACED_RATE = 25.0
PACED_SECONDS = 20.0
START = dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC)
TARGETS = {"deliveries/s": 5000.0, "rss MB": 150.0, "rate error": 0.05, "p99 ratio": 2.0}


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


async def started_app(folder: Path, clock: FakeClock) -> tuple[QuizApp, InstantRequest, Services]:
    request = InstantRequest()
    settings = make_settings(folder, push_rate=PACED_RATE)
    catalog = load_catalog(settings)
    assert catalog is not None
    app = build_application(settings, catalog, request=request, clock=clock, with_updater=False)
    await app.initialize()
    assert app.post_init is not None
    await app.post_init(app)
    services = app.bot_data.services
    assert services is not None
    return app, request, services


async def stopped(app: QuizApp) -> None:
    assert app.post_shutdown is not None
    await app.post_shutdown(app)
    await app.shutdown()


async def unpaced(folder: Path) -> dict[str, float]:
    seed(folder / "bot.sqlite3", SUBSCRIBERS, "07:00")
    clock = FakeClock(START + dt.timedelta(hours=1, minutes=1))
    app, request, services = await started_app(folder, clock)
    try:
        courier = TelegramCourier(
            app.bot, services.catalog, practice=services.practice, groups=services.groups
        )
        push = PushService(
            services.db,
            services.settings,
            courier,
            practice=services.practice,
            groups=services.groups,
            clock=clock,
            paced=False,
            window=512,
        )
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


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main() -> None:
    """Run both parts and print the figures against the targets."""
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
