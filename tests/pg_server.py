"""A throwaway PostgreSQL server for tests: initdb in a temp dir, started on 127.0.0.1.

Uses the server binaries of Debian's `postgresql` package (`.ci/run` installs it when
missing). PostgreSQL refuses to run as root, and CI runs as root: then the cluster belongs to
the unprivileged `nobody`, and initdb / pg_ctl run through `runuser`. The cluster trades
durability for speed (no fsync): it lives for one test session.

`python -m tests.pg_server` starts one and waits (for a look with psql); Ctrl-C stops it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

RUN_AS = "nobody"  # exists on every Debian; owns nothing else that the cluster could touch


def bin_dir() -> Path:
    """The newest installed PostgreSQL's server binaries (initdb, pg_ctl)."""
    if (found := shutil.which("pg_ctl")) is not None:
        return Path(found).parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name)
    )
    if not versions:
        raise RuntimeError(
            "no PostgreSQL server binaries (install Debian's `postgresql` package: .ci/run does)"
        )
    return versions[-1].parent


def free_port() -> int:
    """A TCP port nobody listens on right now (the server may still lose a race for it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PgServer:
    """One cluster: `start()`, then `url(dbname)`; `stop()` removes it again."""

    def __init__(self) -> None:
        self.bin = bin_dir()
        self.root = Path(tempfile.mkdtemp(prefix="quizbot-pg-"))
        self.data = self.root / "data"
        self.port = 0
        self._as_root = os.geteuid() == 0

    def _run(self, *args: str) -> None:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self._as_root:
            cmd = ["runuser", "-u", RUN_AS, "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=self.root, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")

    def start(self) -> PgServer:
        """initdb and start; returns once the server accepts connections."""
        if self._as_root:
            shutil.chown(self.root, RUN_AS)
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync",
            "--encoding=UTF8", "--locale=C",
        )  # fmt: skip
        options = (
            f"-c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            " -c max_connections=200"
        )
        for attempt in range(5):
            self.port = free_port()
            try:
                self._run(
                    "pg_ctl", "start", "-w", "-t", "30", "-D", str(self.data),
                    "-l", str(self.root / "server.log"), "-o", f"{options} -p {self.port}",
                )  # fmt: skip
                return self
            except RuntimeError as err:
                if attempt == 4:  # another process took each port first, or a real failure
                    log = self.root / "server.log"
                    raise RuntimeError(log.read_text() if log.exists() else str(err)) from err
        return self

    def url(self, dbname: str = "postgres") -> str:
        """A libpq URL of one database on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def stop(self) -> None:
        """Stop the server (fast: the data is thrown away) and remove its directory."""
        with contextlib.suppress(RuntimeError):
            if self.port:
                self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", "-w")
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def running() -> Iterator[PgServer]:
    """A started server, stopped on exit."""
    server = PgServer()
    try:
        yield server.start()
    finally:
        server.stop()


if __name__ == "__main__":
    started = time.perf_counter()
    with running() as pg:
        print(f"{pg.url()} (started in {time.perf_counter() - started:.2f} s); Ctrl-C stops it")
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
