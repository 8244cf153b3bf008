"""/window shows the window, Change answer before Sure/Unsure, /reset only from its own message."""

from __future__ import annotations

from pathlib import Path

from bot.bank.models import LETTERS
from tests import factories, sample_bank
from tests.botharness import running_bot
from tests.groups_support import ADMIN, BOB, GROUP, GROUP_ID, setup_admin
from tests.learning_support import learning_bank
from tests.test_learning_chat import ANN, ANN_CHAT, buttons, db_rows, shown, single, tap


async def test_window_without_a_number_shows_the_current_window(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        await h.feed(factories.command("/window", BOB, GROUP))
        assert "stay open for 10 min" in (h.api.last_text(GROUP_ID) or "")
        await h.feed(factories.command("/window 3", ADMIN, GROUP))
        await h.feed(factories.command("/window@quizbot_test_bot", BOB, GROUP))
        text = h.api.last_text(GROUP_ID) or ""
        assert "stay open for 3 min" in text and "/window 10" in text


async def test_change_answer_before_sure_or_unsure(tmp_path: Path) -> None:
    async with running_bot(tmp_path, learning_bank()) as h:
        await h.feed(factories.command("/confidence on", ANN, ANN_CHAT))
        message = await single(h)
        question, order = shown(h, message)
        wrong = next(p for p, f in enumerate(order) if f not in question.correct_indices)
        right = next(p for p, f in enumerate(order) if f in question.correct_indices)
        await tap(h, message, wrong)  # the slip
        asking = h.api.message(ANN["id"], message["message_id"])
        assert "Pick again" in await tap(h, asking, 2)  # Sure, Unsure, Change answer
        letters = h.api.message(ANN["id"], message["message_id"])
        assert [t for t, _ in buttons(letters)] == list(LETTERS[: len(order)])
        assert db_rows(h.db_path, "SELECT * FROM answers") == []
        assert "How sure are you?" in await tap(h, letters, right)
        asking = h.api.message(ANN["id"], message["message_id"])
        assert buttons(asking)[0][0] == f"Sure ({LETTERS[right]})"
        assert (await tap(h, asking, 0)).startswith("✅")
        assert db_rows(h.db_path, "SELECT confidence, correct FROM answers") == [("sure", 1)]
        # Once recorded, Change answer changes nothing.
        await tap(h, asking, 2)
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(1,)]
        assert h.api.message(ANN["id"], message["message_id"])["text"].startswith("✅")


async def test_a_forged_reset_button_on_another_message_is_refused(tmp_path: Path) -> None:
    async with running_bot(tmp_path, sample_bank.bank()) as h:
        message = await single(h)
        await h.feed(factories.callback(buttons(message)[0][1], ANN, message))
        for forged in ("rs:demo", "rs:-"):
            h.api.clear_calls()
            await h.feed(factories.callback(forged, ANN, message))
            (answer,) = h.api.calls_of("answerCallbackQuery")
            assert "no longer valid" in answer.params["text"]
            assert h.api.calls_of("editMessageText") == []
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(1,)]
        # The confirmation's own Yes still works.
        await h.feed(factories.command("/reset", ANN, ANN_CHAT))
        ask = h.api.last_message(ANN["id"]) or {}
        await h.feed(factories.callback("rs:demo", ANN, ask))
        assert db_rows(h.db_path, "SELECT COUNT(*) FROM answers") == [(0,)]
