"""Answer-callback throughput: a bare PTB handler against quizbot's full answer path.

Both run 5,000 callbacks through `Application.process_update` over the same instant fake
request. (a) only answers the query and edits the message; (b) is the real bot: parse the button,
grade, record the answer durably in SQLite (WAL, one transaction), render the verdict, answer the
query and edit the message. Target at 32 in flight: (b) keeps at least 0.7 of (a)'s
throughput. (a) and (b) alternate, a b a b ..., so a noisy machine hits both alike.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import Application, CallbackQueryHandler, ContextTypes

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS, Settings
from bot.practice.catalog import Catalog
from bot.storage import practice_sql as sql
from bot.telegram.app import build_application
from tests.bench.instant import BOT, InstantRequest

N = 5_000
TOKEN = "123456:" + "B" * 35
USERS = 500


def callback_payload(update_id: int, user_id: int, data: str, message_id: int) -> dict[str, Any]:
    user = {"id": user_id, "is_bot": False, "first_name": f"U{user_id}"}
    return {
        "update_id": update_id,
        "callback_query": {
            "id": str(update_id),
            "from": user,
            "chat_instance": "1",
            "data": data,
            "message": {
                "message_id": message_id,
                "date": int(time.time()),
                "chat": {"id": user_id, "type": "private", "first_name": user["first_name"]},
                "from": BOT,
                "text": "question",
            },
        },
    }


# Per-update latencies, wall time, CPU time of the process (every thread: the database's too).
Run = tuple[list[float], float, float]


async def timed(
    app: Application[Any, Any, Any, Any, Any, Any], updates: list[Update], in_flight: int
) -> Run:
    """Process updates with at most in_flight at once, as PTB's concurrent_updates does."""
    latencies: list[float] = []
    gate = asyncio.Semaphore(in_flight)

    async def one(update: Update) -> None:
        async with gate:
            t0 = time.perf_counter()
            await app.process_update(update)
            latencies.append(time.perf_counter() - t0)

    started, cpu = time.perf_counter(), time.process_time()
    if in_flight == 1:
        for update in updates:
            await one(update)
    else:
        await asyncio.gather(*(one(u) for u in updates))
    return latencies, time.perf_counter() - started, time.process_time() - cpu


async def bare(in_flight: int) -> Run:
    async def handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        await query.answer("✅ Correct!")
        await query.edit_message_text(
            "Verdict",
            reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("Next", callback_data="n")]]),
        )

    app = Application.builder().token(TOKEN).request(InstantRequest()).updater(None).build()
    app.add_handler(CallbackQueryHandler(handler))
    async with app:
        updates = [
            Update.de_json(callback_payload(i, 1 + i % USERS, f"a:{i}:0", i), app.bot)
            for i in range(N)
        ]
        return await timed(app, updates, in_flight)


async def ours(tmp: Path, in_flight: int) -> tuple[Run, int]:
    result = load_banks([BUNDLED_QUESTIONS])
    catalog = Catalog(result.banks)
    bank = catalog.bank(None)
    settings = Settings(BOT_TOKEN=TOKEN, QUIZBOT_DB=tmp / f"bench{in_flight}.sqlite3")  # type: ignore[call-arg]
    app = build_application(
        settings, catalog, request=InstantRequest(), with_updater=False, rng=random.Random(1)
    )
    async with app:
        assert app.post_init is not None and app.post_shutdown is not None
        await app.post_init(app)
        services = app.bot_data.services
        questions = [q for q in bank.questions.values() if q.kind.value == "single"]
        now = time.time()

        def seed(conn: Any) -> list[tuple[int, int, int]]:
            out = []
            for i in range(N):
                user_id = 1 + i % USERS
                q = questions[i % len(questions)]
                did = sql.insert_delivery(
                    conn,
                    chat_id=user_id,
                    user_id=user_id,
                    bank_id=bank.id,
                    question_id=q.id,
                    source="quiz",
                    now=now,
                    **shown(q, i),
                )
                sql.set_delivery_message(conn, did, i + 1)
                out.append((did, user_id, i % len(q.options)))
            return out

        seeded = await services.db.write(seed)
        updates = [
            Update.de_json(callback_payload(i, user, f"a:{did}:{TOKEN4}:{opt}", i + 1), app.bot)
            for i, (did, user, opt) in enumerate(seeded)
        ]
        run = await timed(app, updates, in_flight)
        count = await services.db.read(
            lambda c: c.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        )
        await app.post_shutdown(app)
    return run, count


TOKEN4 = "b000"


def shown(question: Any, i: int) -> dict[str, Any]:
    """A delivery as the bot records one: shuffled options, the question's version, a token
    (an empty dict on a code base without them, so main and a branch can be compared)."""
    try:
        from bot.domain import display
    except ImportError:
        return {}
    order = display.shuffled_order(question, random.Random(i))
    return {
        "option_order": display.encode_order(order),
        "version": display.question_version(question),
        "token": TOKEN4,
    }


def summary(name: str, run: Run) -> float:
    latencies, wall, cpu = run
    qs = statistics.quantiles(latencies, n=100)
    rate = len(latencies) / wall
    print(
        f"   {name:<34} {rate:7.0f} updates/s   p50 {qs[49] * 1e6:7.0f} µs   "
        f"p99 {qs[98] * 1e6:7.0f} µs   CPU {cpu / len(latencies) * 1e6:4.0f} µs/update"
    )
    return rate


REPS = 5


def main() -> None:
    print(f"   {N} answer callbacks per run, same instant fake request, one CPU-bound process")
    print(f"   (a) and (b) interleaved, a b a b ..., {REPS} reps each; ratio per adjacent pair")
    for in_flight, label in ((1, "one at a time"), (32, "32 in flight, as the bot runs")):
        print(f"   -- {label}")
        ratios: list[float] = []
        cpu_ratios: list[float] = []
        rates_a: list[float] = []
        rates_b: list[float] = []
        for rep in range(REPS):
            with tempfile.TemporaryDirectory() as tmp:
                bare_run = asyncio.run(bare(in_flight))
                our_run, recorded = asyncio.run(ours(Path(tmp), in_flight))
            assert recorded == N, f"answers recorded in SQLite: {recorded}/{N}"
            rates_a.append(len(bare_run[0]) / bare_run[1])
            rates_b.append(len(our_run[0]) / our_run[1])
            ratios.append(rates_b[-1] / rates_a[-1])
            cpu_ratios.append(bare_run[2] / our_run[2])  # CPU per update, (a) over (b)
            if rep == 0:
                summary("(a) bare PTB answer+edit", bare_run)
                summary("(b) quizbot answer path", our_run)
        for name, xs in (("(a) updates/s", rates_a), ("(b) updates/s", rates_b)):
            print(
                f"   {name:<16} min {min(xs):7.0f}  median {statistics.median(xs):7.0f}"
                f"  max {max(xs):7.0f}"
            )
        # On a busy machine wall time swings with the neighbours; CPU time much less so.
        print(
            f"   CPU (a)/(b)      min {min(cpu_ratios):.2f}  median"
            f" {statistics.median(cpu_ratios):.2f}  max {max(cpu_ratios):.2f}"
        )
        target = 0.7 if in_flight > 1 else 0.0
        verdict = "OK" if statistics.median(ratios) >= target else "BELOW TARGET"
        print(
            f"   ratio (b)/(a) min {min(ratios):.2f}  median {statistics.median(ratios):.2f}"
            f"  max {max(ratios):.2f}" + (f"  (target >= {target}: {verdict})" if target else "")
        )


if __name__ == "__main__":
    main()
