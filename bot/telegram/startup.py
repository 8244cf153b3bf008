"""Start-up calls to the Bot API: retried with backoff, and fatal only when they cannot work.

A 500, a timeout or a short flood wait at start is Telegram having a moment: a bot that exits
on it gets restarted by systemd until StartLimitBurst gives up for good. So getMe (the token
and BOT_API_URL check, before anything else starts), setMyCommands, deleteWebhook and
setWebhook are tried again. A rejected token or a URL that is not http(s) cannot get better:
one line and exit 1. A Bot API still unreachable after STARTUP_BACKOFF_S is the same line,
and the supervisor's restart takes over from there.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar
from urllib.parse import urlsplit

from telegram import Bot
from telegram.error import InvalidToken, RetryAfter, TelegramError

from bot.config import DEFAULT_BOT_API_URL, Settings
from bot.telegram.outbound.failures import Failure, retry_seconds, sort_error
from bot.telegram.transport import make_request

log = logging.getLogger(__name__)
T = TypeVar("T")

STARTUP_BACKOFF_S = (1.0, 2.0, 4.0, 8.0)  # ~15 s of transient failures, then give up
MAX_FLOOD_WAIT_S = 30.0  # a longer flood wait at start: give up (and be restarted) instead


class StartupFailed(Exception):
    """The bot cannot start; str() is one line for the operator (never the token)."""


def check_api_url(url: str) -> str | None:
    """Why BOT_API_URL cannot work, or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"BOT_API_URL {url!r} is not an http(s) URL such as https://api.telegram.org"
    return None


async def retrying(
    what: str, call: Callable[[], Awaitable[T]], sleep: Callable[[float], Awaitable[None]]
) -> T:
    """Run a start-up Bot API call, retrying transient failures with backoff; InvalidToken
    and a refused request (400) are raised at once, the last transient error after the
    retries."""
    for attempt, backoff in enumerate((*STARTUP_BACKOFF_S, None), start=1):
        try:
            return await call()
        except InvalidToken:
            raise
        except TelegramError as err:
            failure = sort_error(err)
            if failure in (Failure.REFUSED, Failure.FORBIDDEN) or backoff is None:
                raise
            wait = backoff
            if failure is Failure.FLOOD and isinstance(err, RetryAfter):
                wait = retry_seconds(err)
                if wait > MAX_FLOOD_WAIT_S:
                    raise
            log.warning("%s failed (try %d): %s; again in %g s", what, attempt, err, wait)
            await sleep(wait)
    raise AssertionError("unreachable")  # the loop returns or raises


async def check_bot_api(settings: Settings) -> str:
    """getMe with the configured token and URL, retried; the bot's username. Raises
    StartupFailed with one line when the token is rejected or the API stays unreachable."""
    if problem := check_api_url(settings.bot_api_url):
        raise StartupFailed(problem)
    # Its own short-lived request: the Application's connections belong to its own loop.
    request = make_request(settings.http, connect_timeout=5.0, read_timeout=10.0)
    bot = Bot(settings.require_token(), base_url=settings.api_base_url, request=request)
    try:
        await request.initialize()
        me = await retrying("getMe", bot.get_me, asyncio.sleep)
    except InvalidToken:
        # PTB reads a 404 as InvalidToken too: a BOT_API_URL that is no Bot API server.
        other = settings.bot_api_url != DEFAULT_BOT_API_URL
        raise StartupFailed(
            "the Bot API rejected BOT_TOKEN (InvalidToken): check the token from @BotFather"
            + (
                f", and that BOT_API_URL {settings.bot_api_url} is a Bot API server"
                if other
                else ""
            )
        ) from None
    except TelegramError as err:
        raise StartupFailed(
            f"cannot reach the Bot API at {settings.bot_api_url}: {type(err).__name__}: {err}"
        ) from None
    finally:
        await request.shutdown()
    return me.username or ""


def preflight(settings: Settings) -> None:
    """check_bot_api on a loop of its own, before the Application starts (blocking)."""
    asyncio.run(check_bot_api(settings))
