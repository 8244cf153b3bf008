"""`quizbot play --jsonl`: every request and error form, in process; the program as a process
for determinism, stdout purity and the exit code."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.commands.jsonl import JsonlSession
from bot.commands.jsonl_io import play_jsonl
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.fitting import MemoryFits
from bot.practice.readiness_service import ReadinessService
from bot.practice.service import PracticeService
from bot.storage.factory import open_database
from tests import factories, sample_bank
from tests.backend import database, database_env

START = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)
Req = dict[str, Any] | str


def demo_catalog() -> Catalog:
    return Catalog(
        {
            "demo": sample_bank.bank(),
            "other": sample_bank.bank([sample_bank.question("o1", "gamma")], bank_id="other"),
        }
    )


async def talk(
    tmp_path: Path,
    requests: list[Req],
    *,
    catalog: Catalog | None = None,
    bank: str | None = None,
    seed: int | None = 1,
    clock: dt.datetime | None = START,
) -> list[dict[str, Any]]:
    """Run the program in process on these lines; the replies, one per line."""
    lines = [r if isinstance(r, str) else json.dumps(r) for r in requests]
    out = io.StringIO()
    code = await play_jsonl(
        catalog or demo_catalog(),
        database(tmp_path / "j.sqlite3"),
        bank,
        seed,
        clock,
        io.StringIO("".join(line + "\n" for line in lines)),
        out,
    )
    assert code == 0
    replies = out.getvalue().splitlines()
    assert len(replies) == len(lines)  # exactly one reply per request
    return [json.loads(r) for r in replies]


@contextlib.asynccontextmanager
async def session(tmp_path: Path, catalog: Catalog) -> AsyncIterator[JsonlSession]:
    """The protocol in process, for conversations whose requests depend on the replies."""
    async with open_database(database(tmp_path / "s.sqlite3")) as db:
        clock = FakeClock(START)
        service = PracticeService(db, catalog, clock=clock, rng=random.Random(5))
        readiness = ReadinessService(db, catalog, clock=clock)
        yield JsonlSession(service, readiness, catalog.bank(None), clock)


async def practise(s: JsonlSession, answers: int, *, right: bool, user: int = 1) -> None:
    """Answer `answers` questions, all right or all wrong."""
    for _ in range(answers):
        q = await s.handle(json.dumps({"cmd": "next", "user": user}))
        key = await s.service.delivery(q["delivery"])
        assert key is not None
        order = list(range(len(q["options"])))
        correct = [p for p in order if key.question.options[p].correct]
        chosen = correct if right else [p for p in order if p not in correct][: q["select"]]
        verdict = await s.handle(
            json.dumps(
                {"cmd": "answer", "user": user, "delivery": q["delivery"], "chosen": chosen}
            )
        )
        assert verdict["correct"] is right


async def test_readiness_needs_evidence_then_predicts_a_score(tmp_path: Path) -> None:
    async with session(tmp_path, demo_catalog()) as s:
        before = await s.handle('{"cmd": "readiness", "user": 5}')
        assert before["type"] == "readiness" and before["user"] == 5
        assert before["enough_data"] is False
        assert before["score"] is None and before["pass_probability"] is None
        assert before["passing_score"] == 70
        assert before["answers_missing"] == 40
        assert set(before["topics"]) == {"alpha", "beta"}
        await practise(s, 45, right=True, user=5)
        after = await s.handle('{"cmd": "readiness", "user": 5}')
        assert after["enough_data"] is True and after["answers"] == 45
        assert 0 <= after["low"] <= after["score"] <= after["high"] <= 100
        assert after["score"] > 70 and after["pass_probability"] > 0.5
        assert after["topics"]["alpha"]["met"] == 1.0
        await practise(s, 45, right=False, user=6)
        # Just after an answer memory is fresh (recall 1 by the model): let a few days pass.
        await s.handle('{"cmd": "advance", "seconds": 259200}')
        weak = await s.handle('{"cmd": "readiness", "user": 6}')
        # Every answer wrong, but each followed by the explanation: FSRS credits some memory of
        # it (wrong answers minutes apart are no evidence of how fast this learner forgets).
        assert weak["score"] < after["score"] - 25 and weak["pass_probability"] < 0.5


async def test_next_then_answer_wrong_then_again_then_stats(tmp_path: Path) -> None:
    q = sample_bank.question("only", correct=(2,))
    catalog = Catalog({"demo": sample_bank.bank([q])})
    asked, wrong, again, stats = await talk(
        tmp_path,
        [
            {"cmd": "next", "user": 7},
            {"cmd": "answer", "user": 7, "delivery": 1, "chosen": [0], "seconds": 14.5},
            {"cmd": "answer", "user": 7, "delivery": 1, "chosen": [2], "confidence": "sure"},
            {"cmd": "stats", "user": 7},
        ],
        catalog=catalog,
    )
    assert asked == {
        "type": "question",
        "user": 7,
        "delivery": 1,
        "question_id": "only",
        "topic": "alpha",
        "stem": "Stem of only: which is right & why?",
        "kind": "single",
        "select": 1,
        "options": [f"Option {c} of only" for c in "ABCD"],
    }
    assert wrong == {
        "type": "verdict",
        "user": 7,
        "delivery": 1,
        "correct": False,
        "correct_options": [2],
        "chosen": [0],
    }
    # The second answer is not counted: the first one is reported back.
    assert again == {**wrong, "already": True}
    assert stats["type"] == "stats" and stats["user"] == 7
    assert (stats["answered"], stats["correct"], stats["streak_days"]) == (1, 0, 1)
    assert stats["topics"] == {"alpha": {"answered": 1, "correct": 0}}
    assert stats["queue_mode"] == "standard"  # no evidence on the bank's forgetting yet
    assert factories.rows(
        tmp_path / "j.sqlite3", "SELECT user_id, chosen, correct FROM answers"
    ) == [(7, "0", 0)]


async def test_shuffled_options_are_answered_by_position_and_stored_by_file_index(
    tmp_path: Path,
) -> None:
    q = sample_bank.question("mixed", correct=(0, 3), n_options=6, shuffle=True)
    catalog = Catalog({"demo": sample_bank.bank([q])})
    async with session(tmp_path, catalog) as s:
        asked = await s.handle('{"cmd": "next"}')
        shown = [text.split()[1] for text in asked["options"]]  # "Option C of mixed" -> C
        assert sorted(shown) == list("ABCDEF") and shown != list("ABCDEF")
        keys = sorted([shown.index("A"), shown.index("D")])
        wrong = [p for p in range(6) if p not in keys][:2]
        request = {"cmd": "answer", "delivery": 1, "chosen": wrong, "seconds": 9.25}
        verdict = await s.handle(json.dumps({**request, "confidence": "sure"}))
        assert verdict["correct_options"] == keys
        assert verdict["chosen"] == sorted(wrong) and verdict["correct"] is False
    row = factories.one(
        tmp_path / "s.sqlite3", "SELECT chosen, time_to_answer_ms, confidence FROM answers"
    )
    (stored,) = factories.one(tmp_path / "s.sqlite3", "SELECT option_order FROM deliveries")
    order = [int(i) for i in stored.split(",")]  # file index at each shown position
    assert row == (",".join(str(i) for i in sorted(order[p] for p in wrong)), 9250, "sure")


async def test_exam_date_is_stored_per_learner_and_bank(tmp_path: Path) -> None:
    replies = await talk(
        tmp_path,
        [
            {"cmd": "exam_date", "user": 4, "date": "2027-02-01"},
            {"cmd": "exam_date", "user": 5, "date": "2027-03-01"},
            {"cmd": "exam_date", "user": 5, "date": None},
            {"cmd": "exam_date", "user": 6, "date": "2027-01-03"},
            {"cmd": "exam_date", "user": 6},
        ],
        bank="other",
    )
    assert replies[:3] == [{"type": "ok", "user": u} for u in (4, 5, 5)]
    assert replies[3]["message"] == "the exam date 2027-01-03 is before today (2027-01-04)"
    assert replies[4]["message"].startswith('"date" is required')
    rows = factories.rows(
        tmp_path / "j.sqlite3", "SELECT user_id, bank_id, exam_date FROM exam_dates"
    )
    assert rows == [(4, "other", "2027-02-01")]


async def test_due_reviews_come_back_once_the_clock_moves(tmp_path: Path) -> None:
    # Six questions, two met on day one: without time passing the queue brings new ones;
    # a month later the two met ones are due again and come back first.
    qs = [sample_bank.question(f"q{i}", correct=(1,)) for i in range(6)]
    async with session(tmp_path, Catalog({"demo": sample_bank.bank(qs)})) as s:
        assert (await s.handle('{"cmd": "exam_date", "date": "2027-06-30"}'))["type"] == "ok"
        met = []
        for delivery in (1, 2):
            met.append((await s.handle('{"cmd": "next"}'))["question_id"])
            answer = {"cmd": "answer", "delivery": delivery, "chosen": [1]}
            assert (await s.handle(json.dumps(answer)))["correct"] is True
        same_day = (await s.handle('{"cmd": "next"}'))["question_id"]
        assert same_day not in met
        await s.handle(json.dumps({"cmd": "advance", "seconds": 60 * 86400}))
        later = {(await s.handle('{"cmd": "next"}'))["question_id"] for _ in range(2)}
    assert later == set(met)


async def test_select_two_wants_two_positions_and_grades_them(tmp_path: Path) -> None:
    q = sample_bank.question("pair", correct=(0, 2))
    catalog = Catalog({"demo": sample_bank.bank([q])})
    asked, one, right = await talk(
        tmp_path,
        [
            {"cmd": "next"},
            {"cmd": "answer", "delivery": 1, "chosen": [0]},
            {"cmd": "answer", "delivery": 1, "chosen": [2, 0]},
        ],
        catalog=catalog,
    )
    assert (asked["kind"], asked["select"], asked["user"]) == ("multiple", 2, 1)
    assert one == {"type": "error", "user": 1, "message": "this question asks for 2 options"}
    assert right["correct"] is True
    assert right["chosen"] == right["correct_options"] == [0, 2]


async def test_every_error_form_gets_an_error_reply_and_the_program_goes_on(
    tmp_path: Path,
) -> None:
    lines: list[Req] = [
        "this is not json",
        "",
        "[1, 2]",
        {"user": 1},
        {"cmd": "dance"},
        {"cmd": "next", "user": "7"},
        {"cmd": "next", "user": True},
        {"cmd": "next", "user": -1},
        {"cmd": "next", "user": 1},
        {"cmd": "answer", "delivery": 99, "chosen": [0]},
        {"cmd": "answer", "user": 2, "delivery": 1, "chosen": [0]},
        {"cmd": "answer", "delivery": "1", "chosen": [0]},
        {"cmd": "answer", "delivery": 1, "chosen": 0},
        {"cmd": "answer", "delivery": 1, "chosen": []},
        {"cmd": "answer", "delivery": 1, "chosen": [True]},
        {"cmd": "answer", "delivery": 1, "chosen": [9]},
        {"cmd": "answer", "delivery": 1, "chosen": [0, 0]},
        {"cmd": "answer", "delivery": 1, "chosen": [0], "seconds": "fast"},
        {"cmd": "answer", "delivery": 1, "chosen": [0], "seconds": -2},
        {"cmd": "answer", "delivery": 1, "chosen": [0], "confidence": "maybe"},
        {"cmd": "advance", "seconds": -5},
        {"cmd": "advance", "seconds": 1e300},
        {"cmd": "topic", "topic": "nope"},
        {"cmd": "topic"},
        {"cmd": "topic", "topic": 3},
        {"cmd": "exam_date", "date": "next week"},
        {"cmd": "exam_date", "date": 20270201},
        {"cmd": "advance"},
        {"cmd": "stats"},
    ]
    replies = await talk(tmp_path, lines)
    errors = [r for r in replies if r["type"] == "error"]
    assert len(errors) == len(lines) - 2  # all but the valid next and the final stats
    messages = [r.get("message", "") for r in replies]
    assert messages[0].startswith("not JSON")
    assert messages[1].startswith("not JSON")
    assert messages[2] == "a request is one JSON object"
    assert messages[3].startswith('"cmd" is required')
    assert messages[4].startswith("unknown cmd 'dance'")
    assert all(m.startswith('"user" must be an integer') for m in messages[5:8])
    assert "user" not in replies[5]  # no valid user to echo
    assert replies[8]["type"] == "question"
    assert messages[9] == "user 1 has no delivery 99"
    assert messages[10] == "user 2 has no delivery 1"
    assert replies[10]["user"] == 2
    assert messages[11].startswith('"delivery" must be an integer')
    assert all(m.startswith('"chosen" must be a non-empty list') for m in messages[12:15])
    assert all(m.startswith('"chosen" must name distinct positions') for m in messages[15:17])
    assert messages[17] == '"seconds" must be a number'
    assert messages[18] == '"seconds" must not be negative'
    assert messages[19] == '"confidence" must be "sure" or "unsure"'
    assert messages[20] == '"seconds" must not be negative'
    assert messages[21] == '"seconds" must be at most 315360000 (ten years)'
    assert messages[22].startswith("bank demo has no topic 'nope'; topics: alpha, beta")
    assert messages[23].startswith('"topic" is required')
    assert messages[24] == '"topic" must be a topic id or null'
    assert all(m == '"date" must be YYYY-MM-DD or null' for m in messages[25:27])
    assert messages[27] == '"seconds" is required'
    # None of the refused answers counted.
    assert replies[-1]["answered"] == 0


async def test_advance_needs_the_simulated_clock(tmp_path: Path) -> None:
    (reply,) = await talk(tmp_path, [{"cmd": "advance", "seconds": 60}], clock=None)
    assert reply == {
        "type": "error",
        "user": 1,
        "message": "advance needs a simulated clock: start with --clock TIME",
    }


async def test_advance_moves_the_clock_the_service_uses(tmp_path: Path) -> None:
    replies = await talk(
        tmp_path,
        [
            {"cmd": "next"},
            {"cmd": "answer", "delivery": 1, "chosen": [1]},
            {"cmd": "advance", "seconds": 86400},
            {"cmd": "advance", "seconds": 0.25},
            {"cmd": "next"},
            {"cmd": "answer", "delivery": 2, "chosen": [0]},
            {"cmd": "stats"},
        ],
    )
    # Past 03:30 UTC: the nightly memory fit ran (too few answers for one yet).
    assert replies[2] == {
        "type": "clock",
        "user": 1,
        "now": "2027-01-05T08:00:00Z",
        "fit": {"version": None, "learners_with_their_own": 0, "failed": False},
    }
    assert replies[3]["now"] == "2027-01-05T08:00:00.250Z"
    # Answers on two consecutive simulated days make a streak of two.
    assert replies[-1]["streak_days"] == 2
    times = [
        t
        for (t,) in factories.rows(
            tmp_path / "j.sqlite3", "SELECT answered_at FROM answers ORDER BY id"
        )
    ]
    assert times == [START.timestamp(), START.timestamp() + 86400.25]


async def test_users_are_separate_learners_and_topic_narrows_the_questions(
    tmp_path: Path,
) -> None:
    replies = await talk(
        tmp_path,
        [
            {"cmd": "topic", "user": 3, "topic": "beta"},
            *[{"cmd": "next", "user": 3} for _ in range(4)],
            {"cmd": "topic", "user": 3, "topic": None},
            {"cmd": "next", "user": 4},
            {"cmd": "stats", "user": 4},
        ],
    )
    assert replies[0] == {"type": "ok", "user": 3}
    assert {r["topic"] for r in replies[1:5]} == {"beta"}
    assert replies[5] == {"type": "ok", "user": 3}
    assert replies[6]["user"] == 4 and replies[6]["delivery"] == 5
    assert replies[7]["answered"] == 0


async def test_bank_option_and_an_empty_or_withdrawn_question(tmp_path: Path) -> None:
    catalog = demo_catalog()
    replies = await talk(
        tmp_path,
        [{"cmd": "next"}, {"cmd": "stats"}],
        catalog=catalog,
        bank="other",
    )
    assert replies[0]["question_id"] == "o1"
    assert replies[1]["bank"] == "other"
    # The next run serves a reloaded bank without that question.
    catalog.replace({"other": sample_bank.bank([], bank_id="other", topics=("gamma",))})
    gone, none = await talk(
        tmp_path,
        [{"cmd": "answer", "delivery": 1, "chosen": [1]}, {"cmd": "next"}],
        catalog=catalog,
        bank="other",
    )
    assert gone["message"] == "delivery 1: its question was withdrawn from the bank"
    assert none == {"type": "none", "user": 1}


def _env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "QUIZBOT_DB": database_env(tmp_path / "p.sqlite3")}
    env.pop("QUIZBOT_QUESTIONS", None)  # the bundled bank
    return env


def _converse(tmp_path: Path, *args: str) -> tuple[list[str], str]:
    """Drive the program as a client would, reply by reply; its stdout lines and stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "play", "--jsonl", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: list[str] = []

    def send(request: str) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(request + "\n")
        proc.stdin.flush()  # the reply must come before EOF: the program flushes each line
        lines.append(proc.stdout.readline())
        reply: dict[str, Any] = json.loads(lines[-1])
        return reply

    for user in (1, 2):
        question = send(json.dumps({"cmd": "next", "user": user}))
        send("garbage")
        chosen = list(range(question["select"]))
        send(
            json.dumps(
                {"cmd": "answer", "user": user, "delivery": question["delivery"], "chosen": chosen}
            )
        )
        send(json.dumps({"cmd": "advance", "seconds": 3600}))
    send(json.dumps({"cmd": "stats", "user": 2}))
    rest, err = proc.communicate(timeout=60)  # EOF: the program ends with exit 0
    assert (proc.returncode, rest) == (0, ""), err
    return lines, err


def test_program_is_deterministic_with_a_seed_and_prints_only_json(tmp_path: Path) -> None:
    args = ("--seed", "42", "--clock", "2027-01-04T08:00:00Z")
    runs = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        runs.append(_converse(tmp_path / run, *args)[0])
    assert runs[0] == runs[1]
    assert all(line.endswith("\n") and line.count("\n") == 1 for line in runs[0])
    replies = [json.loads(line) for line in runs[0]]
    assert [r["type"] for r in replies] == [
        *["question", "error", "verdict", "clock"] * 2,
        "stats",
    ]
    assert replies[-2]["now"] == "2027-01-04T10:00:00Z"
    assert replies[-1]["answered"] == 1


def test_program_arguments_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_DB", database_env(tmp_path / "q.sqlite3"))
    assert main(["play", "--seed", "3"]) == 2
    assert "--seed and --clock go with --jsonl" in capsys.readouterr().err
    assert main(["play", "--jsonl", "--topic", "evaluation"]) == 2
    assert "in --jsonl send requests" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["play", "--jsonl", "--clock", "2027-01-04T08:00:00"])
    assert exited.value.code == 2
    assert "has no zone" in capsys.readouterr().err


async def test_a_simulated_night_runs_the_memory_fit_and_answers_follow_it(tmp_path: Path) -> None:
    catalog = demo_catalog()
    async with open_database(database(tmp_path / "fit.sqlite3")) as db:
        clock = FakeClock(START)
        service = PracticeService(db, catalog, clock=clock, rng=random.Random(5))
        readiness = ReadinessService(db, catalog, clock=clock)
        fits = MemoryFits(db, clock)
        s = JsonlSession(service, readiness, catalog.bank(None), clock, fits)
        fitted: list[dict[str, Any]] = []
        for day in range(8):
            for user in range(1, 11):
                await practise(s, 5, right=(day + user) % 3 != 0, user=user)
            # Past 03:30 UTC the next morning: the nightly fit.
            tick = await s.handle('{"cmd": "advance", "seconds": 86400}')
            assert "fit" in tick, tick
            fitted.append(tick["fit"])
        # Too few spaced reviews the first night, a pooled fit once there are enough.
        assert fitted[0] == {"version": None, "learners_with_their_own": 0, "failed": False}
        assert fitted[-1]["version"] is not None and fitted[-1]["failed"] is False
        # A clock that does not pass the hour fits nothing; the command fits at once.
        assert "fit" not in await s.handle('{"cmd": "advance", "seconds": 3600}')
        now = await s.handle('{"cmd": "fit"}')
        assert now["type"] == "fit" and now["version"] == fitted[-1]["version"] + 1
        # Memory is restated under the fitted weights, and new answers are scheduled on them.
        weights = await fits.params_for(1, "demo")
        assert weights is not None
        await practise(s, 1, right=True, user=1)
        states = await s.service.learning.memory(1, "demo")
        assert {st.decay for st in states.values()} == {weights.weights[20]}
