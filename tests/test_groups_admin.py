"""Group settings (admins only, polite refusal for others), the leaderboard, the group daily
question on the push service, and the bot's membership: added, removed, upgraded."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path

from bot.domain.groups import week_start
from bot.telegram.outbound.throttle import EditThrottle
from tests import factories, sample_bank
from tests.botharness import running_bot
from tests.fakes import BOT_ID
from tests.groups_support import (
    ADMIN,
    ANN,
    BOB,
    CY,
    GROUP,
    GROUP_ID,
    ask,
    db_rows,
    delivery_of,
    question_of,
    right_option,
    setup_admin,
    sweep,
    tap,
    wrong_option,
)

# This test is about what a second /quiz does, not about the group's pace rules.
NO_PACE = {"QUIZBOT_GROUP_QUIZ_COOLDOWN_SECONDS": 0, "QUIZBOT_GROUP_MIN_OPEN_SECONDS": 0}

BANK = sample_bank.bank([sample_bank.question(f"q{i}", correct=(i % 3,)) for i in range(6)])


async def test_leaderboard_orders_by_correct_then_who_got_there_first(tmp_path: Path) -> None:
    async with running_bot(tmp_path, BANK, **NO_PACE) as h:
        setup_admin(h)
        # Round 1: Bob right, Ann right (later), Cy wrong.
        m = await ask(h)
        q = question_of(h, delivery_of(m))
        await tap(h, BOB, m, right_option(q))
        h.clock.advance(10)
        await tap(h, ANN, m, right_option(q))
        await tap(h, CY, m, wrong_option(q))
        # Round 2: Ann right first, then Bob right: both at 2, Bob got there later.
        h.clock.advance(30)
        m = await ask(h)
        q = question_of(h, delivery_of(m))
        await tap(h, ANN, m, right_option(q))
        h.clock.advance(5)
        await tap(h, BOB, m, right_option(q))
        await tap(h, CY, m, right_option(q))

        await h.feed(factories.command("/leaderboard@quizbot_test_bot", CY, GROUP))
        text = h.api.last_text(GROUP_ID) or ""
        week, all_time = text.split("All time")
        assert week.index("Ann") < week.index("Bob") < week.index("Cy <3")
        assert "1. Ann: 2 correct · 2 answered (100%)" in week
        assert "3. Cy <3: 1 correct · 2 answered (50%)" in all_time  # escaped, first name only
        assert "&lt;" not in text  # the fake shows the parsed text: the name was escaped

        # Only admins turn it off; then nobody sees it.
        await h.feed(factories.command("/leaderboard off", BOB, GROUP))
        assert "only the group's admins" in (h.api.last_text(GROUP_ID) or "")
        await h.feed(factories.command("/leaderboard off", ADMIN, GROUP))
        await h.feed(factories.command("/leaderboard", BOB, GROUP))
        assert "turned off" in (h.api.last_text(GROUP_ID) or "")
        await h.feed(factories.command("/leaderboard on", ADMIN, GROUP))
        await h.feed(factories.command("/leaderboard", BOB, GROUP))
        assert "Leaderboard" in (h.api.last_text(GROUP_ID) or "")


def test_week_starts_on_monday_in_the_groups_zone() -> None:
    # Sunday 23:30 UTC is already Monday in Tokyo.
    sunday = dt.datetime(2026, 6, 7, 23, 30, tzinfo=dt.UTC).timestamp()
    assert week_start(sunday, "UTC") == dt.datetime(2026, 6, 1, tzinfo=dt.UTC).timestamp()
    tokyo = week_start(sunday, "Asia/Tokyo")
    assert tokyo == dt.datetime(2026, 6, 7, 15, 0, tzinfo=dt.UTC).timestamp()


def test_edit_throttle_keeps_under_budget() -> None:
    throttle = EditThrottle(budget=12, gap_s=5.0)
    edits, pending_at = [], None
    for now in range(1, 601):  # ten minutes of a tap every second
        if pending_at is not None and now >= pending_at:
            throttle.trailing_done(7)  # the JobQueue runs the trailing edit
            throttle.note(-1, now)
            edits.append(now)
            pending_at = None
        wait = throttle.decide(-1, 7, now)
        if wait == 0:
            edits.append(now)
        elif wait is not None:
            pending_at = now + wait
    assert all(b - a >= 5 for a, b in itertools.pairwise(edits))
    assert max(sum(1 for t in edits if s <= t < s + 60) for s in range(600)) <= 12


async def test_window_and_quizpoll_are_admin_settings(tmp_path: Path) -> None:
    async with running_bot(tmp_path, BANK) as h:
        setup_admin(h)
        await h.feed(factories.command("/window 3", ANN, GROUP))
        assert "only the group's admins" in (h.api.last_text(GROUP_ID) or "")
        await h.feed(factories.command("/window 3", ADMIN, GROUP))
        assert "3 min" in (h.api.last_text(GROUP_ID) or "")
        message = await ask(h)
        assert "Open for 3 min" in message["text"]
        h.clock.advance(181)
        assert await sweep(h) == 1

        await h.feed(factories.command("/quizpoll on", BOB, GROUP))
        assert "only the group's admins" in (h.api.last_text(GROUP_ID) or "")
        await h.feed(factories.command("/quizpoll on", ADMIN, GROUP))
        await ask(h)
        [poll_call] = h.api.calls_of("sendPoll")
        assert poll_call.params["type"] == "quiz" and poll_call.params["is_anonymous"] is False
        # A named vote in a group is recorded like a tap.
        poll_id = db_rows(h.db_path, "SELECT poll_id FROM deliveries WHERE poll_id IS NOT NULL")
        await h.feed(factories.poll_answer(poll_id[0][0], CY, [1]))
        assert db_rows(h.db_path, "SELECT user_id, chosen FROM answers") == [(CY["id"], "1")]


async def test_anonymous_admin_counts_as_admin(tmp_path: Path) -> None:
    async with running_bot(tmp_path, BANK) as h:
        anonymous = factories.user(1087968824, "Group", "GroupAnonymousBot", is_bot=True)
        await h.feed(factories.command("/window 4", anonymous, GROUP, sender_chat=GROUP))
        assert "4 min" in (h.api.last_text(GROUP_ID) or "")


async def test_group_daily_uses_the_push_service(tmp_path: Path) -> None:
    async with running_bot(tmp_path, BANK) as h:
        setup_admin(h)
        push = h.services.push
        assert push is not None
        push.pace_now = h.clock.now
        await h.feed(factories.command("/daily 08:00 Europe/Paris", BOB, GROUP))
        assert "only the group's admins" in (h.api.last_text(GROUP_ID) or "")
        assert await push.subscription(GROUP_ID) is None

        h.clock.set(dt.datetime(2026, 6, 1, 5, 0, tzinfo=dt.UTC))
        await h.feed(factories.command("/daily 08:00 Europe/Paris", ADMIN, GROUP))
        assert "08:00" in (h.api.last_text(GROUP_ID) or "")
        sub = await push.subscription(GROUP_ID)
        assert sub is not None and sub.kind == "group" and sub.timezone == "Europe/Paris"

        h.clock.set(dt.datetime(2026, 6, 1, 6, 1, tzinfo=dt.UTC))  # 08:01 in Paris
        assert await push.run_once() == 1
        message = h.api.last_message(GROUP_ID) or {}
        did = delivery_of(message)
        assert "0 answers so far" in message["text"]
        rows = db_rows(h.db_path, "SELECT source, user_id, closes_at - sent_at FROM deliveries")
        assert rows == [("daily", None, 600.0)]
        q = question_of(h, did)
        alert = await tap(h, ANN, message, right_option(q))
        assert alert["show_alert"] is True and alert["text"].startswith("✅")
        h.clock.advance(601)
        assert await sweep(h) == 1
        assert "Closed" in h.api.message(GROUP_ID, message["message_id"])["text"]

        await h.feed(factories.command("/daily off", ADMIN, GROUP))
        sub = await push.subscription(GROUP_ID)
        assert sub is not None and not sub.active


async def test_bot_added_greets_removed_marks_inactive(tmp_path: Path) -> None:
    async with running_bot(tmp_path, BANK) as h:
        group = factories.group_chat(-4001, "Fresh group", type="group")
        await h.feed(factories.my_chat_member(group, "left", "member", ADMIN))
        assert "/quiz" in (h.api.last_text(-4001) or "")
        assert db_rows(h.db_path, "SELECT type, active FROM chats WHERE id = -4001") == [
            ("group", 1)
        ]
        await h.feed(factories.my_chat_member(group, "member", "kicked", ADMIN))
        assert db_rows(h.db_path, "SELECT active FROM chats WHERE id = -4001") == [(0,)]


async def test_no_right_to_post_is_logged_not_raised(tmp_path: Path) -> None:
    async with running_bot(tmp_path, BANK) as h:
        h.api.fail_next(
            "sendMessage", 400, "Bad Request: not enough rights to send text messages to the chat"
        )
        await h.feed(factories.command("/quiz", ANN, GROUP))
        # Nothing was posted, and the question is not left open for a reveal.
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM deliveries") == [(0,)]
        h.api.set_member_status(GROUP_ID, BOT_ID, "kicked")
        await h.feed(factories.command("/quiz", ANN, GROUP))
        assert db_rows(h.db_path, f"SELECT active FROM chats WHERE id = {GROUP_ID}") == [(0,)]


async def test_supergroup_migration_moves_settings_and_history(tmp_path: Path) -> None:
    async with running_bot(tmp_path, BANK, **NO_PACE) as h:
        old = factories.group_chat(-5001, "Old group", type="group")
        new_id = -1005001
        h.api.set_member_status(-5001, ADMIN["id"], "administrator", ADMIN)
        await h.feed(factories.command("/window 7", ADMIN, old))
        first = await ask(h, chat=old)
        q = question_of(h, delivery_of(first))
        await tap(h, ANN, first, right_option(q))
        await h.feed(factories.command("/reveal", ADMIN, old))

        # Telegram upgrades the group; the next send to the old id fails with ChatMigrated.
        h.api.migrate(-5001, new_id)
        await h.feed(factories.command("/quiz", BOB, old))
        second = h.api.last_message(new_id) or {}
        assert second["chat"]["id"] == new_id and "Open for 7 min" in second["text"]
        assert db_rows(h.db_path, "SELECT DISTINCT chat_id FROM answers") == [(new_id,)]
        assert db_rows(h.db_path, "SELECT DISTINCT chat_id FROM deliveries") == [(new_id,)]
        assert db_rows(h.db_path, "SELECT migrated_to, active FROM chats WHERE id = -5001") == [
            (new_id, 0)
        ]
        # The service messages arriving afterwards change nothing more.
        await h.feed(factories.migrate_to_chat(-5001, new_id))
        await h.feed(factories.migrate_from_chat(new_id, -5001))
        new = factories.group_chat(new_id, "Old group")
        await h.feed(factories.command("/leaderboard", ANN, new))
        assert "1. Ann: 1 correct" in (h.api.last_text(new_id) or "")


async def test_migration_service_message_moves_history(tmp_path: Path) -> None:
    async with running_bot(tmp_path, BANK) as h:
        old = factories.group_chat(-6001, "Small group", type="group")
        first = await ask(h, chat=old)
        q = question_of(h, delivery_of(first))
        await tap(h, CY, first, wrong_option(q))
        await h.feed(factories.migrate_to_chat(-6001, -1006001))
        assert db_rows(h.db_path, "SELECT chat_id FROM answers") == [(-1006001,)]
        assert db_rows(h.db_path, "SELECT id FROM chats WHERE id = -1006001") == [(-1006001,)]


async def test_migration_seen_by_push_and_by_service_message_moves_once(tmp_path: Path) -> None:
    from bot.storage import chat_migration

    async with running_bot(tmp_path, BANK) as h:
        old = factories.group_chat(-7001, "Pushed group", type="group")
        first = await ask(h, chat=old)
        await tap(h, ANN, first, 0)
        now = h.clock.now()
        # The daily push met ChatMigrated first and migrated the chat; the service message
        # arriving afterwards must find nothing left to move and lose nothing.
        await h.services.db.write(lambda c: chat_migration.migrate_chat(c, -7001, -1007001, now))
        await h.feed(factories.migrate_from_chat(-1007001, -7001))
        assert db_rows(h.db_path, "SELECT chat_id FROM answers") == [(-1007001,)]
        assert db_rows(h.db_path, "SELECT chat_id FROM deliveries") == [(-1007001,)]


def test_throttle_folds_taps_into_one_trailing_edit_and_stops_at_the_reveal() -> None:
    throttle = EditThrottle(budget=2, gap_s=5.0)
    assert throttle.decide(-1, 10, 0.0) == 0.0  # edit now
    wait = throttle.decide(-1, 10, 1.0)
    assert wait == 4.0  # too soon: one trailing edit
    assert throttle.decide(-1, 10, 2.0) is None  # folded into it
    throttle.trailing_done(10)
    throttle.closing(10)
    assert throttle.is_closed(10)
    assert not throttle.defer(10)  # no count edit after the reveal
