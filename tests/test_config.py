"""Settings: bad values stop the start with one line that names the setting."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import ConfigError, load_settings
from tests.fakes import TOKEN


def test_unknown_timezone_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("QUIZBOT_TIMEZONE", "Europe/Berln")
    with pytest.raises(ConfigError, match="QUIZBOT_TIMEZONE: unknown timezone 'Europe/Berln'"):
        load_settings()


def test_admins_and_question_paths_are_split(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("QUIZBOT_ADMINS", "12, 34 56")
    monkeypatch.setenv("QUIZBOT_QUESTIONS", "a, b/c ,")
    monkeypatch.setenv("BOT_API_URL", "http://127.0.0.1:9/")
    settings = load_settings()
    assert settings.admins == {12, 34, 56}
    assert [str(p) for p in settings.questions] == ["a", "b/c"]
    assert settings.api_base_url == "http://127.0.0.1:9/bot"


def test_malformed_token_is_not_echoed(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "12345:short-but-secret"
    monkeypatch.setenv("BOT_TOKEN", secret)
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert "BOT_TOKEN" in str(info.value) and secret not in str(info.value)


def test_database_is_a_path_or_a_postgres_url_kept_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_DB", "data/bot.sqlite3")
    assert load_settings().db == Path("data/bot.sqlite3")
    url = "postgresql://bot:pw@db.internal:5432/quizbot"
    monkeypatch.setenv("QUIZBOT_DB", url)
    assert load_settings().db == url  # a Path would fold its "//"

    monkeypatch.setenv("QUIZBOT_DB", "sqlite:////var/lib/quizbot/bot.sqlite3")
    assert load_settings().db == Path("/var/lib/quizbot/bot.sqlite3")


@pytest.mark.parametrize(
    "url", ["mysql://bot:pw@db/quizbot", "postgresql+psycopg://bot:pw@db/quizbot", "sqlite://pw"]
)
def test_a_database_url_quizbot_does_not_read_is_refused_without_its_password(
    url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not a SQLite file of that odd name, made below the working folder and used quietly."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUIZBOT_DB", url)
    with pytest.raises(ConfigError, match="QUIZBOT_DB: a database URL of scheme") as info:
        load_settings()
    assert "pw" not in str(info.value)
    with pytest.raises(SystemExit) as exited:
        main(["db", "copy", "--from", url, "--to", "x.sqlite3"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --from: a database URL of scheme" in err and "pw" not in err
    assert list(tmp_path.iterdir()) == []


def test_urls_that_hold_the_token_are_refused_without_echoing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("QUIZBOT_WEBHOOK_URL", f"http://bot.example.org/{TOKEN}")
    shown = re.escape("webhook URL http://bot.example.org/... must")
    with pytest.raises(ConfigError, match=shown) as info:
        load_settings()
    assert TOKEN not in str(info.value)
    monkeypatch.delenv("QUIZBOT_WEBHOOK_URL")
    monkeypatch.setenv("BOT_API_URL", f"http://127.0.0.1:8081/bot{TOKEN}")
    with pytest.raises(ConfigError, match="without /bot<token>") as info:
        load_settings()
    assert TOKEN not in str(info.value)


def test_an_empty_setting_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """`NAME=` as .env.example writes an optional setting: the default, not a bad value."""
    monkeypatch.setenv("BOT_TOKEN", "")
    monkeypatch.setenv("QUIZBOT_RETENTION_DAYS", "")
    settings = load_settings()
    assert settings.bot_token is None
    with pytest.raises(ConfigError, match="BOT_TOKEN is not set"):
        settings.require_token()


def test_the_bot_api_clients_own_error_tracebacks_are_not_logged() -> None:
    """A proxy's 5xx page: PTB logs an ERROR with a traceback on every call, then raises what
    the bot's retry reports in one line."""
    import logging

    from bot.logging_setup import setup_logging

    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        setup_logging("INFO")
        assert not logging.getLogger("telegram.request").isEnabledFor(logging.ERROR)
        assert logging.getLogger("bot").isEnabledFor(logging.INFO)
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
        logging.getLogger("telegram.request").setLevel(logging.NOTSET)
