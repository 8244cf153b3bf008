"""`FakeBotApiServer`: a `FakeBotApi` served over HTTP on 127.0.0.1, for end-to-end tests.

    with FakeBotApiServer() as server:
        env = {"BOT_TOKEN": server.token, "BOT_API_URL": server.url}   # run `quizbot run`
        server.api.push_update(factories.command("/start", u, c))
        server.wait_for(lambda api: api.count("sendMessage", chat_id=c["id"]) == 1)
        # in an async test with the bot in the same loop: await server.wait_for_async(...)

Routes `GET|POST /bot<token>/<method>` (form-urlencoded, multipart, JSON or query string) to
`api.handle`; another token gets 401 and any other path 404, as Telegram does. Each request gets
its own connection (HTTP/1.0) and thread, so `__exit__` joins every thread and closes every
socket: no thread outlives the `with` block and no ResourceWarning is raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.parser
import email.policy
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, TypeVar

from tests.fakes.botapi import FakeBotApi
from tests.fakes.params import decode_params
from tests.fakes.request import TOKEN

T = TypeVar("T")
_UNAUTHORIZED = {"ok": False, "error_code": 401, "description": "Unauthorized"}
_NOT_FOUND = {"ok": False, "error_code": 404, "description": "Not Found"}


def _multipart_fields(content_type: str, body: bytes) -> dict[str, str]:
    """Form fields of a multipart body; an uploaded file becomes a short placeholder text."""
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    parser = email.parser.BytesParser(policy=email.policy.HTTP)
    message = parser.parsebytes(head + body)
    fields: dict[str, str] = {}
    for part in message.iter_parts():
        name = str(part.get_param("name", header="content-disposition"))
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        filename = part.get_filename()
        fields[name] = f"<file {filename} {len(data)} bytes>" if filename else data.decode()
    return fields


def uploaded_files(content_type: str, body: bytes) -> dict[str, bytes]:
    """The files of a multipart body by field name (sendPhoto's `photo`), as bytes."""
    if content_type.split(";")[0].strip().lower() != "multipart/form-data":
        return {}
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    files: dict[str, bytes] = {}
    for part in message.iter_parts():
        payload = part.get_payload(decode=True)
        if part.get_filename() and isinstance(payload, bytes):
            files[str(part.get_param("name", header="content-disposition"))] = payload
    return files


def parse_body(content_type: str, body: bytes, query: str) -> dict[str, Any]:
    """Bot API parameters from a query string plus a form, multipart or JSON body."""
    params = decode_params(dict(urllib.parse.parse_qsl(query, keep_blank_values=True)))
    kind = content_type.split(";")[0].strip().lower()
    if kind == "application/json" and body:
        params.update(json.loads(body))
    elif kind == "multipart/form-data":
        params.update(decode_params(_multipart_fields(content_type, body)))
    elif body:
        form = urllib.parse.parse_qsl(body.decode(), keep_blank_values=True)
        params.update(decode_params(dict(form)))
    return params


# How long a test waits for the bot to do something before failing. Generous: on a busy 2-core
# CI machine a subprocess bot can take seconds to start; a passing test never waits this long.
WAIT_S = 30.0


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"  # one request per connection: nothing idles past shutdown
    timeout = 10  # a client that connects and never sends cannot pin a thread forever

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the api's call log is the record."""

    def _serve(self) -> None:
        path, _, query = self.path.partition("?")
        parts = path.strip("/").split("/")
        if len(parts) != 2 or not parts[0].startswith("bot"):
            self._reply(404, _NOT_FOUND)
            return
        if parts[0][3:] != self.server.token:
            self._reply(401, _UNAUTHORIZED)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            params = parse_body(self.headers.get("Content-Type", ""), body, query)
        except ValueError as error:
            self._reply(
                400, {"ok": False, "error_code": 400, "description": f"Bad Request: {error}"}
            )
            return
        try:
            files = uploaded_files(self.headers.get("Content-Type", ""), body)
            status, answer = self.server.api.handle(parts[1], params, files)
        except Exception as error:  # a bug in the fake: say so instead of dropping the line
            self._reply(500, {"ok": False, "error_code": 500, "description": repr(error)})
            raise
        # Processed already; the answer comes late, as from a slow Telegram.
        if delay := self.server.api.delay_for(parts[1]):
            time.sleep(delay)
        self._reply(status, answer)

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout); Telegram does not care either


class _KeepAliveHandler(_Handler):
    # Connections kept open between requests, as Telegram keeps them (benchmarks only: a test's
    # `__exit__` would wait for the client to close them).
    protocol_version = "HTTP/1.1"
    # The head and the body go out in two writes: with Nagle's algorithm the body would wait
    # for the client's delayed ACK (~40 ms on a kept-alive connection), which Telegram does not.
    disable_nagle_algorithm = True

    def handle(self) -> None:
        # The client process may end with its connections open.
        with contextlib.suppress(ConnectionResetError):
            super().handle()


class _Server(ThreadingHTTPServer):
    # Non-daemon handler threads, joined by server_close(): nothing runs after shutdown.
    daemon_threads = False
    block_on_close = True
    # socketserver's default listen backlog is 5: a push opening dozens of connections at once
    # on a busy machine overflowed it, and the dropped SYNs came back as client timeouts.
    request_queue_size = 128

    def __init__(self, api: FakeBotApi, token: str, keep_alive: bool = False) -> None:
        super().__init__(("127.0.0.1", 0), _KeepAliveHandler if keep_alive else _Handler)
        self.api = api
        self.token = token


class FakeBotApiServer:
    """HTTP front for a `FakeBotApi`; use as a context manager (or `start()`/`stop()`)."""

    def __init__(
        self, api: FakeBotApi | None = None, token: str = TOKEN, *, keep_alive: bool = False
    ) -> None:
        self.api = api or FakeBotApi()
        self.token = token
        self.keep_alive = keep_alive
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Root URL such as `http://127.0.0.1:PORT`: the bot's BOT_API_URL."""
        if self._server is None:
            raise RuntimeError("server not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """`url + "/bot"`: what PTB's `Bot(token, base_url=...)` expects."""
        return f"{self.url}/bot"

    def start(self) -> None:
        """Bind an OS-chosen port and serve in a background thread."""
        self._server = _Server(self.api, self.token, self.keep_alive)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-bot-api",
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop serving, wake long polls, join every thread and close the socket."""
        if self._server is None or self._thread is None:
            return
        self._server.shutdown()
        self.api.interrupt_polls()
        self._thread.join()
        self._server.server_close()  # joins the request threads still answering
        self._server = self._thread = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def wait_for(
        self,
        predicate: Callable[[FakeBotApi], T],
        timeout: float = WAIT_S,
        interval: float = 0.02,
    ) -> T:
        """Poll `predicate(api)` until truthy and return its value; AssertionError on timeout."""
        return wait_for(self.api, predicate, timeout, interval)

    async def wait_for_async(
        self,
        predicate: Callable[[FakeBotApi], T],
        timeout: float = WAIT_S,  # noqa: ASYNC109 - same signature as wait_for
        interval: float = 0.02,
    ) -> T:
        """`wait_for` for async tests: sleeps with asyncio so an in-loop bot keeps running."""
        return await wait_for_async(self.api, predicate, timeout, interval)

    @staticmethod
    def post_webhook(url: str, update: dict[str, Any], secret: str | None = None) -> int:
        """POST an update to a bot's webhook, as Telegram would; returns the HTTP status."""
        return post_webhook(url, update, secret)


def wait_for(
    api: FakeBotApi,
    predicate: Callable[[FakeBotApi], T],
    timeout: float = WAIT_S,
    interval: float = 0.02,
) -> T:
    """Poll `predicate(api)` until truthy and return its value; AssertionError on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        if result := predicate(api):
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(_timeout_message(api, timeout))
        time.sleep(interval)


async def wait_for_async(
    api: FakeBotApi,
    predicate: Callable[[FakeBotApi], T],
    timeout: float = WAIT_S,  # noqa: ASYNC109 - the timeout error lists the last calls
    interval: float = 0.02,
) -> T:
    """Like `wait_for`, but yields to the event loop between checks."""
    deadline = time.monotonic() + timeout
    while True:
        if result := predicate(api):
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(_timeout_message(api, timeout))
        await asyncio.sleep(interval)


def _timeout_message(api: FakeBotApi, timeout: float) -> str:
    # Long polls repeat while the bot waits: the calls that say what it did are the others.
    others = [c for c in api.calls if c.method != "getUpdates"]
    last = "\n".join(f"  {c.method} {c.params}" for c in others[-15:])
    return f"condition not met within {timeout} s; last calls:\n{last}"


def post_webhook(url: str, update: dict[str, Any], secret: str | None = None) -> int:
    """POST an update to a bot's webhook, as Telegram would; returns the HTTP status."""
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    request = urllib.request.Request(url, json.dumps(update).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.close()  # an unclosed error response is a ResourceWarning
        return int(error.code)
