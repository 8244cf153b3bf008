"""Settings that are refused at start, and /window's clamping said out loud."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.commands.run import cmd_run
from bot.config import ConfigError, load_settings
from tests import factories
from tests.backend import database_env
from tests.botharness import running_bot
from tests.fakes import TOKEN
from tests.groups_support import ADMIN, GROUP, GROUP_ID, setup_admin


@pytest.mark.parametrize("url", ["notaurl", "ftp://x", "http://bot.example.org/hook", "https://"])
def test_webhook_url_must_be_https(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("QUIZBOT_WEBHOOK_URL", url)
    with pytest.raises(ConfigError, match="must be https://host/path") as info:
        load_settings()
    assert "\n" not in str(info.value)


def test_webhook_url_https_and_local_http_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    for url in ("https://bot.example.org/telegram", "http://127.0.0.1:8443/hook"):
        monkeypatch.setenv("QUIZBOT_WEBHOOK_URL", url)
        assert load_settings().webhook_url == url


@pytest.mark.parametrize("secret", ["bad secret!", "x" * 257, "ümlaut"])
def test_webhook_secret_outside_telegrams_alphabet_is_refused(
    monkeypatch: pytest.MonkeyPatch, secret: str
) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("QUIZBOT_WEBHOOK_SECRET", secret)
    with pytest.raises(ConfigError, match="A-Z a-z 0-9 _ -") as info:
        load_settings()
    assert secret not in str(info.value)  # a secret is never echoed


def test_webhook_cli_option_is_checked_like_the_setting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("QUIZBOT_DB", database_env(tmp_path / "bot.sqlite3"))
    monkeypatch.delenv("QUIZBOT_WEBHOOK_URL", raising=False)

    class Args:
        webhook = "ftp://x"

    assert cmd_run(Args()) == 2  # type: ignore[arg-type]  # a settings error
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "must be https" in err


async def test_window_says_when_it_was_clamped_and_from_when_it_applies(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        await h.feed(factories.command("/window 0", ADMIN, GROUP))
        text = h.api.last_text(GROUP_ID) or ""
        assert "1 min" in text and "0 min is outside" in text and "next question" in text
        await h.feed(factories.command("/window 99999", ADMIN, GROUP))
        assert "1440 min" in (h.api.last_text(GROUP_ID) or "")
        assert "99999 min is outside" in (h.api.last_text(GROUP_ID) or "")
        await h.feed(factories.command("/window 15", ADMIN, GROUP))
        text = h.api.last_text(GROUP_ID) or ""
        assert "15 min" in text and "outside" not in text and "next question" in text


async def test_daily_time_changed_after_todays_push_promises_tomorrow(tmp_path: Path) -> None:
    import datetime as dt

    user = factories.user(950, "Dee")
    chat = factories.private_chat(user)
    async with running_bot(tmp_path) as h:
        push = h.services.push
        push.pace_now = h.clock.now  # type: ignore[method-assign]
        h.clock.set(dt.datetime(2026, 11, 30, 6, 0, tzinfo=dt.UTC))
        await h.feed(factories.command("/daily 06:01 UTC", user, chat))
        h.clock.advance(120)
        await push.run_once()
        assert len(h.api.messages_to(user["id"])) == 2  # the confirmation and the question
        await h.feed(factories.command("/daily 06:24", user, chat))
        assert "Tue 01 Dec, 06:24" in (h.api.last_text(user["id"]) or "")


async def test_window_with_thousands_of_digits_is_clamped_without_echoing_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # int() refuses numbers past 4,300 digits: the handler raised and the admin heard nothing.
    async with running_bot(tmp_path) as h:
        setup_admin(h)
        await h.feed(factories.command("/window " + "9" * 4400, ADMIN, GROUP))
        text = h.api.last_text(GROUP_ID) or ""
        assert "1440 min" in text and "999999… min is outside" in text and len(text) < 300
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
