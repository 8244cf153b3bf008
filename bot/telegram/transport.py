"""`FastRequest`: PTB's `BaseRequest` on aiohttp, the bot's default HTTP transport.

Why: over HTTP most of the bot's CPU went to PTB's default stack (httpx → httpcore → anyio),
much of it httpcore's pool checking every pooled connection on every request. aiohttp (the
client aiogram uses) keeps a per-host list of idle connections and sends with fewer layers.

It behaves as `HTTPXRequest` does where PTB relies on it: `do_request` returns (status, body)
for any HTTP answer, so `BaseRequest` itself raises RetryAfter, BadRequest, Forbidden ...;
timeouts raise `TimedOut`, other transport failures `NetworkError`. The same defaults for the
connect, read, write and pool timeouts and the connection limit. Differences: aiohttp has no
write timeout of its own, so the write timeout bounds the whole request (connect + pool + write
+ read); a `proxy=` URL is http natively, socks with the optional `aiohttp-socks` package;
from the environment, HTTP_PROXY/HTTPS_PROXY and NO_PROXY are honoured, ALL_PROXY is not.
`QUIZBOT_HTTP=httpx` puts PTB's own `HTTPXRequest` back.
"""

from __future__ import annotations

import urllib.request
from typing import Any

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, HTTPXRequest, RequestData

_FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _given(value: object, default: float | None) -> float | None:
    """A per-call timeout, or the request's default when PTB passed its DEFAULT_NONE marker."""
    if value is None or isinstance(value, int | float):
        return value
    return default


def _sum(*parts: float | None) -> float | None:
    """The sum of the phases' timeouts; None (no bound) when any phase is unbounded."""
    return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)


class FastRequest(BaseRequest):
    """A `BaseRequest` on an aiohttp session, with `HTTPXRequest`'s parameters and defaults."""

    __slots__ = (
        "_connect",
        "_http_proxy",
        "_limit",
        "_media_write",
        "_pool",
        "_proxy",
        "_read",
        "_session",
        "_trust_env",
        "_write",
    )

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        proxy: str | None = None,
        media_write_timeout: float | None = 20.0,
    ) -> None:
        self._limit = connection_pool_size
        self._read = read_timeout
        self._write = write_timeout
        self._connect = connect_timeout
        self._pool = pool_timeout
        self._media_write = media_write_timeout
        self._proxy = proxy
        # aiohttp takes an http(s) proxy per request; a socks proxy lives in the connector.
        self._http_proxy = None if proxy is None or proxy.startswith("socks") else proxy
        # httpx reads the proxy variables; aiohttp does so only with trust_env, and then on
        # every request: pay for it only where such a variable is set.
        self._trust_env = proxy is None and bool(urllib.request.getproxies())
        self._session: aiohttp.ClientSession | None = None
        if proxy is not None and proxy.startswith("socks"):
            self._connector()  # a missing aiohttp-socks fails here, not on the first request

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout; PTB adds it to getUpdates' long-poll timeout."""
        return self._read

    def _connector(self) -> aiohttp.BaseConnector:
        if self._proxy is not None and self._proxy.startswith("socks"):
            try:
                from aiohttp_socks import ProxyConnector
            except ImportError as err:
                raise RuntimeError("socks proxies need the aiohttp-socks package") from err
            connector: aiohttp.BaseConnector = ProxyConnector.from_url(
                self._proxy, limit=self._limit
            )
            return connector
        return aiohttp.TCPConnector(limit=self._limit)

    async def initialize(self) -> None:
        """Open the session (in the running loop, which aiohttp's session belongs to)."""
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=self._connector(),
                headers={"User-Agent": self.USER_AGENT},
                trust_env=self._trust_env,
            )

    async def shutdown(self) -> None:
        """Close the session and its connections; closing twice is harmless."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """One HTTP request: (status, body) for any answer; TimedOut or NetworkError if none."""
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This FastRequest is not initialized!")
        files = request_data.multipart_data if request_data else None
        data: aiohttp.FormData | bytes | None = None
        headers: dict[str, str] | None = None
        if files and request_data:
            form = aiohttp.FormData()
            for name, value in request_data.json_parameters.items():
                form.add_field(name, value)
            for name, (filename, content, mime) in files.items():
                form.add_field(name, content, filename=filename, content_type=mime)
            data = form
        elif request_data:
            data = request_data.url_encoded_parameters().encode()
            headers = _FORM
        read = _given(read_timeout, self._read)
        write = _given(write_timeout, self._media_write if files else self._write)
        connect = _given(connect_timeout, self._connect)
        pool = _given(pool_timeout, self._pool)
        timeout = aiohttp.ClientTimeout(
            total=_sum(connect, pool, write, read),
            connect=_sum(pool, connect),  # aiohttp's `connect` includes waiting for the pool
            sock_connect=connect,
            sock_read=read,
        )
        try:
            async with session.request(
                method, url, data=data, headers=headers, timeout=timeout, proxy=self._http_proxy
            ) as response:
                return response.status, await response.read()
        except TimeoutError as err:  # aiohttp's timeouts (connect, socket read, total) too
            raise TimedOut from err
        except aiohttp.ClientError as err:
            raise NetworkError(f"aiohttp.{type(err).__name__}: {err}") from err


def make_request(kind: str, **kwargs: Any) -> BaseRequest:
    """The configured transport (`QUIZBOT_HTTP`): "fast" (this module) or "httpx" (PTB's own)."""
    if kind == "httpx":
        return HTTPXRequest(**kwargs)
    return FastRequest(**kwargs)
