"""`FakeRequest`: a PTB `BaseRequest` that answers from a `FakeBotApi` in-process, instantly.

Handler tests use it to run a real `Application` without any network:

    api = FakeBotApi()
    app = make_application(api)        # or, by hand:
    # Application.builder().token(TOKEN).request(FakeRequest(api))
    #     .get_updates_request(FakeRequest(api)).updater(None).build()
    async with app:
        await app.process_update(Update.de_json(factories.command("/start", u, c), app.bot))
    assert api.last_text(c["id"]) == "Welcome!"

`api.set_delay(method, s)` is honoured: the call is processed at once and the answer is held back
`s` seconds; if that exceeds the read timeout the caller gets `telegram.error.TimedOut` (after
waiting the timeout), like a slow Telegram that still delivered the message.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from telegram._utils.types import ODVInput
from telegram.error import TimedOut
from telegram.ext import Application, ApplicationBuilder
from telegram.request import BaseRequest, RequestData

from tests.fakes.botapi import FakeBotApi

# Matches the token pattern in bot/config.py: ^\d{3,20}:[A-Za-z0-9_-]{30,64}$
TOKEN = "123456:" + "A" * 35


class FakeRequest(BaseRequest):
    """Routes each PTB request to `api.handle`; `token`, if given, must match the URL's."""

    def __init__(
        self, api: FakeBotApi, *, token: str | None = None, read_timeout: float | None = 5.0
    ) -> None:
        self.api = api
        self.token = token
        self._read_timeout = read_timeout

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout, used by PTB to size getUpdates' timeout."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Nothing to open."""

    async def shutdown(self) -> None:
        """Nothing to close."""

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """Answer `<base>/bot<token>/<method>` from the fake API."""
        prefix, _, api_method = url.rpartition("/")
        if self.token is not None and not prefix.endswith(f"/bot{self.token}"):
            body: dict[str, Any] = {"ok": False, "error_code": 401, "description": "Unauthorized"}
            return 401, json.dumps(body).encode()
        # `parameters` are already Python values (PTB JSON-encodes them only for the wire); a
        # JSON round trip normalises tuples and keys exactly as the HTTP path would see them.
        params = json.loads(json.dumps(request_data.parameters)) if request_data else {}
        files: dict[str, bytes] = {}
        for name, (filename, content, _mime) in (
            request_data.multipart_data.items() if request_data else ()
        ):
            data = content if isinstance(content, bytes) else content.read()
            files[name] = data
            # What the HTTP server sees of an upload (see server._multipart_fields).
            params[name] = f"<file {filename} {len(data)} bytes>"
        if api_method.lower() == "getupdates" and params.get("timeout"):
            # A long poll blocks on a threading.Condition: keep it off the event loop.
            status, body = await asyncio.to_thread(self.api.handle, api_method, params)
        else:
            status, body = self.api.handle(api_method, params, files)
        await self._hold_back(self.api.delay_for(api_method), read_timeout)
        return status, json.dumps(body).encode()

    async def _hold_back(self, delay: float, read_timeout: ODVInput[float]) -> None:
        if delay <= 0:
            return
        # A DefaultValue (PTB's "not given" marker) means our own read timeout applies.
        timeout: float | None = self._read_timeout
        if read_timeout is None or isinstance(read_timeout, int | float):
            timeout = read_timeout
        if timeout is not None and delay > timeout:
            await asyncio.sleep(timeout)
            raise TimedOut(f"Fake read timeout after {timeout} s")
        await asyncio.sleep(delay)


def make_application(
    api: FakeBotApi, token: str = TOKEN, **builder_options: Any
) -> Application[Any, Any, Any, Any, Any, Any]:
    """An `Application` wired to `api`, without an Updater (feed it with `process_update`).

    Each keyword calls the builder method of that name, e.g.
    `make_application(api, concurrent_updates=True, context_types=ctx_types)`.
    """
    builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any] = (
        Application.builder()
        .token(token)
        .request(FakeRequest(api))
        .get_updates_request(FakeRequest(api))
        .updater(None)
    )
    for name, value in builder_options.items():
        builder = getattr(builder, name)(value)
    return builder.build()
