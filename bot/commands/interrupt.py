"""Ctrl-C in the terminal commands: it stops them at once while they wait for input.

`asyncio.run` answers the first SIGINT by cancelling its task at the task's next await; a
command blocked reading stdin reaches no await until a line comes, so Ctrl-C seemed ignored,
and the cancellation then landed inside the database's close and left its threads running.
While a command waits for input, SIGINT raises KeyboardInterrupt there instead, and the
database closes on the way out like after `q` (bot/cli.py then exits quietly with 130).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt inside the block (signals belong to the main thread:
    elsewhere the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def read_line(stdin: TextIO) -> str:
    """One line typed ('' at end of input), Ctrl-C stopping the wait at once."""
    with interruptible():
        return stdin.readline()
