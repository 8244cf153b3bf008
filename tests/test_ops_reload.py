"""Reloading the question banks: /reload for admins, SIGHUP, validation before the swap."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from bot.practice.catalog import Catalog
from bot.telegram.handlers.ops import NOT_ADMIN
from bot.telegram.reload import reload_catalog
from bot.telegram.views.texts import CB_REMOVED
from tests import factories, sample_bank
from tests.botharness import Harness, running_bot
from tests.ops_support import write_bank

ADMIN = factories.user(42, "Op")
ADMIN_CHAT = factories.private_chat(ADMIN)
ANN = factories.user(501, "Ann")
ANN_CHAT = factories.private_chat(ANN)


def bank_dir(tmp_path: Path, ids: list[str]) -> Path:
    qs = [sample_bank.question(qid, "alpha" if qid.startswith("a") else "beta") for qid in ids]
    return write_bank(tmp_path / "banks", sample_bank.bank(qs))


def break_bank(root: Path) -> None:
    (root / "demo" / "zz-broken.yaml").write_text("id: zz\ntopic: alpha\nstem: [unclosed\n")


def question_ids(h: Harness) -> set[str]:
    return set(h.services.catalog.bank("demo").questions)


async def reload_as(h: Harness, user: dict[str, Any], chat: dict[str, Any]) -> str:
    await h.feed(factories.command("/reload", user, chat))
    return h.api.last_text(user["id"]) or ""


async def test_broken_bank_is_refused_and_the_old_one_stays(tmp_path: Path) -> None:
    root = bank_dir(tmp_path, ["a1", "a2"])
    break_bank(root)
    async with running_bot(tmp_path, QUIZBOT_ADMINS="42", QUIZBOT_QUESTIONS=str(root)) as h:
        before = question_ids(h)
        reply = await reload_as(h, ADMIN, ADMIN_CHAT)
        assert "Reload refused" in reply and "zz-broken.yaml" in reply
        assert question_ids(h) == before == {"a1", "a2", "a3", "b1", "b2"}


async def test_good_bank_is_swapped_in_and_history_stays(tmp_path: Path) -> None:
    async with running_bot(tmp_path, QUIZBOT_ADMINS="42") as h:
        await h.feed(factories.command("/quiz", ANN, ANN_CHAT))
        message = h.api.last_message(ANN["id"])
        assert message is not None
        data = message["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        await h.feed(factories.callback(data, ANN, message))
        (asked,) = factories.one(h.db_path, "SELECT question_id FROM answers")

        kept = sorted(question_ids(h) - {asked})[:2]
        root = bank_dir(tmp_path, [*kept, "a9"])
        h.services.settings.questions[:] = [root]
        reply = await reload_as(h, ADMIN, ADMIN_CHAT)

        assert "Question banks reloaded" in reply and "1 question(s) added, 3 removed" in reply
        assert question_ids(h) == {*kept, "a9"}
        assert factories.rows(h.db_path, "SELECT question_id FROM answers") == [(asked,)]
        # The old button of the withdrawn question is answered politely, not with an error.
        await h.feed(factories.callback(data, ANN, h.api.last_message(ANN["id"]) or message))
        assert h.api.calls_of("answerCallbackQuery")[-1].params["text"] == CB_REMOVED


async def test_non_admin_is_refused(tmp_path: Path) -> None:
    root = bank_dir(tmp_path, ["a1"])
    async with running_bot(tmp_path, QUIZBOT_ADMINS="42", QUIZBOT_QUESTIONS=str(root)) as h:
        assert await reload_as(h, ANN, ANN_CHAT) == NOT_ADMIN
        assert len(question_ids(h)) == 5


async def test_sighup_reloads(tmp_path: Path) -> None:
    root = bank_dir(tmp_path, ["a1", "b1"])
    async with running_bot(tmp_path, QUIZBOT_QUESTIONS=str(root)) as h:
        # Without the handler SIGHUP would end the test run: check before sending it.
        assert signal.getsignal(signal.SIGHUP) not in (signal.SIG_DFL, signal.SIG_IGN, None)
        os.kill(os.getpid(), signal.SIGHUP)
        for _ in range(200):
            if question_ids(h) == {"a1", "b1"}:
                break
            await asyncio.sleep(0.01)
        assert question_ids(h) == {"a1", "b1"}
    assert signal.getsignal(signal.SIGHUP) in (signal.SIG_DFL, None)


async def test_reload_refuses_a_folder_without_banks(tmp_path: Path) -> None:
    catalog = Catalog({"demo": sample_bank.bank()})
    outcome = await reload_catalog(catalog, [tmp_path / "nowhere"])
    assert not outcome.ok and outcome.problems
    assert len(catalog.banks["demo"].questions) == 5


async def test_reload_names_topics_added_removed_renamed_and_questions_moved(
    tmp_path: Path,
) -> None:
    q = sample_bank.question
    before = sample_bank.bank(
        [q("a1", "alpha"), q("a2", "alpha"), q("b1", "beta"), q("c1", "gamma"), q("c2", "gamma")]
    )
    catalog = Catalog({"demo": before})
    # alpha splits (a2 to the new delta), beta becomes epsilon whole, gamma stays.
    after = sample_bank.bank(
        [
            q("a1", "alpha"),
            q("a2", "delta"),
            q("b1", "epsilon"),
            q("c1", "gamma"),
            q("c2", "gamma"),
        ],
        topics=("alpha", "gamma", "delta", "epsilon"),
    )
    root = write_bank(tmp_path / "banks", after)
    outcome = await reload_catalog(catalog, [root])
    assert outcome.ok
    (change,) = outcome.topics
    assert (
        change.added == ["delta"] and change.removed == [] and change.renamed == ["beta → epsilon"]
    )
    assert change.moved == {("alpha", "delta"): 1}
    assert "1 question(s) moved between topics (alpha → delta 1)" in outcome.summary()
    assert "topics added: delta" in outcome.summary()

    # A topic that goes with its questions is removed; one whose name changes is renamed.
    renamed = Catalog({"demo": after})
    meta = after.meta.model_copy(
        update={
            "topics": [
                t if t.id != "gamma" else t.model_copy(update={"name": "G"})
                for t in after.meta.topics
            ]
        }
    )
    second = write_bank(tmp_path / "banks2", after.model_copy(update={"meta": meta}))
    outcome = await reload_catalog(renamed, [second])
    assert outcome.topic_lines() == ["demo: renamed: Gamma → G"]


async def test_reload_reply_lists_topic_changes(tmp_path: Path) -> None:
    async with running_bot(tmp_path, QUIZBOT_ADMINS="42") as h:
        ids = sorted(question_ids(h))
        moved = [sample_bank.question(qid, "beta") for qid in ids]
        root = write_bank(tmp_path / "banks", sample_bank.bank(moved, topics=("alpha", "beta")))
        h.services.settings.questions[:] = [root]
        reply = await reload_as(h, ADMIN, ADMIN_CHAT)
        assert "question(s) moved between topics (alpha → beta" in reply
        assert "keep the topic they were given in" in reply
