"""Webhook limits against a real `quizbot run --webhook`: the secret is checked before the body
is read, sizes are capped, half-open connections are capped and timed out, a replayed
update_id is handled once, hostile JSON gets 400 (never a traceback), a full backlog answers
503 so Telegram retries instead of the bot acknowledging what a kill -9 would lose."""

from __future__ import annotations

import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bot.telegram.webhook_guard import MAX_BACKLOG, MAX_BODY_BYTES, MAX_CONNECTIONS
from tests import factories
from tests.fakes import FakeBotApi, FakeBotApiServer, post_webhook
from tests.ops_support import webhook_set
from tests.test_ops_webhook import SECRET, get_json, post_raw, start_bot

pytestmark = pytest.mark.slow


def first_reply(host: str, port: int, head: bytes, timeout: float = 5.0) -> bytes:
    """Send only `head` (headers, no body) and read what comes back."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(head)
        return sock.recv(200)


def test_webhook_limits_hold(tmp_path: Path) -> None:
    api = FakeBotApi()
    with FakeBotApiServer(api) as server:
        run, url = start_bot(tmp_path, server)
        try:
            server.wait_for(lambda a: webhook_set(a, run))
            parts = urlsplit(url)
            host, port = parts.hostname or "", parts.port or 0
            big = 4 * 1024 * 1024
            # No secret, a 4 MB body announced: refused on the headers, before the body.
            head = (
                f"POST {parts.path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Content-Length: {big}\r\n\r\n"
            ).encode()
            assert first_reply(host, port, head).startswith(b"HTTP/1.1 403")
            # With the secret, more than an update can be: 413 without reading it.
            secret_head = head.replace(
                b"\r\n\r\n", f"\r\nX-Telegram-Bot-Api-Secret-Token: {SECRET}\r\n\r\n".encode()
            )
            assert first_reply(host, port, secret_head).startswith(b"HTTP/1.1 413")
            assert big > MAX_BODY_BYTES

            # Hostile JSON: 400, no traceback.
            ann = factories.user(701, "Ann")
            chat = factories.private_chat(ann)
            dated = factories.command("/start", ann, chat)
            dated["message"]["date"] = 1e30
            assert post_raw(url, json.dumps(dated).encode(), SECRET) == 400
            deep = b"[" * 100_000 + b"]" * 100_000
            assert len(deep) < MAX_BODY_BYTES
            assert post_raw(url, deep, SECRET) == 400

            # The same update posted 5 times: one question.
            quiz = factories.command("/quiz", ann, chat)
            assert [post_webhook(url, quiz, SECRET) for _ in range(5)] == [200] * 5
            server.wait_for(lambda a: a.count("sendMessage", chat_id=701) >= 1)
            time.sleep(0.3)
            assert api.count("sendMessage", chat_id=701) == 1

            # Half-open connections past the cap are closed at once, not left to pile up.
            socks = []
            try:
                for _ in range(MAX_CONNECTIONS + 20):
                    sock = socket.create_connection((host, port), timeout=5)
                    sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\n")  # half a header, forever
                    socks.append(sock)
                time.sleep(0.5)
                closed = 0
                for sock in socks[-20:]:
                    sock.settimeout(2)
                    try:
                        closed += sock.recv(10) == b""
                    except ConnectionResetError:
                        closed += 1
                    except TimeoutError:
                        pass  # still open: the cap did not hold
                assert closed == 20
            finally:
                for sock in socks:
                    sock.close()
            time.sleep(0.3)
            status, report = get_json(url.replace(parts.path, "/healthz"))
            assert status == 503 and report["saturated"] is True, report
            assert report["connections"]["refused"] >= 20

            # A slow Telegram: handlers pile up; past the backlog, posts get 503 (retried by
            # Telegram), so what is acknowledged and unhandled stays bounded.
            api.set_delay("sendMessage", 1.5)
            users = [factories.user(800 + i, "U") for i in range(MAX_BACKLOG + 80)]
            updates = [factories.command("/help", u, factories.private_chat(u)) for u in users]
            with ThreadPoolExecutor(16) as pool:
                codes = list(pool.map(lambda u: post_webhook(url, u, SECRET), updates))
            assert codes.count(503) > 0 and set(codes) <= {200, 503}
            assert codes.count(200) <= MAX_BACKLOG + 16  # the bound, plus posts racing the check
        finally:
            run.close()
    output = run.output()
    assert "Traceback" not in output
    assert "Too many open files" not in output
