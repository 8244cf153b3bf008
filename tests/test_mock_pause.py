"""A running mock exam beside practice: /quiz never asks its questions, and "Pause the exam"
stops its clock (the deadline job leaves it alone, across a restart too) until /mock resumes
it with the time that was left."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.mock_models import MockStatus
from bot.practice.mock_service import MockService
from bot.storage.factory import open_database
from bot.storage.port import Store
from bot.telegram import mock_jobs
from bot.telegram.views import mock_texts
from tests import factories, mock_bank
from tests.botharness import Harness, running_bot
from tests.test_mock_chat import (
    ANN,
    button,
    buttons,
    command,
    exam_message,
    last_answer,
    right_letters,
    rows,
    tap,
)
from tests.test_practice_beside_mock import answer, exam_questions, practice_questions

BOB = factories.user(602, "Bob")
PAUSE = "⏸ Pause the exam"
OUTSIDE = "▶️ Practise outside the exam"


def exam_row(h: Harness) -> tuple[Any, ...]:
    ((row),) = rows(h.db_path, "SELECT status, paused_at, deadline FROM mock_exams")
    return tuple(row)


async def offer_of(h: Harness, practice: str = "/quiz") -> dict[str, Any]:
    await command(h, practice)
    offer = h.api.last_message(ANN["id"]) or {}
    assert "mock exam is running" in offer.get("text", "")
    return offer


async def deadline_passes(h: Harness) -> None:
    """What the deadline job and its slow tick do when they wake."""
    await mock_jobs.expire_due(h.app.bot, h.services)
    await mock_jobs.arm(h.app.job_queue, h.services)


async def test_twenty_quiz_beside_a_running_mock_ask_none_of_its_questions(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await command(h, "/mock")
        in_exam = exam_questions(h)
        assert len(in_exam) == 10
        for _ in range(20):
            offer = await offer_of(h)
            await h.feed(factories.callback(button(offer, OUTSIDE), ANN, offer))
            await answer(h, h.api.last_message(ANN["id"]) or {})
            h.clock.advance(20)
        asked = practice_questions(h)
        assert len(asked) == 20 and not in_exam & set(asked)
        assert exam_row(h)[0] == "running"


async def test_pause_stops_the_clock_until_mock_resumes_it(tmp_path: Path) -> None:
    bank = mock_bank.three_topics()
    clock = FakeClock(1_800_000_000.0)
    async with running_bot(tmp_path, bank, clock=clock) as h:
        await command(h, "/mock")  # 10 questions, 20 minutes
        screen = exam_message(h)
        screen = await tap(h, screen, button(screen, right_letters(h, 0)[0]))
        h.clock.advance(5 * 60)
        offer = await offer_of(h, "/mistakes")
        await h.feed(factories.callback(button(offer, PAUSE), ANN, offer))
        assert last_answer(h) == mock_texts.MOCK_PAUSED_LINE
        assert "paused" in h.api.message(ANN["id"], offer["message_id"])["text"]
        assert "15 min left" in h.api.message(ANN["id"], offer["message_id"])["text"]
        # The exam's message takes no taps while paused; a tap on its old buttons is answered.
        closed = h.api.message(ANN["id"], screen["message_id"])
        assert "paused" in closed["text"] and not buttons(closed)
        await h.feed(factories.callback(button(screen, "Next ▶"), ANN, screen))
        assert last_answer(h) == mock_texts.CB_MOCK_PAUSED
        # Paused to practise: /quiz asks at once (outside the exam), without asking first.
        await command(h, "/quiz")
        assert "mock exam is running" not in (h.api.last_text(ANN["id"]) or "")
        assert not exam_questions(h) & set(practice_questions(h))
        status, paused_at, deadline = exam_row(h)
        assert (status, paused_at) == ("running", clock.now())
        # The deadline passes twice over: neither the job nor its tick submits a paused exam.
        assert h.app.job_queue is not None
        h.clock.advance(40 * 60)
        await deadline_passes(h)
        assert h.app.job_queue.get_jobs_by_name(mock_jobs.DEADLINE_JOB) == ()
        assert exam_row(h) == (status, paused_at, deadline)
    # Nor does the start-up sweep of exams whose deadline passed while the bot was down.
    clock.advance(60 * 60)
    async with running_bot(tmp_path, bank, api=h.api, clock=clock) as h2:
        assert exam_row(h2) == (status, paused_at, deadline)
        assert "Time is up" not in (h2.api.last_text(ANN["id"]) or "")
        # /mock resumes it with the 15 minutes that were left, and the clock runs again.
        await command(h2, "/mock")
        texts = [m.get("text", "") for m in h2.api.messages_to(ANN["id"])[-2:]]
        assert "resumed: 15 min left" in texts[0]
        screen = exam_message(h2)
        assert "Question 1/10 · 15 min left" in screen["text"]
        assert exam_row(h2)[1] is None and exam_row(h2)[2] == clock.now() + 15 * 60
        assert len(h2.app.job_queue.get_jobs_by_name(mock_jobs.DEADLINE_JOB)) == 1  # type: ignore[union-attr]
        # Its old answer is kept; 15 minutes later its deadline submits it, having used 20.
        h2.clock.advance(15 * 60 + 1)
        await deadline_passes(h2)
        assert exam_row(h2)[0] == "expired"
        result = "".join(m.get("text", "") for m in h2.api.messages_to(ANN["id"]))
        assert "1/10 right · time used 20 min of 20 min" in result


async def test_a_stale_or_forged_pause_button_changes_nothing(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await command(h, "/mock")
        offer = await offer_of(h)
        pause = button(offer, PAUSE)
        # Another learner's press of Ann's button (forged) pauses nothing.
        await h.feed(factories.callback(pause, BOB, offer))
        assert exam_row(h)[1] is None
        assert "no longer valid" in str(
            h.api.calls_of("answerCallbackQuery")[-1].params.get("text", "")
        )
        # The exam is submitted at its deadline; the old Pause is then politely over.
        h.clock.advance(20 * 60 + 1)
        await deadline_passes(h)
        before = rows(h.db_path, "SELECT * FROM mock_exams")
        assert exam_row(h)[0] == "expired"
        asked = len(practice_questions(h))
        await h.feed(factories.callback(pause, ANN, offer))
        assert last_answer(h) == mock_texts.CB_MOCK_STALE
        assert rows(h.db_path, "SELECT * FROM mock_exams") == before
        assert len(practice_questions(h)) == asked  # and no question sent in its name
        # Data that is not a pause button's at all is refused by the route.
        await h.feed(factories.callback("mp:1:exam:zzzz", ANN, offer))
        assert rows(h.db_path, "SELECT * FROM mock_exams") == before


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    url = (
        f"sqlite:///{tmp_path / 'm.sqlite3'}"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_url")
    )
    async with open_database(url) as db:
        yield db


async def test_a_paused_exam_keeps_its_time_through_a_clock_step_on_both_backends(
    store: Store,
) -> None:
    clock = FakeClock(1_800_000_000.0)
    catalog = Catalog({"mockbank": mock_bank.three_topics()})
    svc = MockService(store, catalog, clock=clock, rng=random.Random(5))
    started = await svc.start(11, chat_id=11)
    assert started.exam is not None
    exam_id = started.exam.id
    clock.advance(300)
    paused = await svc.pause(11, exam_id)
    assert paused.status is MockStatus.PAUSED and paused.time_left_s == 900
    assert (await svc.pause(11, exam_id)).status is MockStatus.PAUSED  # twice: the same
    assert (await svc.pause(12, exam_id)).status is MockStatus.STALE  # not theirs
    assert (await svc.go(11, exam_id, 2)).status is MockStatus.PAUSED  # no move while paused
    clock.advance(3600)
    clock.step(-1800)  # the wall clock set back (an NTP step) while paused
    assert await svc.next_deadline() is None and await svc.expire_due() == []
    resumed = await svc.resume(11)
    assert resumed.status is MockStatus.RESUMED and resumed.time_left_s == 900
    assert resumed.exam is not None and await svc.next_deadline() == resumed.exam.deadline
    clock.advance(901)
    (expired,) = await svc.expire_due()
    assert expired.result is not None
    assert (expired.result.time_used_s, expired.result.time_allowed_s) == (1200, 1200)


async def test_the_daily_question_beside_a_paused_mock_is_never_one_of_its_questions(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics(), push_rate=1000.0) as h:
        push = h.services.push
        assert push is not None
        push.pace_now = h.clock.now
        h.clock.set(dt.datetime(2026, 6, 1, 5, 0, tzinfo=dt.UTC))
        await command(h, "/mock")
        in_exam = exam_questions(h)
        offer = await offer_of(h)
        await h.feed(factories.callback(button(offer, PAUSE), ANN, offer))
        await push.subscribe(ANN["id"], "05:01", "UTC", user_id=ANN["id"])
        h.clock.advance(120)
        for _ in range(12):  # paused, the exam runs across days of pushes
            await push.run_once()
            h.clock.advance(86_400)
        daily = rows(h.db_path, "SELECT question_id FROM deliveries WHERE source = 'daily'")
        assert len(daily) == 12 and not in_exam & {q for (q,) in daily}
        assert exam_row(h)[0] == "running"
