"""FastRequest keeps PTB's behaviour on errors: each case also runs on PTB's HTTPXRequest.

A small HTTP server on 127.0.0.1 answers as each test needs (slow, reset, 429, 5xx, broken
JSON); uploads, a proxy and a whole bot run against the fake Bot API server.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path

import pytest
from telegram import Bot, InputFile
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError, TimedOut
from telegram.request import BaseRequest, HTTPXRequest

from bot.practice.catalog import Catalog
from bot.telegram.app import build_application
from bot.telegram.transport import FastRequest
from tests import factories, sample_bank
from tests.backend import database_env
from tests.botharness import make_settings
from tests.fakes import TOKEN, FakeBotApiServer
from tests.ops_support import BotRun, free_port, write_bank

Reply = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
KINDS: list[type[BaseRequest]] = [FastRequest, HTTPXRequest]


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """The head and body of one HTTP request."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return head, await reader.readexactly(length)


def answer(status: int, body: bytes) -> bytes:
    """An HTTP/1.1 response that closes its connection."""
    head = f"HTTP/1.1 {status} X\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    return head.encode() + body


@pytest.fixture
async def serve() -> AsyncIterator[Callable[[Reply], Awaitable[str]]]:
    """Start a server whose connections `reply` handles; its URL."""
    servers: list[asyncio.Server] = []

    async def start(reply: Reply) -> str:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await reply(reader, writer)
            finally:
                writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        servers.append(server)
        port = server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/bot{TOKEN}/getMe"

    yield start
    for server in servers:
        server.close()
        await server.wait_closed()


def fixed(status: int, body: bytes) -> Reply:
    async def reply(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(answer(status, body))
        await writer.drain()

    return reply


async def post(kind: type[BaseRequest], url: str, **timeouts: float) -> object:
    async with kind() as request:
        return await request.post(url, **timeouts)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", KINDS)
async def test_an_answer_slower_than_the_read_timeout_is_timed_out(
    kind: type[BaseRequest], serve: Callable[[Reply], Awaitable[str]]
) -> None:
    async def never(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await reader.read()  # until the client gives up

    url = await serve(never)
    started = asyncio.get_running_loop().time()
    with pytest.raises(TimedOut):
        await post(kind, url, read_timeout=0.3)
    assert asyncio.get_running_loop().time() - started < 3


@pytest.mark.parametrize("kind", KINDS)
async def test_a_reset_connection_is_a_network_error(
    kind: type[BaseRequest], serve: Callable[[Reply], Awaitable[str]]
) -> None:
    async def reset(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        sock = writer.get_extra_info("socket")
        # Linger 0: close() sends RST instead of FIN, as a crashed peer or a middlebox does.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    url = await serve(reset)
    with pytest.raises(NetworkError) as caught:
        await post(kind, url)
    assert not isinstance(caught.value, TimedOut | BadRequest)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_refused_connection_is_a_network_error(kind: type[BaseRequest]) -> None:
    with pytest.raises(NetworkError) as caught:
        await post(kind, f"http://127.0.0.1:{free_port()}/bot{TOKEN}/getMe")
    assert not isinstance(caught.value, TimedOut | BadRequest)


@pytest.mark.parametrize("kind", KINDS)
async def test_429_is_retry_after_with_the_server_s_value(
    kind: type[BaseRequest], serve: Callable[[Reply], Awaitable[str]]
) -> None:
    body = {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 7",
        "parameters": {"retry_after": 7},
    }
    url = await serve(fixed(429, json.dumps(body).encode()))
    with pytest.raises(RetryAfter) as caught:
        await post(kind, url)
    assert caught.value.retry_after in (7, timedelta(seconds=7))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status", [500, 502, 503])
async def test_5xx_is_a_network_error_with_the_description(
    kind: type[BaseRequest], status: int, serve: Callable[[Reply], Awaitable[str]]
) -> None:
    body = {"ok": False, "error_code": status, "description": "Internal Server Error: restart"}
    url = await serve(fixed(status, json.dumps(body).encode()))
    with pytest.raises(NetworkError, match="Internal Server Error: restart") as caught:
        await post(kind, url)
    assert not isinstance(caught.value, TimedOut | BadRequest)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status", [200, 500])
async def test_a_malformed_json_body_is_an_invalid_server_response(
    kind: type[BaseRequest], status: int, serve: Callable[[Reply], Awaitable[str]]
) -> None:
    url = await serve(fixed(status, b"<html>gateway</html>"))
    with pytest.raises(TelegramError) as caught:
        await post(kind, url)
    assert "Invalid server response" in str(caught.value) or (
        status == 500 and "Parsing the server response" in str(caught.value)
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("how", ["argument", "environment"])
async def test_a_proxy_setting_routes_every_request_through_the_proxy(
    kind: type[BaseRequest],
    how: str,
    serve: Callable[[Reply], Awaitable[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bytes] = []
    with FakeBotApiServer() as api_server:
        origin = api_server.url.removeprefix("http://")
        host, _, port = origin.partition(":")

        async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            # An HTTP forward proxy: the request line carries the absolute URL.
            head, body = await read_request(reader)
            seen.append(head.split(b"\r\n")[0])
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
            up_writer.write(head.replace(f"http://{origin}".encode(), b"", 1) + body)
            await up_writer.drain()
            writer.write(await up_reader.read())  # the fake closes after one answer
            await writer.drain()
            up_writer.close()

        proxy_url = (await serve(forward)).split("/bot")[0]
        for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.delenv(name, raising=False)
        if how == "environment":
            monkeypatch.setenv("HTTP_PROXY", proxy_url)
        request = kind() if how == "environment" else kind(proxy=proxy_url)  # type: ignore[call-arg]
        bot = Bot(TOKEN, base_url=api_server.base_url, request=request)
        async with bot:
            await bot.send_message(5, "via proxy")
        assert seen and all(line.startswith(b"POST http://") for line in seen), seen
        assert any(b"/sendMessage " in line for line in seen)
        assert api_server.api.last_text(5) == "via proxy"


async def test_files_are_uploaded_as_multipart(tmp_path: Path) -> None:
    content = b"%PDF-1.4 quizbot\x00\xff" * 100
    with FakeBotApiServer() as server:
        bot = Bot(TOKEN, base_url=server.base_url, request=FastRequest())
        async with bot:
            await bot.send_document(
                7, InputFile(content, filename="report.pdf"), caption="<b>yours</b>"
            )
        (message, data), *_ = server.api.documents_to(7)
    assert data == content
    assert message["document"]["file_name"] == "report.pdf"
    assert message["caption"] == "<b>yours</b>"


async def test_a_socks_proxy_needs_its_package_or_says_so() -> None:
    try:
        import aiohttp_socks  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match="aiohttp-socks"):
            FastRequest(proxy="socks5://127.0.0.1:1")
    else:
        with pytest.raises(NetworkError):
            await post_via(FastRequest(proxy=f"socks5://127.0.0.1:{free_port()}"))


async def post_via(request: FastRequest) -> None:
    async with request:
        await request.post(f"http://127.0.0.1:{free_port()}/bot{TOKEN}/getMe")


@pytest.mark.parametrize(("setting", "kind"), [("fast", FastRequest), ("httpx", HTTPXRequest)])
def test_quizbot_http_chooses_the_transport(
    tmp_path: Path, setting: str, kind: type[BaseRequest]
) -> None:
    assert make_settings(tmp_path).http == "fast"
    bank = sample_bank.bank()
    settings = make_settings(tmp_path, QUIZBOT_HTTP=setting)
    app = build_application(settings, Catalog({bank.id: bank}))
    assert type(app.bot.request) is kind


@pytest.mark.slow
def test_the_bot_answers_a_quiz_over_the_fast_transport(tmp_path: Path) -> None:
    root = write_bank(tmp_path / "banks", sample_bank.bank([sample_bank.question("q1")]))
    ann = factories.user(901, "Ann")
    with FakeBotApiServer() as server:
        run = BotRun(
            tmp_path,
            [],
            {
                "BOT_API_URL": server.url,
                "QUIZBOT_DB": database_env(tmp_path / "bot.sqlite3"),
                "QUIZBOT_QUESTIONS": str(root),
                "QUIZBOT_HTTP": "fast",
            },
        )
        try:
            server.api.push_update(factories.command("/quiz", ann, factories.private_chat(ann)))
            server.wait_for(lambda api: run.alive() and api.count("sendMessage", chat_id=901) == 1)
            assert "Stem of q1" in (server.api.last_text(901) or "")
            code, _ = run.stop()
            assert code == 0, run.output()
        finally:
            run.close()
    assert "aiohttp" not in run.output()  # no unclosed-session warning, no traceback
