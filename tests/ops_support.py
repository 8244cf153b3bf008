"""Helpers for the operations tests: a bank on disk, a free port, the bot as a subprocess."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from bot.bank.models import Bank
from tests.fakes import TOKEN, FakeBotApi

REPO = Path(__file__).resolve().parent.parent


def write_bank(root: Path, bank: Bank) -> Path:
    """Write a bank as YAML files under root/<bank id>; returns root (a QUIZBOT_QUESTIONS path)."""
    folder = root / bank.id
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.yaml"):
        old.unlink()
    meta = bank.meta.model_dump(mode="json", exclude_none=True)
    (folder / "bank.yaml").write_text(yaml.safe_dump(meta), encoding="utf-8")
    for question in bank.questions.values():
        data = question.model_dump(mode="json", exclude_none=True)
        (folder / f"{question.id}.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return root


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def refused_port() -> Iterator[int]:
    """A TCP port where every connection is refused for as long as the block runs: bound and
    never listening, so that no other test's server can take it meanwhile (a port that is
    merely free now can be, by a test on another xdist worker)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class BotRun:
    """`python -m bot run ...` with output in a file; `close()` always ends it."""

    def __init__(
        self,
        tmp_path: Path,
        args: list[str],
        env: dict[str, str],
        *,
        sigint_ignored: bool = False,
    ) -> None:
        """`sigint_ignored`: started as a shell starts a background job, SIGINT ignored."""
        base = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))}
        self.log_path = tmp_path / "bot.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "run", *args],
            # Not the repository: a developer's .env there must not leak into the test.
            cwd=tmp_path,
            # PYTHONPATH: the checkout under test, whatever an editable install points at.
            env={
                **base,
                "BOT_TOKEN": TOKEN,
                "PYTHONPATH": str(REPO),
                "PYTHONUNBUFFERED": "1",
                **env,
            },
            stdout=self._log,
            stderr=subprocess.STDOUT,
            preexec_fn=_ignore_sigint if sigint_ignored else None,
        )

    def output(self) -> str:
        """Everything the bot printed (stdout and stderr)."""
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        """Raise with the bot's output if it exited; True otherwise (for wait_for predicates)."""
        if self.proc.poll() is not None:
            raise AssertionError(f"bot exited with {self.proc.returncode}:\n{self.output()}")
        return True

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 8.0) -> tuple[int, float]:
        """Send sig and wait; (exit code, seconds it took)."""
        started = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"bot still running {timeout:g} s after signal {sig}:\n{self.output()}"
            ) from None
        return code, time.monotonic() - started

    def close(self) -> None:
        """Kill if still running; close the log file."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


def wait_until(predicate: Any, timeout: float = 8.0) -> Any:
    """Poll a predicate of no arguments until truthy."""
    deadline = time.monotonic() + timeout
    while not (result := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)
    return result


def webhook_set(api: FakeBotApi, run: BotRun) -> bool:
    """wait_for predicate: the bot called setWebhook (and is still running)."""
    return run.alive() and bool(api.webhook_url)
