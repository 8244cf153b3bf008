"""Settings read from the environment or `.env` (pydantic-settings)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.domain import zones

# The bundled bank ships next to the package in a source checkout.
BUNDLED_QUESTIONS = Path(__file__).resolve().parent.parent / "questions"
DEFAULT_BOT_API_URL = "https://api.telegram.org"
TOKEN_PATTERN = re.compile(r"^\d{3,20}:[A-Za-z0-9_-]{30,64}$")
# What Telegram accepts in X-Telegram-Bot-Api-Secret-Token.
WEBHOOK_SECRET_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
# QUIZBOT_DB: a PostgreSQL URL, or a SQLite file as a path or sqlite:///relative, sqlite:////abs.
SQLITE_PREFIX = "sqlite:///"
POSTGRES_PREFIXES = ("postgresql://", "postgres://")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def database_target(text: str) -> Path | str:
    """What a `QUIZBOT_DB` value (or a `--db`, `--from`, `--to` argument) names: a PostgreSQL
    URL as it is, otherwise the SQLite file. ValueError for any other URL (`mysql://…`,
    `postgresql+psycopg://…`, `sqlite://x`), which would otherwise become a file of that odd
    name; its message never holds the value, since a URL may hold a password."""
    if text.startswith(POSTGRES_PREFIXES):
        return text
    if text.startswith(SQLITE_PREFIX):
        return Path(text.removeprefix(SQLITE_PREFIX))
    scheme = _SCHEME.match(text)
    if scheme is not None:
        raise ValueError(
            f"a database URL of scheme {scheme.group(1)!r} is not one quizbot reads: give a "
            "file path, sqlite:///relative.db, sqlite:////absolute.db or postgresql://..."
        )
    return Path(text)


# A local Bot API server (`telegram-bot-api --local`) may post over plain http on the machine.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


class ConfigError(Exception):
    """A setting is missing or wrong; the message is one line meant for the operator."""


def load_settings(**overrides: object) -> Settings:
    """Settings from the environment, with pydantic's errors turned into one ConfigError line."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            name = err["loc"][0] if err["loc"] else "settings"
            # Never include the input: it may be the token.
            problems.append(f"{name}: {err['msg'].removeprefix('Value error, ')}")
        raise ConfigError("invalid settings: " + "; ".join(problems)) from None


def check_webhook_url(url: str) -> str:
    """The URL if Telegram can post to it (https with a host), else ValueError in one line."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    local_http = parts.scheme == "http" and host in LOOPBACK_HOSTS
    if (parts.scheme != "https" and not local_http) or not host:
        # Its scheme and host only: a webhook path often holds the bot token.
        shown = f"{parts.scheme}://{host}" if parts.scheme else repr(host or url[:20])
        raise ValueError(
            f"webhook URL {shown}/... must be https://host/path (Telegram posts only to https;"
            " plain http only to a local Bot API server on 127.0.0.1)"
        )
    return url


class Settings(BaseSettings):
    """Everything the bot reads from its environment; see `.env.example` for each meaning."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        # `NAME=` (as .env.example writes an optional setting) means unset, not an empty value.
        env_ignore_empty=True,
    )

    # Optional here so that offline commands (validate, migrate, backup) need no token;
    # `require_token()` is what `quizbot run` calls.
    bot_token: SecretStr | None = Field(default=None, validation_alias="BOT_TOKEN")
    # A SQLite file (a path or sqlite:///path) or a postgresql:// URL, kept as text (a Path
    # would fold the URL's "//").
    db: Path | str = Field(default=Path("quizbot.sqlite3"), validation_alias="QUIZBOT_DB")
    questions: Annotated[list[Path], NoDecode] = Field(
        default_factory=lambda: [BUNDLED_QUESTIONS], validation_alias="QUIZBOT_QUESTIONS"
    )
    bot_api_url: str = Field(default=DEFAULT_BOT_API_URL, validation_alias="BOT_API_URL")
    # The Bot API transport: "fast" (aiohttp, bot/telegram/transport.py) or PTB's "httpx".
    http: Literal["fast", "httpx"] = Field(default="fast", validation_alias="QUIZBOT_HTTP")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO", validation_alias="QUIZBOT_LOG_LEVEL"
    )
    log_json: bool = Field(default=False, validation_alias="QUIZBOT_LOG_JSON")
    admins: Annotated[frozenset[int], NoDecode] = Field(
        default=frozenset(), validation_alias="QUIZBOT_ADMINS"
    )
    default_timezone: str = Field(default="UTC", validation_alias="QUIZBOT_TIMEZONE")
    # normal: a commit survives a crash of the bot, not of the machine; full: also a power cut
    # or a kernel crash, at the cost of a sync per commit (docs/operations.md).
    durability: Literal["normal", "full"] = Field(
        default="normal", validation_alias="QUIZBOT_DURABILITY"
    )
    # Daily push
    push_grace_minutes: int = Field(
        default=120, ge=0, validation_alias="QUIZBOT_PUSH_GRACE_MINUTES"
    )
    push_rate: float = Field(default=25.0, gt=0, validation_alias="QUIZBOT_PUSH_RATE")
    paid_broadcast: bool = Field(default=False, validation_alias="QUIZBOT_PAID_BROADCAST")
    paid_broadcast_rate: float = Field(
        default=500.0, gt=0, le=1000, validation_alias="QUIZBOT_PAID_BROADCAST_RATE"
    )
    group_messages_per_minute: int = Field(
        default=20, ge=1, validation_alias="QUIZBOT_GROUP_MESSAGES_PER_MINUTE"
    )
    # Retention: answers older than this many days are deleted daily; None keeps them forever.
    # Finished push log rows and unanswered deliveries always go after 90 days.
    retention_days: int | None = Field(
        default=None, ge=1, validation_alias="QUIZBOT_RETENTION_DAYS"
    )
    # Groups
    group_answer_window_minutes: int = Field(
        default=10, ge=1, le=1440, validation_alias="QUIZBOT_GROUP_WINDOW_MINUTES"
    )
    group_quiz_cooldown_seconds: int = Field(
        default=20, ge=0, le=3600, validation_alias="QUIZBOT_GROUP_QUIZ_COOLDOWN_SECONDS"
    )
    group_min_open_seconds: int = Field(
        default=60, ge=0, le=3600, validation_alias="QUIZBOT_GROUP_MIN_OPEN_SECONDS"
    )
    # Flood control: each user (a channel: the chat) may send `flood_burst` updates at once,
    # then `flood_per_minute` a minute; 0 turns it off.
    flood_burst: int = Field(default=20, ge=0, le=10_000, validation_alias="QUIZBOT_FLOOD_BURST")
    flood_per_minute: int = Field(
        default=60, ge=1, le=60_000, validation_alias="QUIZBOT_FLOOD_PER_MINUTE"
    )
    # Webhook mode
    webhook_url: str | None = Field(default=None, validation_alias="QUIZBOT_WEBHOOK_URL")
    webhook_secret: SecretStr | None = Field(
        default=None, validation_alias="QUIZBOT_WEBHOOK_SECRET"
    )
    webhook_listen: str = Field(default="127.0.0.1", validation_alias="QUIZBOT_WEBHOOK_LISTEN")
    webhook_port: int = Field(
        default=8443, ge=1, le=65535, validation_alias="QUIZBOT_WEBHOOK_PORT"
    )

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        if not TOKEN_PATTERN.match(value.get_secret_value().strip()):
            # Never echo the value: a half-pasted token is still a secret.
            raise ValueError(
                "BOT_TOKEN does not look like a token from @BotFather (123456:ABC...)"
            )
        return SecretStr(value.get_secret_value().strip())

    @field_validator("db", mode="before")
    @classmethod
    def _database(cls, value: object) -> object:
        if isinstance(value, str):
            return database_target(value)
        return value

    @field_validator("questions", mode="before")
    @classmethod
    def _split_paths(cls, value: object) -> object:
        if isinstance(value, str):
            # "a, b" as written by hand: a path does not start or end with a space.
            return [Path(p.strip()) for p in value.split(",") if p.strip()]
        return value

    @field_validator("admins", mode="before")
    @classmethod
    def _split_ids(cls, value: object) -> object:
        if isinstance(value, str):
            return frozenset(int(p) for p in re.split(r"[,\s]+", value) if p)
        if isinstance(value, int):
            return frozenset({value})
        return value

    @field_validator("default_timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        # Checked at start: a typo would otherwise surface as a crash in /stats or /daily.
        if not zones.is_known(value):
            raise ValueError(
                f"unknown timezone {value!r}: use an IANA name such as Europe/Berlin or UTC"
            )
        return value

    @field_validator("webhook_url")
    @classmethod
    def _https_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        return check_webhook_url(value)

    @field_validator("webhook_secret")
    @classmethod
    def _secret_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value():
            return None
        if not WEBHOOK_SECRET_PATTERN.match(value.get_secret_value()):
            # Never echo the value: it is a secret.
            raise ValueError("QUIZBOT_WEBHOOK_SECRET must be 1-256 characters of A-Z a-z 0-9 _ -")
        return value

    @field_validator("bot_api_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        if re.search(r"/bot\d{3,20}:", value):
            # Never echo it: the token is in it.
            raise ValueError(
                "BOT_API_URL must be the server's base URL (http://host:port), without "
                "/bot<token>: the bot adds that itself"
            )
        return value.rstrip("/")

    def require_token(self) -> str:
        """The bot token, or ConfigError saying how to set it."""
        if self.bot_token is None or not self.bot_token.get_secret_value():
            raise ConfigError(
                "BOT_TOKEN is not set: put the token from @BotFather in the environment or .env"
            )
        return self.bot_token.get_secret_value()

    @property
    def api_base_url(self) -> str:
        """Base URL for PTB: it appends the token itself."""
        return f"{self.bot_api_url}/bot"
