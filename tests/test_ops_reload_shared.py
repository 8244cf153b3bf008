"""A /reload (or SIGHUP) in one process reaches the other processes on its database."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from bot.practice.catalog import Catalog
from bot.storage.bot_status import bank_version, bump_bank_version
from bot.telegram.inbox import SWEEP_S
from bot.telegram.reload import follow_reloads, reload_services
from tests import factories, sample_bank
from tests.botharness import running_bot
from tests.test_ops_reload import ADMIN, ADMIN_CHAT, bank_dir, break_bank, question_ids, reload_as

ANN = factories.user(501, "Ann")
ANN_CHAT = factories.private_chat(ANN)


async def test_a_reload_in_one_process_reaches_the_other_within_a_sweep(tmp_path: Path) -> None:
    root = bank_dir(tmp_path, ["a1", "a9"])
    settings = {"QUIZBOT_ADMINS": "42", "QUIZBOT_QUESTIONS": str(root)}
    async with running_bot(tmp_path, **settings) as a, running_bot(tmp_path, **settings) as b:
        assert question_ids(b) == {"a1", "a2", "a3", "b1", "b2"}
        reply = await reload_as(a, ADMIN, ADMIN_CHAT)
        assert "Question banks reloaded" in reply and question_ids(a) == {"a1", "a9"}
        # b's own beat (every SWEEP_S) catches up; a generous wait for a busy machine.
        for _ in range(int(SWEEP_S * 4 / 0.05)):
            if question_ids(b) == {"a1", "a9"}:
                break
            await asyncio.sleep(0.05)
        assert question_ids(b) == {"a1", "a9"}
        version = await a.services.db.read(bank_version)
        assert version == 1 == a.services.bank_version == b.services.bank_version
        # b serves the new bank: its /quiz asks one of the new questions.
        await b.feed(factories.command("/quiz", ANN, ANN_CHAT))
        text = b.api.last_text(ANN["id"]) or ""
        stems = {b.services.catalog.bank("demo").questions[q].stem for q in ("a1", "a9")}
        assert any(stem in text for stem in stems), text


async def test_only_a_reload_that_swapped_counts_and_each_is_followed_once(
    tmp_path: Path,
) -> None:
    root = bank_dir(tmp_path, ["a1", "a9"])
    async with running_bot(tmp_path, QUIZBOT_QUESTIONS=str(root)) as a:
        # A second process's services on the same database, with no beat of its own: each
        # beat here is an explicit call.
        other = replace(a.services, catalog=Catalog({"demo": sample_bank.bank()}), bank_version=0)
        assert await follow_reloads(other) is None
        break_bank(root)
        refused = await reload_services(a.services)
        assert not refused.ok and await a.services.db.read(bank_version) == 0
        assert await follow_reloads(other) is None
        assert set(other.catalog.bank("demo").questions) == {"a1", "a2", "a3", "b1", "b2"}

        # Counted twice by other processes: this one reloads once, from its own disk.
        (root / "demo" / "zz-broken.yaml").unlink()
        now = a.services.clock.now()
        assert await a.services.db.write(lambda c: bump_bank_version(c, now)) == 1
        assert await a.services.db.write(lambda c: bump_bank_version(c, now)) == 2
        followed = await follow_reloads(other)
        assert followed is not None and followed.ok
        assert set(other.catalog.bank("demo").questions) == {"a1", "a9"}
        assert other.bank_version == 2
        assert await follow_reloads(other) is None
