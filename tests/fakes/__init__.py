"""Test doubles for Telegram: no test ever reaches the real Bot API.

- `FakeBotApi` (botapi.py): in-memory Bot API with fault injection and call recording.
- `FakeBotApiServer` (server.py): the same over HTTP on 127.0.0.1, for end-to-end tests.
- `FakeRequest`, `make_application`, `TOKEN` (request.py): in-process PTB transport.
- `decode_params` (params.py): PTB's form fields back into Python values.
Payload builders for incoming updates live in `tests/factories.py`.
"""

from tests.fakes.botapi import BOT_ID, BOT_USERNAME, ApiError, Call, FakeBotApi
from tests.fakes.params import decode_params
from tests.fakes.request import TOKEN, FakeRequest, make_application
from tests.fakes.server import FakeBotApiServer, post_webhook, wait_for, wait_for_async

__all__ = [
    "BOT_ID",
    "BOT_USERNAME",
    "TOKEN",
    "ApiError",
    "Call",
    "FakeBotApi",
    "FakeBotApiServer",
    "FakeRequest",
    "decode_params",
    "make_application",
    "post_webhook",
    "wait_for",
    "wait_for_async",
]
