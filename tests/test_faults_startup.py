"""Start-up under faults: SIGHUP in the first second, Telegram answering 500/429 to the start-up
calls, a rejected token, a Bot API URL that is malformed or unreachable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from telegram import Bot
from telegram.error import InvalidToken, RetryAfter

from bot.telegram import startup
from bot.telegram.startup import StartupFailed, check_bot_api, retrying
from tests import factories
from tests.backend import database_env
from tests.botharness import make_settings
from tests.botprocess import BotProcess
from tests.fakes import TOKEN, FakeBotApi, FakeBotApiServer, FakeRequest

REPO = Path(__file__).resolve().parent.parent


async def no_wait(seconds: float) -> None:
    waits.append(seconds)


waits: list[float] = []


async def test_startup_calls_retry_500_and_short_flood_waits() -> None:
    api = FakeBotApi()
    api.fail_next("getMe", 500, "Internal Server Error", times=2)
    api.fail_next("getMe", 429, "Too Many Requests: retry after 7", retry_after=7)
    bot = Bot(TOKEN, request=FakeRequest(api))
    waits.clear()
    me = await retrying("getMe", bot.get_me, no_wait)
    assert me.is_bot and api.count("getMe") == 4
    assert waits == [startup.STARTUP_BACKOFF_S[0], startup.STARTUP_BACKOFF_S[1], 7.0]


async def test_a_long_flood_wait_or_a_rejected_token_is_not_retried() -> None:
    api = FakeBotApi()
    api.fail_next("getMe", 429, "Too Many Requests: retry after 90", retry_after=90)
    bot = Bot(TOKEN, request=FakeRequest(api))
    with pytest.raises(RetryAfter):
        await retrying("getMe", bot.get_me, no_wait)
    other = Bot(TOKEN, request=FakeRequest(api, token="999:" + "Z" * 35))
    with pytest.raises(InvalidToken):
        await retrying("getMe", other.get_me, no_wait)
    assert api.count("getMe") == 1  # the 401 path never reached the api, nor was retried


async def test_unreachable_bot_api_gives_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(startup, "STARTUP_BACKOFF_S", (0.01, 0.01))
    settings = make_settings(tmp_path, bot_api_url="http://127.0.0.1:9")
    with pytest.raises(StartupFailed) as caught:
        await check_bot_api(settings)
    line = str(caught.value)
    assert "cannot reach the Bot API at http://127.0.0.1:9" in line and "\n" not in line
    assert TOKEN not in line


def test_malformed_bot_api_url_exits_with_one_line(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))},
        "PYTHONPATH": str(REPO),
        "BOT_TOKEN": TOKEN,
        "BOT_API_URL": "api.telegram.org",  # no scheme
        "QUIZBOT_DB": database_env(tmp_path / "bot.sqlite3"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "quizbot: BOT_API_URL 'api.telegram.org' is not an http(s) URL such as"
        " https://api.telegram.org"
    ]


def wait_until_caught(pid: int, signum: int, timeout: float = 60.0) -> None:
    """Block until process `pid` has a handler for `signum` (Linux: SigCgt in /proc)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status").read_text()
        caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
        if int(caught.split()[1], 16) >> (signum - 1) & 1:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} never caught signal {signum}")


@pytest.mark.slow
def test_sighup_early_and_500s_at_start_do_not_stop_the_bot(tmp_path: Path) -> None:
    api = FakeBotApi()  # getMe's retries are checked in process above
    api.fail_next("setMyCommands", 500, "Internal Server Error", times=2)
    api.fail_next("deleteWebhook", 502, "Bad Gateway")
    with FakeBotApiServer(api) as server:
        bot = BotProcess(server, tmp_path)
        with bot:
            assert bot.proc is not None
            # The first thing `quizbot` does is catch SIGHUP; before that the interpreter is
            # still starting (seconds on a loaded machine) and the default action would end it.
            wait_until_caught(bot.proc.pid, signal.SIGHUP)
            started = time.monotonic()
            for at in (0.15, 0.4, 0.8):  # reloads asked for while the bot is still starting
                time.sleep(max(0.0, started + at - time.monotonic()))
                bot.proc.send_signal(signal.SIGHUP)
            ann = factories.user(7, "Ann")
            api.push_update(factories.command("/start", ann, factories.private_chat(ann)))
            server.wait_for(lambda a: a.count("sendMessage", chat_id=7) >= 1)
            server.wait_for(lambda a: a.my_commands({"type": "all_private_chats"}))
            assert bot.proc.poll() is None
            code = bot.stop()
        assert code == 0, bot.output()[-3000:]
    assert api.count("setMyCommands") >= 3  # two 500s, then the menus were set
    assert "Traceback" not in bot.output()
