"""A database that cannot be used stops `run`, `migrate` and `play` at once with one line.

Each variant is a real file (or folder) and a real process: random bytes, a corrupt header, a
directory, a file on a read-only filesystem, a folder that cannot exist. No hang (a database
thread left alive would keep the process up and hide the failure from systemd), no traceback.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes import TOKEN

REPO = Path(__file__).resolve().parent.parent
EXIT_WITHIN_S = 30.0  # no hang (it was 45 s and more); ~0.6 s each here, 10 s seen at load 13


def random_bytes(tmp: Path) -> Path:
    path = tmp / "random.sqlite3"
    path.write_bytes(os.urandom(8192))
    return path


def corrupt_header(tmp: Path) -> Path:
    path = tmp / "header.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    data = bytearray(path.read_bytes())
    data[:16] = b"not the header!!"
    path.write_bytes(bytes(data))
    return path


def directory(tmp: Path) -> Path:
    path = tmp / "folder.sqlite3"
    path.mkdir()
    return path


def impossible_folder(tmp: Path) -> Path:
    return Path("/proc/quizbot-no-such-folder/quizbot.sqlite3")


VARIANTS = {
    "random bytes": (random_bytes, "not a SQLite database"),
    "corrupt header": (corrupt_header, "not a SQLite database"),
    "a directory": (directory, "is a directory"),
    "a folder that cannot be created": (impossible_folder, "No such file or directory"),
}


def start(
    command: str, db: Path, cwd: Path, wrap: list[str] | None = None
) -> subprocess.Popen[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))},
        "PYTHONPATH": str(REPO),
        "BOT_TOKEN": TOKEN,
        "BOT_API_URL": "http://127.0.0.1:9",  # never reached: the database is checked first
        "QUIZBOT_DB": str(db),
    }
    return subprocess.Popen(
        [*(wrap or []), sys.executable, "-m", "bot", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str], started: float) -> tuple[int, str, float]:
    try:
        _, err = proc.communicate(timeout=EXIT_WITHIN_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"{proc.args} still running after {EXIT_WITHIN_S} s") from None
    return proc.returncode, err, time.monotonic() - started


def assert_one_line(code: int, err: str, db: Path, cause: str) -> None:
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert str(db) in lines[0] and cause in lines[0], lines[0]


def read_only_filesystem(tmp_path: Path) -> tuple[list[str], Path]:
    """A wrapper that runs the command with tmp_path/ro mounted read-only (a user and mount
    namespace: no privilege needed), or, without unshare, a read-only file as a non-root user."""
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "bot.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    unshare = shutil.which("unshare")
    probe = (
        unshare
        and subprocess.run([unshare, "-rm", "true"], capture_output=True, check=False).returncode
        == 0
    )
    if probe:
        script = (
            f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}"'
            ' && exec "$@"'
        )
        return [str(unshare), "-rm", "sh", "-c", script, "sh"], db
    assert os.geteuid() != 0, "needs unshare (user namespaces) or a non-root user"
    db.chmod(0o444)
    folder.chmod(0o555)
    return [], db


@pytest.mark.slow
def test_unusable_database_exits_at_once_with_one_line(tmp_path: Path) -> None:
    # Every process side by side: the whole test costs about one process start-up of wall time.
    wrap, ro_db = read_only_filesystem(tmp_path)
    cases: list[tuple[str, Path, str, list[str]]] = [("run", ro_db, "read-only", wrap)]
    before: dict[Path, bytes] = {}
    # One process per variant (5 in all): `run` for three, `migrate` and `play` one each;
    # the three commands share the same check (storage.db.prepare / Database.open).
    commands = {
        "random bytes": "run",
        "corrupt header": "migrate",
        "a directory": "run",
        "a folder that cannot be created": "play",
    }
    for name, (make, cause) in VARIANTS.items():
        db = make(tmp_path)
        if db.is_file():
            before[db] = db.read_bytes()
        cases.append((commands[name], db, cause, []))
    started = time.monotonic()
    procs = [(cmd, db, cause, start(cmd, db, tmp_path, w)) for cmd, db, cause, w in cases]
    for _, db, cause, proc in procs:
        code, err, _ = finish(proc, started)
        assert_one_line(code, err, db, cause)
    for db, data in before.items():
        assert db.read_bytes() == data  # a file we cannot use is left as it was
