"""A 60-question mock exam answered in the chat, against practice answers, end to end.

Both go through `Application.process_update` of the real bot over the same instant fake request
(as `bench_answers`), LEARNERS learners at once, each one tap after the other:
(a) practice: each learner answers 60 questions (one answer callback each: grade, record,
render the verdict, answer, edit);
(b) mock: each learner sits a 60-question exam: per question a letter tap and a Next tap (each
loads the exam, writes the change, renders the screen and its keyboard, answers, edits), then
Finish (the result, its chart rendered in a thread, the review button).
Rates are answered questions per second; runs interleave a b a b ... Target: (b) >= 0.5 (a).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from telegram import Update

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS, Settings
from bot.mock.models import ExamKind
from bot.practice.catalog import Catalog
from bot.storage import practice_sql as sql
from bot.telegram.app import build_application
from bot.telegram.context import QuizApp
from tests.bench.bench_answers import callback_payload
from tests.bench.instant import InstantRequest

TOKEN = "123456:" + "C" * 35
LEARNERS = 20
QUESTIONS = 60
REPS = 3


def _app(tmp: Path, name: str) -> QuizApp:
    catalog = Catalog(load_banks([BUNDLED_QUESTIONS]).banks)
    settings = Settings(BOT_TOKEN=TOKEN, QUIZBOT_DB=tmp / f"{name}.sqlite3")  # type: ignore[call-arg]
    return build_application(
        settings, catalog, request=InstantRequest(), with_updater=False, rng=random.Random(1)
    )


async def _learners(app: QuizApp, taps: dict[int, list[dict[str, Any]]]) -> float:
    """Each learner's taps in order, learners concurrently; wall seconds."""
    ids = iter(range(10**9))

    async def one(payloads: list[dict[str, Any]]) -> None:
        for payload in payloads:
            payload["update_id"] = next(ids)
            await app.process_update(Update.de_json(payload, app.bot))

    started = time.perf_counter()
    await asyncio.gather(*(one(p) for p in taps.values()))
    return time.perf_counter() - started


async def practice(tmp: Path) -> float:
    """Answered questions per second in practice."""
    app = _app(tmp, "practice")
    async with app:
        assert app.post_init is not None and app.post_shutdown is not None
        await app.post_init(app)
        services = app.bot_data.services
        assert services is not None
        bank = services.catalog.bank(None)
        qs = [q for q in bank.questions.values() if q.kind.value == "single"]
        now = time.time()

        def seed(conn: Any) -> dict[int, list[dict[str, Any]]]:
            out: dict[int, list[dict[str, Any]]] = {}
            for u in range(1, LEARNERS + 1):
                for i in range(QUESTIONS):
                    q = qs[(u * 7 + i) % len(qs)]
                    did = sql.insert_delivery(
                        conn, chat_id=u, user_id=u, bank_id=bank.id, question_id=q.id,
                        source="quiz", now=now,
                    )  # fmt: skip
                    sql.set_delivery_message(conn, did, i + 1)
                    out.setdefault(u, []).append(callback_payload(0, u, f"a:{did}:0", i + 1))
            return out

        taps = await services.db.write(seed)
        wall = await _learners(app, taps)
        await app.post_shutdown(app)
    return LEARNERS * QUESTIONS / wall


async def mock(tmp: Path) -> tuple[float, float]:
    """Answered questions per second in mock exams; and with Finish (result and chart)."""
    app = _app(tmp, "mock")
    async with app:
        assert app.post_init is not None and app.post_shutdown is not None
        await app.post_init(app)
        services = app.bot_data.services
        assert services is not None
        taps: dict[int, list[dict[str, Any]]] = {}
        finishes: dict[int, list[dict[str, Any]]] = {}
        for u in range(1, LEARNERS + 1):
            reply = await services.mock.start(u, chat_id=u, kind=ExamKind.FULL)
            exam = reply.exam
            assert exam is not None and exam.size == QUESTIONS
            await services.mock.attach_message(exam.id, u, 1)
            for pos in range(QUESTIONS):
                taps.setdefault(u, []).append(callback_payload(0, u, f"m:{exam.id}:{pos}:a0", 1))
                if pos < QUESTIONS - 1:
                    taps[u].append(callback_payload(0, u, f"m:{exam.id}:{pos}:n", 1))
            # Finish asks first (a "select two" answered with one letter is still open).
            finishes[u] = [
                callback_payload(0, u, f"m:{exam.id}:{QUESTIONS - 1}:{action}", 1)
                for action in ("e", "y")
            ]
        wall = await _learners(app, taps)
        wall_finish = await _learners(app, finishes)
        done = await services.db.read(
            lambda c: c.execute(
                "SELECT COUNT(*) FROM mock_exams WHERE status = 'finished'"
            ).fetchone()[0]
        )
        assert done == LEARNERS, f"{done} exams finished of {LEARNERS}"
        await app.post_shutdown(app)
    answered = LEARNERS * QUESTIONS
    return answered / wall, answered / (wall + wall_finish)


def _spread(xs: list[float]) -> str:
    return f"min {min(xs):6.0f}  median {statistics.median(xs):6.0f}  max {max(xs):6.0f}"


def main() -> None:
    print(
        f"   {LEARNERS} learners at once x {QUESTIONS} questions, real Application, instant "
        f"fake request; {REPS} interleaved runs each"
    )
    a: list[float] = []
    b: list[float] = []
    b_all: list[float] = []
    for _ in range(REPS):
        with tempfile.TemporaryDirectory() as tmp:
            a.append(asyncio.run(practice(Path(tmp))))
            rate, with_finish = asyncio.run(mock(Path(tmp)))
            b.append(rate)
            b_all.append(with_finish)
    print(f"   (a) practice answers/s            {_spread(a)}")
    print(f"   (b) mock questions answered/s     {_spread(b)}   (2 taps each: letter + Next)")
    print(f"   (b) with Finish, result and chart {_spread(b_all)}")
    ratio = statistics.median(b) / statistics.median(a)
    ratios = [y / x for x, y in zip(a, b, strict=True)]
    verdict = "OK" if ratio >= 0.5 else "BELOW TARGET"
    print(
        f"   ratio (b)/(a): median {ratio:.2f}, per run {min(ratios):.2f}–{max(ratios):.2f} "
        f"(target >= 0.50: {verdict})"
    )


if __name__ == "__main__":
    main()
