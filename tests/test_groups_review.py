"""Group and channel defects found in review: a question posted while the previous one is
still on its way, a reveal lost to a passing error, a count edit landing after the reveal, a
retried daily push forgetting the chat's poll mode and window, and /help in a group."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from bot.telegram.views import texts
from tests import factories, sample_bank
from tests.botharness import Harness, running_bot
from tests.groups_support import (
    ADMIN,
    ANN,
    BOB,
    CY,
    GROUP,
    GROUP_ID,
    ask,
    buttons,
    db_rows,
    delivery_of,
    fire_count_jobs,
    question_of,
    right_option,
    setup_admin,
    sweep,
    tap,
)
from tests.test_groups_channels import CHANNEL_ID, channel_command, make_admin

# This test is about what a second /quiz does, not about the group's pace rules.
NO_PACE = {"QUIZBOT_GROUP_QUIZ_COOLDOWN_SECONDS": 0, "QUIZBOT_GROUP_MIN_OPEN_SECONDS": 0}


def arrival(h: Harness, monkeypatch: pytest.MonkeyPatch, method: str) -> asyncio.Event:
    """Set once the fake Telegram has handled a `method` call (before any held-back answer)."""
    event = asyncio.Event()
    delay_for = h.api.delay_for

    def noting(name: str) -> float:
        if name.lower() == method.lower():
            event.set()
        return delay_for(name)

    monkeypatch.setattr(h.api, "delay_for", noting)
    return event


def answer_buttons(message: dict[str, Any]) -> list[tuple[str, str]]:
    return [b for b in buttons(message) if b[1].startswith(("a:", "t:", "s:"))]


# ---------------------------------------------------------------- 1. /quiz racing its own send
async def test_second_quiz_waits_for_the_first_question_and_reveals_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_bot(tmp_path, **NO_PACE) as h:
        sent = arrival(h, monkeypatch, "sendMessage")
        h.api.set_delay("sendMessage", 0.3)  # the first question's message is slow to come
        quiz = "/quiz@quizbot_test_bot"
        first_quiz = asyncio.create_task(h.feed(factories.command(quiz, ANN, GROUP)))
        await sent.wait()
        # Bob's /quiz arrives while the first sendMessage is still in flight.
        await asyncio.gather(first_quiz, h.feed(factories.command(quiz, BOB, GROUP)))
        h.api.set_delay("sendMessage", 0)

        first, second = h.api.messages_to(GROUP_ID)
        # The first question was revealed by the second /quiz (after its message existed)...
        assert "Closed" in first["text"] and not answer_buttons(first)
        # ... and the second one is open, with live buttons that take answers.
        assert "Closed" not in second["text"]
        q = question_of(h, delivery_of(second))
        alert = await tap(h, CY, second, right_option(q))
        assert "closed" not in alert["text"]
        assert db_rows(
            h.db_path, "SELECT message_id IS NOT NULL, revealed_at IS NOT NULL FROM deliveries"
        ) == [(1, 1), (1, 0)]


async def test_a_question_still_on_its_way_is_never_claimed(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        groups = h.services.groups
        assert groups is not None
        await groups.register(GROUP_ID, "supergroup", "Exam prep")
        delivery = await groups.ask(GROUP_ID)  # recorded, its sendMessage not answered yet
        assert delivery is not None
        h.clock.advance(601)
        assert await groups.unrevealed(GROUP_ID) == []
        assert await groups.due() == []
        assert await groups.claim_reveal(delivery.id) is None
        assert db_rows(h.db_path, "SELECT closed_at, revealed_at FROM deliveries") == [
            (None, None)
        ]
        # Its message arrives: now the sweep reveals it.
        await h.services.practice.attach_message(delivery.id, 4242)
        assert await groups.due() == [delivery.id]


# ---------------------------------------------------------------- 2. a reveal lost to a blip
@pytest.mark.parametrize(
    ("code", "description", "retry_after"),
    [(502, "Bad Gateway", None), (429, "Too Many Requests: retry after 30", 30)],
)
async def test_reveal_that_fails_for_a_passing_reason_is_tried_again(
    tmp_path: Path, code: int, description: str, retry_after: int | None
) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        message = await ask(h)
        q = question_of(h, delivery_of(message))
        h.clock.advance(601)
        h.api.fail_next("editMessageText", code, description, retry_after=retry_after)
        assert await sweep(h) == 0
        # Closed (no more answers), but not recorded as revealed: the next sweep retries.
        assert db_rows(
            h.db_path, "SELECT closed_at IS NOT NULL, revealed_at IS NULL FROM deliveries"
        ) == [(1, 1)]
        assert "closed" in (await tap(h, ANN, message, right_option(q)))["text"]
        assert "Closed" not in h.api.message(GROUP_ID, message["message_id"])["text"]
        assert await sweep(h) == 1
        shown = h.api.message(GROUP_ID, message["message_id"])
        assert "Closed" in shown["text"] and not answer_buttons(shown)
        assert await sweep(h) == 0


async def test_reveal_command_retries_a_deferred_reveal(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        message = await ask(h)
        h.api.fail_next("editMessageText", 502, "Bad Gateway")
        await h.feed(factories.command("/reveal", ADMIN, GROUP))
        # No "nothing is open": the question is open, its reveal only has to wait.
        assert h.api.last_text(GROUP_ID) != texts.GROUP_NOTHING_OPEN
        await h.feed(factories.command("/reveal", ADMIN, GROUP))
        assert "Closed" in h.api.message(GROUP_ID, message["message_id"])["text"]
        await h.feed(factories.command("/reveal", ADMIN, GROUP))
        assert h.api.last_text(GROUP_ID) == texts.GROUP_NOTHING_OPEN


async def test_reveal_without_rights_stays_revealed(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await ask(h)
        h.clock.advance(601)
        h.api.fail_next("editMessageText", 400, "Bad Request: not enough rights to edit")
        assert await sweep(h) == 1
        assert await sweep(h) == 0  # retrying cannot help: not tried again
        assert db_rows(h.db_path, "SELECT revealed_at IS NOT NULL FROM deliveries") == [(1,)]


# ---------------------------------------------------------------- 3. count edit vs reveal
async def test_flood_limited_count_edit_never_lands_after_the_reveal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        edited = arrival(h, monkeypatch, "editMessageText")
        message = await ask(h)
        q = question_of(h, delivery_of(message))
        h.clock.advance(10)  # past the edit gap after the post: the tap edits at once
        h.api.rate_limit(retry_after=2, times=1, method="editMessageText")
        tapping = asyncio.create_task(tap(h, CY, message, right_option(q)))
        await edited.wait()  # the count edit got its 429
        await h.feed(factories.command("/reveal", ADMIN, GROUP))
        await tapping
        await fire_count_jobs(h)  # a trailing count edit, if any were left, runs now

        shown = h.api.message(GROUP_ID, message["message_id"])
        assert "Closed" in shown["text"] and not answer_buttons(shown)
        assert h.api.count("editMessageText") == 2  # the refused count edit and the reveal


async def test_flood_limited_count_edit_falls_back_to_the_trailing_edit(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        message = await ask(h)
        q = question_of(h, delivery_of(message))
        h.clock.advance(10)
        h.api.rate_limit(retry_after=2, times=1, method="editMessageText")
        await tap(h, CY, message, right_option(q))  # returns without waiting out the 429
        assert h.api.count("editMessageText") == 1
        assert await fire_count_jobs(h) == 1
        assert "1 answer so far" in h.api.message(GROUP_ID, message["message_id"])["text"]


def reveal_elsewhere(h: Harness, delivery_id: int) -> None:
    """What another bot process on the same database does when it reveals the question: its
    claim in the database and its edit, which this process's own memory knows nothing of."""
    now = h.clock.now()
    factories.execute(
        h.db_path,
        "UPDATE deliveries SET revealed_at = ?, closed_at = ? WHERE id = ?",
        (now, now, delivery_id),
    )


async def test_trailing_count_edit_skips_a_question_revealed_by_another_process(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        message = await ask(h)
        q = question_of(h, delivery_of(message))
        h.clock.advance(10)
        await tap(h, ANN, message, right_option(q))  # edits the count at once
        await tap(h, BOB, message, right_option(q))  # too soon: left to a trailing edit
        edits = h.api.count("editMessageText")
        reveal_elsewhere(h, delivery_of(message))
        assert await fire_count_jobs(h) == 1
        assert h.api.count("editMessageText") == edits  # no count over the other's reveal


async def test_count_edit_that_raced_another_process_reveal_is_followed_by_the_reveal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_bot(tmp_path) as h:
        message = await ask(h)
        q = question_of(h, delivery_of(message))
        h.clock.advance(10)
        delay_for = h.api.delay_for

        def revealed_while_on_its_way(name: str) -> float:
            # Called once Telegram has applied the edit, before its answer reaches the bot.
            if name == "editMessageText" and h.api.count("editMessageText") == 1:
                reveal_elsewhere(h, delivery_of(message))
            return delay_for(name)

        monkeypatch.setattr(h.api, "delay_for", revealed_while_on_its_way)
        await tap(h, CY, message, right_option(q))
        shown = h.api.message(GROUP_ID, message["message_id"])
        assert "Closed" in shown["text"] and not answer_buttons(shown)
        assert h.api.count("editMessageText") == 2  # the count edit, then the reveal again


# ---------------------------------------------------------------- 4. retried daily push
async def daily_push_fails_once(h: Harness, method: str) -> None:
    """The 06:01 UTC daily push's first send fails with a 502; then it is retried."""
    push = h.services.push
    assert push is not None
    push.pace_now = h.clock.now

    async def fake_sleep(seconds: float) -> None:
        h.clock.advance(seconds)

    push.sleep = fake_sleep
    h.clock.set(dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC))
    await h.feed(factories.command("/daily 06:01 UTC", ADMIN, GROUP))
    h.clock.advance(120)
    h.api.fail_next(method, 502, "Bad Gateway")
    await push.run_once()
    for _ in range(10):  # whatever backoff the push keeps between tries
        if db_rows(h.db_path, "SELECT state FROM push_log") == [("sent",)]:
            return
        h.clock.advance(30)
        await push.run_once()
    raise AssertionError("the daily push was not retried")


async def test_retried_daily_push_in_quiz_poll_mode_is_still_a_poll(tmp_path: Path) -> None:
    short = sample_bank.question("p1", correct=(1,), stem="Which one is right?")
    async with running_bot(tmp_path, sample_bank.bank([short])) as h:
        setup_admin(h)
        await h.feed(factories.command("/quizpoll on", ADMIN, GROUP))
        await daily_push_fails_once(h, "sendPoll")
        assert h.api.count("sendPoll", GROUP_ID) == 2
        assert not any(answer_buttons(m) for m in h.api.messages_to(GROUP_ID))
        [(poll_id, message_id)] = db_rows(h.db_path, "SELECT poll_id, message_id FROM deliveries")
        assert poll_id and message_id


async def test_retried_daily_push_shows_the_deliverys_own_window(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        await h.feed(factories.command("/window 5", ADMIN, GROUP))
        push = h.services.push
        assert push is not None
        # The window is changed between the pick and the retry: the delivery's counts.
        original = push.run_once

        async def run_once() -> int:
            sent = await original()
            await h.services.groups.set_window(GROUP_ID, 20)  # type: ignore[union-attr]
            return sent

        push.run_once = run_once  # type: ignore[method-assign]
        await daily_push_fails_once(h, "sendMessage")
        question = h.api.last_message(GROUP_ID) or {}
        assert answer_buttons(question) and "Open for 5 min" in question["text"]
        assert db_rows(h.db_path, "SELECT closes_at - sent_at FROM deliveries") == [(300.0,)]


# ---------------------------------------------------------------- 5. /help where it is sent
async def test_help_in_a_group_lists_only_what_works_there(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await h.feed(factories.command("/help@quizbot_test_bot", ANN, GROUP))
        text = h.api.last_text(GROUP_ID) or ""
        assert "/quiz" in text and "/reveal" in text and "/leaderboard" in text
        # /topics (admins) and /stats (a link to the private chat) have a group meaning;
        # private practice commands are not offered here.
        assert "/topics" in text and "/stats" in text
        assert not any(c in text for c in ("/mistakes", "/exam", "/mock", "/reset"))

        await make_admin(h)
        await h.feed(channel_command("/help"))
        assert (h.api.last_text(CHANNEL_ID) or "").startswith("How quizbot works here")

        await h.feed(factories.command("/help", ANN, factories.private_chat(ANN)))
        assert "/topics" in (h.api.last_text(ANN["id"]) or "")
