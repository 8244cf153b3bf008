"""The terminal commands as real processes: Ctrl-C stops them at once and quietly (exit 130),
`q` leaves without a traceback, a reader that goes away ends `stats` quietly (exit 141)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.backend import database_env
from tests.ops_support import BotRun, refused_port, wait_until

REPO = Path(__file__).resolve().parent.parent
EXITED_S = 15.0  # far beyond a clean exit; what it guards against is waiting forever


def quizbot(tmp_path: Path, *args: str, **popen: object) -> subprocess.Popen[bytes]:
    """`python -m bot ARGS` on this checkout, with its own database, from tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))}
    env |= {"PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
    env["QUIZBOT_DB"] = database_env(tmp_path / "t.sqlite3")
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "bot", *args], cwd=tmp_path, env=env, **popen
    )


@pytest.fixture
def play(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """`quizbot play` waiting at its first question; its output goes to a file."""
    out = tmp_path / "out.txt"
    with out.open("wb") as sink:
        proc = quizbot(
            tmp_path, "play", stdin=subprocess.PIPE, stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        wait_until(lambda: "Your answer" in out.read_text(errors="replace"), timeout=30)
        yield proc, out
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stdin is not None:
            proc.stdin.close()


def test_ctrl_c_stops_play_at_once_and_quietly(
    play: tuple[subprocess.Popen[bytes], Path],
) -> None:
    proc, out = play
    proc.send_signal(signal.SIGINT)
    assert proc.wait(EXITED_S) == 130
    assert "Traceback" not in out.read_text(errors="replace")


def test_q_leaves_play_without_a_traceback(play: tuple[subprocess.Popen[bytes], Path]) -> None:
    proc, out = play
    assert proc.stdin is not None
    proc.stdin.write(b"q\n")
    proc.stdin.close()
    assert proc.wait(EXITED_S) == 0
    text = out.read_text(errors="replace")
    assert "No questions answered this session" in text and "Traceback" not in text


def test_stats_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    # A database to report on, made by one question of `play`.
    done = quizbot(tmp_path, "play", "-n", "1", stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    done.communicate(b"A\n", timeout=60)
    # A pipe whose reader has already gone, like a `| head` that exited: every write fails.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = quizbot(tmp_path, "stats", "--user", "0", stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    _, err = proc.communicate(timeout=EXITED_S)
    assert proc.returncode == 141
    assert err.decode(errors="replace") == ""


@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["terminal", "background-job"])
def test_ctrl_c_while_the_bot_api_is_unreachable(tmp_path: Path, sigint_ignored: bool) -> None:
    # A shell starts a background job with SIGINT ignored; the running bot stops on it all
    # the same (PTB's handler), and so must its start-up checks.
    with refused_port() as port:
        env = {
            "BOT_API_URL": f"http://127.0.0.1:{port}",
            "QUIZBOT_DB": database_env(tmp_path / "b.db"),
        }
        run = BotRun(tmp_path, [], env, sigint_ignored=sigint_ignored)
        try:
            wait_until(lambda: "getMe failed (try 1)" in run.output(), timeout=30)
            code, _ = run.stop(signal.SIGINT, timeout=EXITED_S)
            output = run.output()
            assert code == 130, output
            assert "Traceback" not in output and len(output.splitlines()) < 10, output
        finally:
            run.close()
