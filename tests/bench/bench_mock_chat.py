"""A 60-question mock exam answered in the chat, against practice answers, end to end.

Both go through `Application.process_update` of the real bot over the same instant fake request
(as `bench_answers`), LEARNERS learners at once, each one tap after the other, and both are
counted per question answered, each question costing what it costs a learner in that mode:
(a) practice: per question an answer tap (grade, record with the memory update, render the
verdict, answer, edit) and the "Next question" tap that picks and sends the next question (the
study queue, a new delivery, the question rendered, sendMessage); the learner taps the buttons
of the message the bot sent last;
(b) mock: each learner sits a 60-question exam: per question a letter tap and a Next tap (each
loads the exam, writes the change, renders the screen and its keyboard, answers, edits), then
Finish (the result, its chart rendered in a thread, the review button).
Rates are answered questions per second; runs interleave a b, b a, a b ... (the order flips so
neither side always runs on a warmer machine). Target: (b) >= 0.5 (a).
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from telegram import Update

from bot.bank.loader import load_banks
from bot.bank.models import Bank, Kind
from bot.config import BUNDLED_QUESTIONS, Settings
from bot.mock.models import ExamKind
from bot.practice.catalog import Catalog
from bot.telegram.app import build_application
from bot.telegram.context import QuizApp
from tests.bench.bench_answers import callback_payload
from tests.bench.instant import InstantRequest

TOKEN = "123456:" + "C" * 35
LEARNERS = 20
QUESTIONS = 60
REPS = 5


def _catalog() -> Catalog:
    """The bundled bank's single-answer questions: one tap answers a question on both sides
    (a "select two" takes two letters in a mock and two ticks and Submit in practice)."""
    banks = load_banks([BUNDLED_QUESTIONS]).banks
    return Catalog(
        {
            bank_id: Bank(
                meta=bank.meta,
                questions={k: q for k, q in bank.questions.items() if q.kind is Kind.SINGLE},
            )
            for bank_id, bank in banks.items()
        }
    )


def _app(tmp: Path, name: str) -> QuizApp:
    catalog = _catalog()
    # Flood control off: a learner here taps 120 times in a few seconds, which the per-user
    # flood gate (20 at once, then 60 a minute) would mostly drop, making a side look fast.
    settings = Settings(
        BOT_TOKEN=TOKEN,
        QUIZBOT_DB=tmp / f"{name}.sqlite3",
        QUIZBOT_FLOOD_BURST=0,
    )  # type: ignore[call-arg]
    return build_application(
        settings,
        catalog,
        request=InstantRequest(keep_last=True),
        with_updater=False,
        rng=random.Random(1),
    )


def _request(app: QuizApp) -> InstantRequest:
    request = app.bot.request
    assert isinstance(request, InstantRequest)
    return request


def _answer_button(request: InstantRequest, chat_id: int) -> tuple[int, str]:
    """The newest question sent to a chat: its message id and its first answer button."""
    message_id, params = request.last_sent[chat_id]
    markup = params["reply_markup"]
    if isinstance(markup, str):
        markup = json.loads(markup)
    for row in markup["inline_keyboard"]:
        for button in row:
            data = str(button.get("callback_data", ""))
            if data.startswith("a:"):
                return message_id, data
    raise AssertionError(f"no answer button in {markup}")


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
    """Answered questions per second in practice: an answer tap and a Next tap each."""
    app = _app(tmp, "practice")
    async with app:
        assert app.post_init is not None and app.post_shutdown is not None
        await app.post_init(app)
        services = app.bot_data.services
        assert services is not None
        request = _request(app)
        ids = iter(range(10**9))

        async def tap(u: int, data: str, message_id: int) -> None:
            payload = callback_payload(next(ids), u, data, message_id)
            await app.process_update(Update.de_json(payload, app.bot))

        async def learner(u: int) -> None:
            for _ in range(QUESTIONS):
                message_id, data = _answer_button(request, u)
                delivery = int(data.split(":")[1])
                await tap(u, data, message_id)
                await tap(u, f"n:{delivery}", message_id)

        # Each learner's first question is sent before the clock starts, as the mock exam's
        # first screen is.
        for u in range(1, LEARNERS + 1):
            await _first_question(app, u)
        started = time.perf_counter()
        await asyncio.gather(*(learner(u) for u in range(1, LEARNERS + 1)))
        wall = time.perf_counter() - started
        answered = await services.db.read(
            lambda c: c.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        )
        assert answered == LEARNERS * QUESTIONS, f"{answered} answers of {LEARNERS * QUESTIONS}"
        await app.post_shutdown(app)
    return LEARNERS * QUESTIONS / wall


async def _first_question(app: QuizApp, u: int) -> None:
    """/quiz: the learner's first question (sent by the bot, as any other)."""
    user = {"id": u, "is_bot": False, "first_name": f"U{u}"}
    payload = {
        "update_id": 10**9 + u,
        "message": {
            "message_id": 1,
            "date": int(time.time()),
            "chat": {"id": u, "type": "private", "first_name": user["first_name"]},
            "from": user,
            "text": "/quiz",
            "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
        },
    }
    await app.process_update(Update.de_json(payload, app.bot))


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
            # Finish asks to confirm when a question is open or flagged; "y" confirms if so.
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
        # Every question answered counts once at submission: no tap was lost on the way.
        answered = await services.db.read(
            lambda c: c.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        )
        assert answered == LEARNERS * QUESTIONS, f"{answered} answers of {LEARNERS * QUESTIONS}"
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
    for rep in range(REPS):
        with tempfile.TemporaryDirectory() as tmp:
            for side in "ab" if rep % 2 == 0 else "ba":
                if side == "a":
                    a.append(asyncio.run(practice(Path(tmp))))
                else:
                    rate, with_finish = asyncio.run(mock(Path(tmp)))
                    b.append(rate)
                    b_all.append(with_finish)
        ratio = b[-1] / a[-1]
        print(f"   run {rep + 1}: (a) {a[-1]:6.0f}/s  (b) {b[-1]:6.0f}/s  (b)/(a) {ratio:.2f}")
    print(f"   (a) practice questions answered/s {_spread(a)}   (answer + Next question taps)")
    print(f"   (b) mock questions answered/s     {_spread(b)}   (letter + Next taps)")
    print(f"   (b) with Finish, result and chart {_spread(b_all)}")
    ratio = statistics.median(b) / statistics.median(a)
    ratios = sorted(y / x for x, y in zip(a, b, strict=True))
    verdict = "OK" if statistics.median(ratios) >= 0.5 else "BELOW TARGET"
    print(
        f"   ratio (b)/(a) per run: min {ratios[0]:.2f}  median {statistics.median(ratios):.2f}"
        f"  max {ratios[-1]:.2f}; of the medians {ratio:.2f} (target >= 0.50: {verdict})"
    )


if __name__ == "__main__":
    main()
