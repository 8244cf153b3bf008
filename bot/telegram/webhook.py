"""Webhook mode: a small tornado server in front of the Application, with a health endpoint.

Why not PTB's `Application.run_webhook`: it checks the secret token, but its tornado app serves
the webhook route only, and operators want `GET /healthz` on the same port. So, as PTB's
`customwebhookbot` example does, we run the server ourselves: it checks the secret token, puts
`Update.de_json(...)` on `app.update_queue`, and we call setWebhook. Tornado comes with PTB's
`webhooks` extra and runs on the same asyncio loop as the Application.

Shutdown (SIGTERM/SIGINT): refuse new posts with 503 (Telegram delivers them again after the
restart), stop listening, then `Application.stop()`. That puts a stop marker behind the updates
already queued and waits for `update_queue.join()`: with `concurrent_updates`, `task_done()`
comes only when an update's handler finished, so every update accepted with 200 is handled to
the end (handlers commit an answer before replying). Then running jobs finish (JobQueue
`stop(wait=True)`), and post_shutdown closes the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import signal
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from telegram import Update
from tornado.web import Application as WebApp
from tornado.web import RequestHandler, stream_request_body

from bot.config import Settings
from bot.health import database_report, iso
from bot.logging_setup import RedactSecrets
from bot.telegram.context import QuizApp
from bot.telegram.startup import retrying
from bot.telegram.status import ops_state
from bot.telegram.webhook_guard import (
    BODY_TIMEOUT_S,
    HEADER_TIMEOUT_S,
    MAX_BACKLOG,
    MAX_BODY_BYTES,
    MAX_HEADER_BYTES,
    CappedHTTPServer,
    CountingQueue,
    RateLimitedLog,
    RecentIds,
)

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HEALTH_PATH = "/healthz"
DRAIN_TIMEOUT_S = 5.0
SATURATED_FOR_S = 60.0  # health says not ok this long after a refused connection or post


@dataclass
class WebhookState:
    """Shared by the request handlers and the shutdown sequence."""

    accepting: bool = True
    in_flight: int = 0
    received: int = 0
    refused: int = 0
    duplicates: int = 0
    bad: int = 0
    backlog_full: int = 0
    last_backlog_full_at: float | None = None
    server: CappedHTTPServer | None = None
    recent: RecentIds = field(default_factory=RecentIds)
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    bad_log: RateLimitedLog = field(default_factory=lambda: RateLimitedLog(log))
    full_log: RateLimitedLog = field(default_factory=lambda: RateLimitedLog(log))


@stream_request_body
class UpdateHandler(RequestHandler):
    """POST <webhook path>: one update from Telegram.

    Streaming mode, so everything that needs only the headers is decided before a byte of the
    body is read: the secret (403), shutting down (503), a declared size over the cap (413),
    a full backlog (503: Telegram delivers it again later, so nothing acknowledged is lost).
    """

    def initialize(self, app: QuizApp, secret: str, state: WebhookState) -> None:
        self.app, self.secret, self.state = app, secret, state
        self._chunks: list[bytes] = []

    def prepare(self) -> None:
        """Refuse on the headers alone."""
        given = self.request.headers.get(SECRET_HEADER, "")
        # Constant-time comparison: the secret is the only thing between us and forged updates.
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            self.state.refused += 1
            self.send_error(403)
            return
        if not self.state.accepting:
            # Shutting down: not acknowledged, so Telegram delivers it again after the restart.
            self.send_error(503)
            return
        length = self.request.headers.get("Content-Length", "")
        if length and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            self.send_error(413)
            return
        if backlog(self.app) >= MAX_BACKLOG:
            self.state.backlog_full += 1
            self.state.last_backlog_full_at = time.monotonic()
            self.state.full_log.log(
                "webhook: %d updates waiting, the cap: answering 503 (Telegram retries)",
                MAX_BACKLOG,
            )
            self.set_header("Retry-After", "1")
            self.send_error(503)
            return
        self.request.connection.set_max_body_size(MAX_BODY_BYTES)  # type: ignore[union-attr]

    def data_received(self, chunk: bytes) -> None:
        """Collect the body (at most MAX_BODY_BYTES: tornado closes a longer one)."""
        self._chunks.append(chunk)

    async def post(self) -> None:
        self.state.in_flight += 1
        self.state.idle.clear()
        try:
            await self._receive(b"".join(self._chunks))
        finally:
            self.state.in_flight -= 1
            if not self.state.in_flight:
                self.state.idle.set()

    async def _receive(self, body: bytes) -> None:
        try:
            data = json.loads(body)
            if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
                raise ValueError("no update_id")
            update = Update.de_json(data, self.app.bot)
        except Exception as err:  # any bad input is a 400, never a traceback
            # RecursionError (JSON nested 100,000 deep), OverflowError (`date: 1e30`), ...
            self.state.bad += 1
            self.state.bad_log.log(
                "webhook: a body that is not an update (%d bytes): %s",
                len(body),
                type(err).__name__,
            )
            self.send_error(400)
            return
        if self.state.recent.seen(update.update_id):
            self.state.duplicates += 1  # posted again: acknowledged, not handled twice
            self.set_status(200)
            self.finish()
            return
        services = self.app.bot_data.services
        inbox = services.inbox if services is not None else None
        if inbox is not None:
            try:
                fresh = await inbox.receive([(update.update_id, body.decode("utf-8"))])
            except Exception as err:  # not stored: not acknowledged, Telegram sends it again
                # ... and that delivery must not pass for a duplicate of this one.
                self.state.recent.forget(update.update_id)
                inbox.unsaved([data])
                self.state.bad_log.log("webhook: update not stored, 503: %s", err)
                self.send_error(503)
                return
            if update.update_id not in fresh:
                self.state.duplicates += 1  # stored before (and handled or being handled)
                self.set_status(200)
                self.finish()
                return
        await self.app.update_queue.put(update)
        self.state.received += 1
        self.set_status(200)
        self.finish()


def backlog(app: QuizApp) -> int:
    """Updates acknowledged whose handling has not finished."""
    queue = app.update_queue
    return queue.unfinished if isinstance(queue, CountingQueue) else queue.qsize()


class HealthHandler(RequestHandler):
    """GET /healthz: 200 with a JSON report when healthy, 503 otherwise."""

    def initialize(self, app: QuizApp, state: WebhookState) -> None:
        self.app, self.state = app, state

    async def get(self) -> None:
        report = await live_report(self.app, self.state)
        self.set_status(200 if report["ok"] else 503)
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(report))


async def live_report(app: QuizApp, state: WebhookState) -> dict[str, Any]:
    """Health as the running bot sees it: database round trip, banks, updates, push backlog."""
    services = app.bot_data.services
    ops = ops_state(app)
    now = time.time()
    database: dict[str, Any] = {"ok": False, "error": "not started"}
    if services is not None:
        try:
            target = services.settings.db
            full = await services.db.read(lambda conn: database_report(conn, now, target))
            keys = ("ok", "error", "schema_version", "push_backlog")
            database = {k: full[k] for k in keys if k in full}
            if services.db.fault is not None:
                # Reads work on a full disk; the writes that matter (answers) do not.
                database.update(ok=False, error=f"writes failing: {services.db.fault}")
        except Exception as err:  # any failure here is the health verdict, not a crash
            database = {"ok": False, "error": f"{type(err).__name__}: {err}"}
    catalog = services.catalog.banks if services is not None else {}
    banks = {bank_id: len(bank.questions) for bank_id, bank in catalog.items()}
    server = state.server
    recent = [
        t
        for t in (state.last_backlog_full_at, server.last_refused_at if server else None)
        if t is not None and time.monotonic() - t < SATURATED_FOR_S
    ]
    return {
        "ok": bool(database["ok"])
        and app.running
        and state.accepting
        and bool(banks)
        and not recent,
        "saturated": bool(recent),
        "mode": "webhook",
        "accepting_updates": state.accepting,
        "database": database,
        "banks": banks,
        "last_update_at": iso(ops.last_update_at),
        "updates": {
            "received": state.received,
            "refused": state.refused,
            "queued": app.update_queue.qsize(),
            "unfinished": backlog(app),
            "queue_cap": MAX_BACKLOG,
            "refused_backlog_full": state.backlog_full,
            "duplicates": state.duplicates,
            "bad": state.bad,
        },
        "connections": {
            "open": server.open_connections if server else 0,
            "cap": server.max_connections if server else 0,
            "refused": server.refused_connections if server else 0,
        },
    }


_failure_logs: dict[int, RateLimitedLog] = {}


def _access_log(handler: RequestHandler) -> None:
    """Failures at WARNING (a wrong secret shows up), at most one line per status every few
    seconds (a flood of forged posts must not flood the log); successes at DEBUG."""
    status = handler.get_status()
    request = handler.request
    if status < 400:
        log.debug("%d %s %s from %s", status, request.method, request.path, request.remote_ip)
        return
    limited = _failure_logs.setdefault(status, RateLimitedLog(log))
    limited.log("%d %s %s from %s", status, request.method, request.path, request.remote_ip)


def make_web_app(app: QuizApp, path: str, secret: str, state: WebhookState) -> WebApp:
    """The tornado routes: the webhook path and /healthz."""
    return WebApp(
        [
            (path, UpdateHandler, {"app": app, "secret": secret, "state": state}),
            (HEALTH_PATH, HealthHandler, {"app": app, "state": state}),
        ],
        log_function=_access_log,
    )


async def _drain(state: WebhookState) -> None:
    """Wait for requests past the secret check to put their update on the queue."""
    if state.in_flight:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(state.idle.wait(), DRAIN_TIMEOUT_S)


def _redact_in_logs(secret: str) -> None:
    """Add the webhook secret to the token redaction (PTB logs setWebhook's params at DEBUG)."""
    for handler in logging.getLogger().handlers:
        for flt in handler.filters:
            if isinstance(flt, RedactSecrets) and secret not in flt.secrets:
                flt.secrets.append(secret)


async def serve(app: QuizApp, settings: Settings) -> None:
    """Run the bot in webhook mode until SIGTERM or SIGINT, then shut down cleanly."""
    if not settings.webhook_url:
        raise ValueError("webhook mode needs QUIZBOT_WEBHOOK_URL or --webhook URL")
    url = settings.webhook_url
    path = urlsplit(url).path or "/"
    configured = settings.webhook_secret.get_secret_value() if settings.webhook_secret else ""
    # A fresh secret per start when none is configured: Telegram gets it with setWebhook, so
    # nobody else can know it. token_urlsafe uses only the characters Telegram allows.
    secret = configured or secrets.token_urlsafe(32)
    _redact_in_logs(secret)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    state = WebhookState()
    server: CappedHTTPServer | None = None
    try:
        await app.initialize()
        if app.post_init is not None:
            await app.post_init(app)
        await app.start()
        server = CappedHTTPServer(
            make_web_app(app, path, secret, state),
            max_body_size=MAX_BODY_BYTES,
            max_header_size=MAX_HEADER_BYTES,
            idle_connection_timeout=HEADER_TIMEOUT_S,
            body_timeout=BODY_TIMEOUT_S,
        )
        state.server = server
        server.listen(settings.webhook_port, settings.webhook_listen)
        await retrying(
            "setWebhook",
            lambda: app.bot.set_webhook(
                url, secret_token=secret, allowed_updates=Update.ALL_TYPES
            ),
            asyncio.sleep,
        )
        log.info(
            "webhook mode: %s served on %s:%d (secret %s), health on %s",
            url,
            settings.webhook_listen,
            settings.webhook_port,
            "from QUIZBOT_WEBHOOK_SECRET" if configured else "generated for this run",
            HEALTH_PATH,
        )
        await stop.wait()
        log.info("stopping: no new updates taken; %d queued to finish", app.update_queue.qsize())
    finally:
        state.accepting = False
        if server is not None:
            server.stop()
            await _drain(state)
            await server.close_all_connections()
        if app.running:
            await app.stop()  # handles every queued update and waits for running jobs
            if app.post_stop is not None:
                await app.post_stop(app)
        await app.shutdown()  # a no-op when initialize() failed
        if app.post_shutdown is not None:
            await app.post_shutdown(app)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)


def run_webhook(app: QuizApp, settings: Settings) -> None:
    """Serve the webhook (blocking); exits 1 with a logged reason when it cannot start."""
    try:
        asyncio.run(serve(app, settings))
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as err:
        # Through logging, whose filter redacts the token: PTB's InvalidToken message, for one,
        # contains it, and an uncaught traceback would print it as it is.
        log.critical("webhook mode stopped: %s: %s", type(err).__name__, err, exc_info=err)
        raise SystemExit(1) from None
