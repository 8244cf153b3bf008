"""What the running bot leaves for `quizbot health` and `/healthz`: start, heartbeat, last update.

Written to the `bot_status` table so a separate process (the CLI, Docker's HEALTHCHECK) can read
them. Kept cheap: an update only touches memory, and the database at most every few seconds.
"""

from __future__ import annotations

import logging

from telegram import Update

from bot.health import DB_FILE_KEY, HEARTBEAT_INTERVAL_S, database_file
from bot.schedule.ticker import Ticker
from bot.storage.bot_status import set_status
from bot.telegram.context import OpsState, QuizApp, QuizContext, Services

log = logging.getLogger(__name__)

# An update writes last_update_at at most this often; the heartbeat writes the rest.
UPDATE_WRITE_EVERY_S = 5.0
HEARTBEAT_JOB = "ops:heartbeat"


def ops_state(app: QuizApp) -> OpsState:
    """The OpsState of an application (it lives in the application's bot_data)."""
    return app.bot_data.ops


async def _write(services: Services, values: dict[str, str | None]) -> None:
    now = services.clock.now()
    await services.db.write(lambda conn: set_status(conn, values, now))


async def track_update(update: Update, context: QuizContext) -> None:
    """Group -1, every update: remember its time; persist it at most every few seconds."""
    services = context.bot_data.services
    if services is None:
        return
    state = context.bot_data.ops
    now = services.clock.now()
    state.last_update_at = now
    state.updates_seen += 1
    if now - state.last_written_at >= UPDATE_WRITE_EVERY_S:
        state.last_written_at = now
        await _write(services, {"last_update_at": repr(now)})


async def heartbeat(context: QuizContext) -> None:
    """Job: prove the loop is alive, and flush a last_update_at the throttle held back."""
    services = context.bot_data.services
    if services is not None:
        await write_heartbeat(services, context.bot_data.ops)


async def write_heartbeat(services: Services, state: OpsState) -> None:
    """The heartbeat at the current wall time. An update seen before the wall clock stepped
    back is no later than now: health must not read a time from the future."""
    now = services.clock.now()
    values: dict[str, str | None] = {"heartbeat_at": repr(now)}
    if state.last_update_at is not None:
        state.last_update_at = min(state.last_update_at, now)
        state.last_written_at = min(state.last_written_at, now)
        values["last_update_at"] = repr(state.last_update_at)
    await _write(services, values)


async def mark_started(app: QuizApp, services: Services, ticker: Ticker | None = None) -> None:
    """post_init: record the start and schedule the heartbeat (on monotonic time, so that it
    goes on beating at the current wall time after the wall clock steps back)."""
    now = repr(services.clock.now())
    mode = "webhook" if services.settings.webhook_url else "polling"
    values = {"started_at": now, "heartbeat_at": now, "stopped_at": None, "mode": mode}
    # The file just opened, for health to tell whether the file at the path is still it.
    values[DB_FILE_KEY] = database_file(services.settings.db)
    await _write(services, values)
    if ticker is not None:
        state = ops_state(app)
        ticker.every(HEARTBEAT_JOB, HEARTBEAT_INTERVAL_S, lambda: write_heartbeat(services, state))


async def mark_stopped(app: QuizApp, services: Services) -> None:
    """post_shutdown, before the database closes: record a clean stop."""
    state = ops_state(app)
    values: dict[str, str | None] = {"stopped_at": repr(services.clock.now())}
    if state.last_update_at is not None:
        values["last_update_at"] = repr(state.last_update_at)
    await _write(services, values)
    log.info("stopped after %d update(s)", state.updates_seen)
