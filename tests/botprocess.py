"""`quizbot run` as a real process, for end-to-end tests against a FakeBotApiServer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from types import TracebackType
from typing import Self

from tests.backend import database_env
from tests.fakes import TOKEN, FakeBotApiServer


class BotProcess:
    """Starts the bot with its own SQLite file and log file; always stopped on exit."""

    def __init__(
        self,
        server: FakeBotApiServer,
        tmp_path: Path,
        *args: str,
        env: dict[str, str] | None = None,
        db: Path | None = None,
    ) -> None:
        self.server = server
        self.db = db or tmp_path / "e2e.sqlite3"
        self.log_path = tmp_path / f"bot-{os.getpid()}-{id(self)}.log"
        self.args = args
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))},
            "BOT_TOKEN": TOKEN,
            "BOT_API_URL": server.url,
            "QUIZBOT_DB": database_env(self.db),
            "QUIZBOT_LOG_LEVEL": "DEBUG",
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(Path(__file__).resolve().parent.parent),  # this checkout's bot/
            **(env or {}),
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self._log = None

    def start(self) -> None:
        """Launch `python -m bot run ...` from the repository root (no .env read from there)."""
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "run", *self.args],
            env=self.env,
            cwd=self.log_path.parent,  # not the repo: a developer's .env must not leak in
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int:
        """Signal the bot and wait for it to exit; kill it if it does not."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
        return self.proc.returncode

    def output(self) -> str:
        """Everything the bot printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop(signal.SIGKILL if exc_type else signal.SIGTERM)
        if exc_type is not None:
            # pytest shows a failed test's captured stderr: the bot's own account of it.
            print(f"--- the bot's log, last lines ---\n{self.output()[-6000:]}", file=sys.stderr)
