"""Updates lost to a kill -9, in webhook and polling mode (`python -m tests.bench kill9`).

A slow Bot API (each sendMessage answered after 0.5 s) keeps handlers busy while /help
updates from distinct users arrive; the bot is killed with SIGKILL mid-stream and started
again on the same file (both modes). Lost = updates Telegram considers delivered (webhook:
answered 200; polling: confirmed by a later getUpdates offset) whose user never got a reply,
even after the restart.
"""

from __future__ import annotations

import signal
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests import factories
from tests.botprocess import BotProcess
from tests.fakes import FakeBotApi, FakeBotApiServer, post_webhook
from tests.ops_support import free_port

REPS = 3
DELAY_S = 0.5
USERS = 400
SENDERS = 20
SECRET = "bench-secret"


def replied(api: FakeBotApi, first: int, n: int) -> set[int]:
    return {c for c in range(first, first + n) if api.count("sendMessage", chat_id=c)}


def webhook_once(tmp: Path, first: int) -> tuple[int, int]:
    api = FakeBotApi()
    api.set_delay("sendMessage", DELAY_S)
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    env = {"QUIZBOT_WEBHOOK_SECRET": SECRET, "QUIZBOT_WEBHOOK_PORT": str(port)}
    acked: set[int] = set()
    with FakeBotApiServer(api) as server:
        bot = BotProcess(server, tmp, "--webhook", url, env=env, db=tmp / f"w{first}.sqlite3")
        bot.env["QUIZBOT_LOG_LEVEL"] = "WARNING"
        bot.start()
        server.wait_for(lambda a: a.webhook_url == url)
        users = [factories.user(first + i, "U") for i in range(USERS)]

        def send(u: dict[str, object]) -> None:
            chat = factories.private_chat(u)
            if post_webhook(url, factories.command("/help", u, chat), SECRET) == 200:
                acked.add(int(u["id"]))  # type: ignore[call-overload]

        with ThreadPoolExecutor(SENDERS) as pool:
            futures = [pool.submit(send, u) for u in users]
            time.sleep(3.0)
            bot.stop(signal.SIGKILL)
            for f in futures:
                f.exception()
        # Started again on the same file: what was stored and not handled is handled now.
        again = BotProcess(server, tmp, "--webhook", url, env=env, db=bot.db)
        again.env["QUIZBOT_LOG_LEVEL"] = "WARNING"
        again.start()
        deadline = time.monotonic() + 60
        while acked - replied(api, first, USERS) and time.monotonic() < deadline:
            time.sleep(0.2)
        again.stop()
        got = replied(api, first, USERS)
    return len(acked), len(acked - got)


def polling_once(tmp: Path, first: int) -> tuple[int, int]:
    api = FakeBotApi()
    api.set_delay("sendMessage", DELAY_S)
    for i in range(USERS):
        u = factories.user(first + i, "U")
        api.push_update(factories.command("/help", u, factories.private_chat(u)))
    db = tmp / f"p{first}.sqlite3"
    with FakeBotApiServer(api) as server:
        bot = BotProcess(server, tmp, db=db)
        bot.env["QUIZBOT_LOG_LEVEL"] = "WARNING"
        bot.start()
        time.sleep(4.0)
        bot.stop(signal.SIGKILL)
        again = BotProcess(server, tmp, db=db)
        again.env["QUIZBOT_LOG_LEVEL"] = "WARNING"
        again.start()
        deadline = time.monotonic() + 60
        while api.pending_updates and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2 * DELAY_S + 1)
        again.stop()
        got = replied(api, first, USERS)
    return USERS - api.pending_updates, USERS - len(got)


def main() -> None:
    """Print acknowledged and lost updates per kill -9, per mode."""
    with tempfile.TemporaryDirectory() as tmp:
        for mode, once in (("webhook", webhook_once), ("polling", polling_once)):
            for rep in range(REPS):
                acked, lost = once(Path(tmp), 10_000 * (rep + 1))
                print(f"   {mode}: kill -9 with {acked} updates acknowledged: {lost} lost")


if __name__ == "__main__":
    main()
