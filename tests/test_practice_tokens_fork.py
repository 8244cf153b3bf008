"""Delivery tokens after a fork: the child draws from the OS, not from the parent's buffer."""

from __future__ import annotations

import os

from bot.practice.picking import new_token


def test_a_forked_child_does_not_repeat_the_parents_next_tokens() -> None:
    new_token()  # the parent now holds unused random bytes
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its tokens and leave at once
        os.close(read)
        os.write(write, ",".join(new_token() for _ in range(20)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        child = pipe.read().split(",")
    os.waitpid(pid, 0)
    parent = [new_token() for _ in range(20)]
    assert len(child) == 20
    assert child != parent
