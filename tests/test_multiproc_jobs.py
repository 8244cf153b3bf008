"""Timed work with two bot processes on one PostgreSQL: a mock exam whose deadline passes
while the process that started it is dead is submitted once, by the other."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests import factories
from tests.fakes import FakeBotApi, FakeBotApiServer
from tests.multiproc_support import lease_pid, start, wait

pytestmark = pytest.mark.slow
MIA = factories.user(7201, "Mia")


def results(api: FakeBotApi) -> list[str]:
    return [m["text"] for m in api.messages_to(MIA["id"]) if "Mock exam: " in m.get("text", "")]


def test_a_mock_exam_due_while_its_process_is_dead_is_submitted_once_by_the_other(
    tmp_path: Path, pg_url: str
) -> None:
    with FakeBotApiServer() as server:
        api = server.api
        first = start(tmp_path, "first", server, pg_url, bank=None)
        second = None
        try:
            wait(lambda: first.alive() and lease_pid(pg_url) == first.proc.pid, 60, "a poller")
            second = start(tmp_path, "second", server, pg_url, bank=None)
            wait(lambda: second.alive() and "standing by" in second.output(), 60, "a standby")
            api.push_update(factories.command("/mock short", MIA, factories.private_chat(MIA)))
            server.wait_for(
                lambda a: any("Question 1/18" in m.get("text", "") for m in a.messages_to(7201)),
                timeout=60,
            )
            first.stop(signal.SIGKILL)
            # Its time runs out while the process that started it is dead.
            with factories.blocking(pg_url) as conn:
                conn.execute("UPDATE mock_exams SET deadline = ?", (time.time() - 1,))
            wait(lambda: results(api), 45, "the exam submitted by the other process")
            time.sleep(3)  # a second submit, were there one, would show now
        finally:
            first.close()
            if second is not None:
                second.close()
    assert len(results(api)) == 1
    assert factories.rows(pg_url, "SELECT status FROM mock_exams") == [("expired",)]
