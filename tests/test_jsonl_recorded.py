"""A recorded `play --jsonl --seed` conversation replays byte for byte: what a rig that drives
the engine sees does not change unless the queue does. When a change to the queue is meant,
record it again (`QUIZBOT_RECORD=1 python -m pytest -n 0 tests/test_jsonl_recorded.py`) and say
why in the commit."""

from __future__ import annotations

import io
import json
import os
import random
from collections.abc import Generator
from pathlib import Path
from typing import Any

from bot.commands.jsonl_io import play_jsonl
from tests.backend import database
from tests.test_play_jsonl import START, demo_catalog

RECORDED = Path(__file__).parent / "fixtures" / "jsonl" / "conversation.jsonl"
Reply = dict[str, Any]


def client() -> Generator[dict[str, Any], Reply | None, None]:
    """Three learners over six days: an exam date each, eight questions a day answered by a
    seeded hand, stats and readiness every other day. Each request may use the last reply."""
    rng = random.Random(1)
    for user in (1, 2, 3):
        yield {"cmd": "exam_date", "user": user, "date": "2027-02-01"}
    for day in range(6):
        for user in (1, 2, 3):
            for _ in range(8):
                question = yield {"cmd": "next", "user": user}
                if question is None or question["type"] != "question":
                    continue
                chosen = sorted(rng.sample(range(len(question["options"])), question["select"]))
                yield {"cmd": "answer", "user": user, "delivery": question["delivery"],
                       "chosen": chosen, "seconds": rng.randint(5, 60)}  # fmt: skip
            if day % 2:
                yield {"cmd": "stats", "user": user}
                yield {"cmd": "readiness", "user": user}
        yield {"cmd": "advance", "seconds": 86400}


class Conversation(io.StringIO):
    """stdin for the program: the next request, made from the reply the program last wrote."""

    def __init__(self, out: io.StringIO) -> None:
        super().__init__()
        self.out = out
        self.talk = client()
        self.started = False
        self.log: list[str] = []

    def readline(self, size: int | None = -1) -> str:
        written = self.out.getvalue().splitlines()
        last = json.loads(written[-1]) if written else None
        try:
            request = next(self.talk) if not self.started else self.talk.send(last)
        except StopIteration:
            return ""
        self.started = True
        line = json.dumps(request, sort_keys=True)
        self.log.append(line)
        return line + "\n"


async def test_a_recorded_conversation_replays_byte_for_byte(tmp_path: Path) -> None:
    out = io.StringIO()
    stdin = Conversation(out)
    code = await play_jsonl(
        demo_catalog(), database(tmp_path / "rec.sqlite3"), "demo", 7, START, stdin, out
    )
    assert code == 0
    replies = out.getvalue().splitlines()
    assert len(replies) == len(stdin.log) > 100
    transcript = "".join(f"{q}\n{r}\n" for q, r in zip(stdin.log, replies, strict=True))
    if os.environ.get("QUIZBOT_RECORD") == "1":
        RECORDED.parent.mkdir(parents=True, exist_ok=True)
        RECORDED.write_text(transcript, encoding="utf-8")
    assert transcript == RECORDED.read_text(encoding="utf-8")
