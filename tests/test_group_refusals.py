"""A non-admin is told "only the group's admins" once per ten minutes, not on every try."""

from __future__ import annotations

from pathlib import Path

from tests import factories
from tests.botharness import running_bot
from tests.fakes import FakeBotApi
from tests.groups_support import ADMIN, ANN, BOB, GROUP, GROUP_ID, setup_admin

REFUSAL = "only the group's admins"


def refusals(api: FakeBotApi) -> int:
    return sum(REFUSAL in m.get("text", "") for m in api.messages_to(GROUP_ID))


async def test_a_member_is_refused_once_per_ten_minutes(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        for command in ("/window 3", "/quizpoll on", "/daily 07:30", "/reveal", "/window 5"):
            await h.feed(factories.command(command, BOB, GROUP))
            h.clock.advance(30)
        assert refusals(h.api) == 1
        await h.feed(factories.command("/window 3", ANN, GROUP))  # another member: told once
        assert refusals(h.api) == 2
        await h.feed(factories.command("/window 4", ADMIN, GROUP))  # admins are always answered
        assert "4 min" in (h.api.last_text(GROUP_ID) or "")
        h.clock.advance(600)
        await h.feed(factories.command("/window 3", BOB, GROUP))
        assert refusals(h.api) == 3
