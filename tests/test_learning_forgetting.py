"""The bank-wide forgetting check and the study queue's cover-first mode: the arithmetic, the
queue's picks in each mode, the bank's tally in SQLite, and the bot keeping its standard order
when its bank's learners are seen to forget fast."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import json
import random
from pathlib import Path

import pytest

from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import DECISIVE_Z, ProbeTally, QueueMode, queue_mode
from bot.learning.memory import Answer, MemoryState, review
from bot.learning.queue import Learner, Pick, Reason, Today, choose_next
from bot.learning.queue_modes import probe_to_ask
from bot.learning.simulate.generated_bank import generate_bank
from bot.learning.simulate.runner import SimConfig, run_learners
from bot.practice import memory_updates
from bot.storage import forgetting_sql
from bot.storage import learning_sql as lsql
from bot.storage.port import Connection
from tests import factories
from tests.probes import seed_fast_forgetting
from tests.sample_bank import bank
from tests.test_play_jsonl import demo_catalog, session

T0 = dt.datetime(2027, 1, 4, 8, 0, tzinfo=dt.UTC)
EARLIER = T0 - dt.timedelta(days=10)  # the jsonl session's clock starts at T0
MINUTE = dt.timedelta(minutes=1)
SECOND = dt.timedelta(seconds=1)


def probed(recall: float, right: bool) -> MemoryState:
    """A state whose first spaced review FSRS predicted at `recall` and that went `right`."""
    first = review(None, Answer("q", T0, False))
    second = review(first, Answer("q", T0 + dt.timedelta(days=2), right))
    return dataclasses.replace(second, probe_recall=recall, probe_right=right)


def test_tally_sums_only_states_with_a_probe_and_z_is_the_binomial_one() -> None:
    rng = random.Random(2)
    states = [probed(rng.uniform(0.3, 0.95), rng.random() < 0.5) for _ in range(300)]
    states += [review(None, Answer("q", T0, True)) for _ in range(50)]  # no probe
    tally = ProbeTally.of(states)
    assert tally.reviews == 300
    chance = 0.25
    # Brute force over the reviews: right minus the guess-corrected prediction, over the root
    # of the summed Bernoulli variances.
    p = [chance + (1 - chance) * s.probe_recall for s in states if s.probe_recall is not None]
    right = [s.probe_right for s in states if s.probe_recall is not None]
    excess = sum(r - x for r, x in zip(right, p, strict=True))
    variance = sum(x * (1 - x) for x in p)
    assert tally.excess(chance) == pytest.approx(excess / 300)
    assert tally.z(chance) == pytest.approx(excess / variance**0.5)
    halves = ProbeTally.of(states[:120]) + ProbeTally.of(states[120:])
    assert halves.reviews == tally.reviews and halves.right == tally.right
    assert halves.recall == pytest.approx(tally.recall)
    assert ProbeTally().z(chance) == 0.0 and ProbeTally().excess(chance) == 0.0


def test_mode_needs_decisive_evidence_either_way() -> None:
    def tally(n: int, right: int, recall: float = 0.8) -> ProbeTally:
        return ProbeTally(n, n * recall, n * recall * recall, right)

    chance = 0.25  # expected right share at recall 0.8: 0.85
    assert queue_mode(tally(400, 380), chance) is QueueMode.COVER  # 95% right
    # 65% right: memories fade faster, which changes nothing (FSRS's reviews come sooner).
    assert queue_mode(tally(400, 260), chance) is QueueMode.STANDARD
    assert queue_mode(tally(400, 342), chance) is QueueMode.STANDARD  # as predicted
    assert queue_mode(tally(10, 8), chance) is QueueMode.STANDARD  # too few to tell
    assert queue_mode(ProbeTally(), chance) is QueueMode.STANDARD
    # Thousands of probes make a one-point difference "significant"; too small to act on.
    big = tally(40_000, 34_400)  # 86% right against 85% predicted
    assert big.z(chance) > DECISIVE_Z and queue_mode(big, chance) is QueueMode.STANDARD
    # The threshold itself, on a tally whose z is known.
    t = tally(400, 360)
    expected = queue_mode(t, chance)
    assert (t.z(chance) >= DECISIVE_Z) == (expected is QueueMode.COVER)


def _today(at: dt.datetime) -> Today:
    start = at.replace(hour=0, minute=0)
    return Today(date=start.date(), start=start)


def test_cover_meets_the_most_valuable_question_first_then_the_most_at_risk() -> None:
    plan = Blueprint.of(bank())  # beta: 2 questions for half the exam; alpha: 3 for the other
    picks = set()
    for seed in range(20):
        pick = choose_next(
            plan, Learner({}, _today(T0)), T0, random.Random(seed), mode=QueueMode.COVER
        )
        assert pick is not None and pick.reason is Reason.NEW
        picks.add(pick.question_id)
    assert picks == {"b1", "b2"}
    # Nothing is reviewed while a question is unmet, however forgotten the met ones are.
    now = T0 + dt.timedelta(days=30)
    memory = {q: review(None, Answer(q, T0, False)) for q in ("a1", "a2", "b1", "b2")}
    pick = choose_next(
        plan, Learner(memory, _today(now)), now, random.Random(1), mode=QueueMode.COVER
    )
    assert pick is not None and (pick.question_id, pick.reason) == ("a3", Reason.NEW)
    # All met: the largest exam share at risk (value x forgetting): a beta question, forgotten.
    memory["a3"] = review(None, Answer("a3", now - MINUTE, True))
    memory["b2"] = review(None, Answer("b2", now - MINUTE, True))
    pick = choose_next(
        plan, Learner(memory, _today(now)), now, random.Random(1), mode=QueueMode.COVER
    )
    assert pick is not None and (pick.question_id, pick.reason) == ("b1", Reason.PRACTICE)


def test_answers_that_record_a_probe_keep_the_banks_tally_and_the_backfill_agrees(
    tmp_path: Path,
) -> None:
    conn = factories.migrated(tmp_path / "f.sqlite3")
    rng = random.Random(8)
    for user in range(40):
        for q in ("a1", "a2", "b1"):
            first = rng.random() < 0.6  # right first: never a probe
            later = [
                T0 + dt.timedelta(hours=h) for h in (0, rng.choice([0.1, 30, 60, 200]), 400, 410)
            ]
            before = None
            for i, at in enumerate(later):
                correct = first if i == 0 else rng.random() < 0.6
                before = memory_updates.take_answer(
                    conn, user, "b", Answer(q, at, correct), before
                )
    stored = [
        lsql.state_of(tuple(row))
        for row in conn.execute(f"SELECT {', '.join(lsql.MEMORY_COLUMNS)} FROM memory_states")
    ]
    kept = forgetting_sql.probe_tally(conn, "b")
    summed = ProbeTally.of(stored)
    assert 10 < kept.reviews == summed.reviews < 120
    assert (kept.right, kept.recall) == (summed.right, pytest.approx(summed.recall))
    assert forgetting_sql.probe_tally(conn, "other") == ProbeTally()
    # The migration's backfill, from the answers alone, finds the same (no answers are stored
    # here, so it only rebuilds the tally from the states).
    forgetting_sql.backfill(conn)
    rebuilt = forgetting_sql.probe_tally(conn, "b")
    assert (rebuilt.reviews, rebuilt.right) == (kept.reviews, kept.right)
    assert rebuilt.recall == pytest.approx(kept.recall)
    conn.close()


async def _sitting(tmp_path: Path, seed_probes: bool) -> tuple[list[str], str]:
    """Question ids a learner is asked in one sitting, answering the first one wrong and every
    later one right, and the study order `stats` reports; with `seed_probes`, the bank's other
    learners forgot fast before."""
    catalog = demo_catalog()
    async with session(tmp_path, catalog) as s:
        if seed_probes:

            def seed(conn: Connection) -> None:
                seed_fast_forgetting(conn, "demo", "a1", EARLIER)

            await s.service.db.write(seed)
        asked: list[str] = []
        for i in range(5):
            q = await s.handle(json.dumps({"cmd": "next", "user": 1}))
            key = await s.service.delivery(q["delivery"])
            assert key is not None
            positions = range(len(q["options"]))
            correct = [p for p in positions if key.question.options[p].correct]
            chosen = (
                [p for p in positions if p not in correct][: q["select"]] if i == 0 else correct
            )
            answer = {"cmd": "answer", "user": 1, "delivery": q["delivery"], "chosen": chosen}
            verdict = await s.handle(json.dumps(answer))
            assert verdict["correct"] is (i > 0)
            asked.append(q["question_id"])
            await s.handle('{"cmd": "advance", "seconds": 60}')
        stats = await s.handle('{"cmd": "stats", "user": 1}')
        return asked, stats["queue_mode"]


async def test_a_bank_seen_to_forget_fast_keeps_the_standard_order(tmp_path: Path) -> None:
    for seeded in (True, False):
        asked, mode = await _sitting(tmp_path / str(seeded), seed_probes=seeded)
        assert mode == "standard"
        # A question just missed is not asked again within minutes: its review comes when
        # FSRS, bent by the learner's measured forgetting, says it is due.
        assert asked[0] not in asked[1:]


def test_cover_first_brings_back_one_miss_in_eight_as_a_probe_so_the_check_keeps_learning() -> (
    None
):
    plan = Blueprint.of(generate_bank(n_questions=100, n_topics=3, seed=2))
    cfg = SimConfig(learners=20, days=6, per_day=20, policy="engine", truth="power-law", seed=5)
    mornings: list[tuple[int, QueueMode]] = []
    run_learners(plan, cfg, on_day=lambda _d, tally, mode: mornings.append((tally.reviews, mode)))
    covering = [n for n, mode in mornings if mode is QueueMode.COVER]
    # Every morning of covering first brings new probes (without them the evidence stands
    # still until the bank is met, and a wrong decision could never be revised).
    assert len(covering) >= 3 and all(b > a for a, b in itertools.pairwise(covering))
    # Which misses: about one in eight, drawn from the question and the time of the miss.
    at = T0 + dt.timedelta(days=1)
    misses = {f"q{i}": review(None, Answer(f"q{i}", T0 + i * SECOND, False)) for i in range(800)}
    chosen = set()
    pool = list(misses)
    while (q := probe_to_ask(misses, pool, at, 8)) is not None:
        chosen.add(q)
        pool.remove(q)
    assert 70 <= len(chosen) <= 130
    # Only within the probe window after the miss, and only a miss not seen since.
    assert probe_to_ask(misses, list(chosen), T0 + dt.timedelta(hours=19), 8) is None
    assert probe_to_ask(misses, list(chosen), T0 + dt.timedelta(days=5), 8) is None
    # Not in the window's last day either: an answer hours later would miss it.
    assert probe_to_ask(misses, list(chosen), T0 + dt.timedelta(days=3, hours=1), 8) is None
    assert probe_to_ask(misses, list(chosen), T0 + dt.timedelta(days=2, hours=23), 8) is not None
    q = min(chosen)
    seen = {q: review(misses[q], Answer(q, T0 + dt.timedelta(hours=2), True))}
    assert probe_to_ask(seen, [q], at, 8) is None
    # In the queue: before any new question while covering first.
    small = Blueprint.of(bank())
    held = next(
        state
        for i in range(1000)
        if probe_to_ask(
            {"a1": (state := review(None, Answer("a1", T0 + i * MINUTE, False)))},
            ["a1"],
            T0 + i * MINUTE + dt.timedelta(days=1),
            8,
        )
        == "a1"
    )
    now = held.last_review + dt.timedelta(days=1)
    pick = choose_next(
        small, Learner({"a1": held}, _today(now)), now, random.Random(1), mode=QueueMode.COVER
    )
    assert pick == Pick("a1", Reason.REVIEW)


def _modes(plan: Blueprint, truth: str) -> list[QueueMode]:
    """The mode the side-by-side learners were handed each morning."""
    cfg = SimConfig(learners=20, days=8, per_day=20, policy="engine", truth=truth, seed=5)
    days: list[QueueMode] = []
    run_learners(plan, cfg, on_day=lambda _day, _tally, mode: days.append(mode))
    return days


def test_side_by_side_learners_share_the_check_and_it_tells_the_worlds_apart() -> None:
    plan = Blueprint.of(generate_bank(n_questions=100, n_topics=3, seed=2))
    lasting, fading = _modes(plan, "power-law"), _modes(plan, "half-life")
    # No evidence on the first mornings (no second answer a day later yet), then each world's.
    assert lasting[:2] == fading[:2] == [QueueMode.STANDARD] * 2
    # Never the wrong side. (On a small bank the power-law evidence is marginal: once covering
    # first starts its late reviews it may fall back under the threshold, to the standard order.)
    assert set(lasting) == {QueueMode.STANDARD, QueueMode.COVER}
    assert set(fading) == {QueueMode.STANDARD}


def test_cover_interleaves_topics_and_keeps_the_last_days_for_review() -> None:
    plan = Blueprint.of(bank())
    # Beta's questions carry more of the exam each, but the last question was beta's.
    last = review(None, Answer("b1", T0 - MINUTE, False))
    learner = Learner({"b1": last}, _today(T0), last_question_id="b1")
    pick = choose_next(plan, learner, T0, random.Random(2), mode=QueueMode.COVER)
    assert pick is not None and plan.topic_of(pick.question_id) == "alpha"
    # Two days before the exam, a forgotten question is reviewed rather than a new one met.
    now = T0 + dt.timedelta(days=20)
    memory = {"a1": review(None, Answer("a1", T0, False))}
    exam = Learner(memory, _today(now), exam_date=(now + dt.timedelta(days=2)).date())
    pick = choose_next(plan, exam, now, random.Random(2), mode=QueueMode.COVER)
    assert pick is not None and (pick.question_id, pick.reason) == ("a1", Reason.REVIEW)
    far = dataclasses.replace(exam, exam_date=(now + dt.timedelta(days=30)).date())
    pick = choose_next(plan, far, now, random.Random(2), mode=QueueMode.COVER)
    assert pick is not None and pick.reason is Reason.NEW
