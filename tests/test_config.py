"""Settings: bad values stop the start with one line that names the setting."""

from __future__ import annotations

from pathlib import Path

import pytest

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
    monkeypatch.setenv("QUIZBOT_QUESTIONS", "a,b/c")
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
