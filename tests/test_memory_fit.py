"""The memory model fitted to the answers: the fit recovers weights from histories generated
with them; the weights are stored per bank and per learner, read by learners with none of
their own, kept across a restart and a /reset; a failing or slow fit keeps the last good."""

from __future__ import annotations

import json
import logging
import os
import random
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from bot.commands.fit import line
from bot.learning.fit import DAY_SECONDS, Fitted, Graded, fit, items
from bot.learning.memory import DEFAULT_WEIGHTS, check_weights, settle_weights
from bot.practice.clock import FakeClock
from bot.practice.fitting import MemoryFits, describe
from bot.storage import abuse_sql
from bot.storage.factory import open_database
from bot.storage.fit_sql import BANK_SCOPE, bank_params, params_for, weights_of
from bot.storage.learning_sql import memory_states
from bot.storage.memory_backfill import backfill_memory
from tests import factories
from tests.backend import database
from tests.fsrs_model import AGAIN, DEFAULT_MODEL, GOOD, Model

NOW = 1_800_000_000.0
BANK = "learn"
ANN, BOB, CAT = 501, 502, 503


def generated(model: Model, cards: int, rng: random.Random, user: str = "") -> list[Graded]:
    """Answers of a learner whose memory is `model`: each card first met (right with
    p = 0.6), then reviewed at random gaps, right with the model's recall."""
    answers: list[Graded] = []
    for card in range(cards):
        qid, t = f"{user}q{card}", 0.0
        correct = rng.random() < 0.6
        s, d = model.first(GOOD if correct else AGAIN)
        answers.append(Graded(qid, t, correct))
        for _ in range(5):
            days = rng.choice((1, 2, 3, 5, 8, 13, 21))
            t += days * DAY_SECONDS
            correct = rng.random() < model.recall(days, s)
            s, d = model.next(s, d, days, GOOD if correct else AGAIN)
            answers.append(Graded(qid, t, correct))
    return answers


# Far from FSRS's defaults (0.212, 2.3065, 0.1542) in the three weights that answers graded
# only Again and Good identify best: the first stability after a miss, after a right answer,
# and the curve's decay.
TRUE = list(DEFAULT_MODEL.w)
TRUE[0], TRUE[2], TRUE[20] = 0.6, 1.2, 0.35


def test_the_fit_recovers_the_weights_the_answers_were_generated_with() -> None:
    history = generated(Model(tuple(TRUE)), 3000, random.Random(1))
    found = fit([history], min_reviews=100)
    assert found is not None and found.reviews == 3000 * 5
    w = found.weights
    # Tolerance: within 25% on the two first stabilities, 0.1 on the decay; each at least
    # halfway from the default toward the truth.
    assert abs(w[0] - 0.6) <= 0.25 * 0.6, w[0]
    assert abs(w[2] - 1.2) <= 0.25 * 1.2, w[2]
    assert abs(w[20] - 0.35) <= 0.1, w[20]
    for i in (0, 2, 20):
        assert abs(w[i] - TRUE[i]) < abs(DEFAULT_MODEL.w[i] - TRUE[i]) / 2, (i, w[i])


def test_a_fit_needs_enough_spaced_reviews() -> None:
    history = generated(DEFAULT_MODEL, 10, random.Random(2))
    assert len(items(history)) == 50
    assert fit([history], min_reviews=51) is None


@pytest.mark.parametrize("weights", [DEFAULT_MODEL.w, tuple(TRUE)], ids=["default", "fitted"])
def test_the_model_is_the_fsrs_packages_scheduler(weights: tuple[float, ...]) -> None:
    from bot.learning.memory import _scheduled, rating_for

    rng = random.Random(4)
    model = Model(weights)
    for _ in range(500):
        s, d = rng.uniform(0.05, 80), rng.uniform(1, 10)
        days, right = rng.choice((0, 1, 3, 20)), rng.random() < 0.6
        ours = model.next(s, d, days, GOOD if right else AGAIN)
        theirs = _scheduled(weights, s, d, days, rating_for(right))
        assert ours == pytest.approx(theirs[:2], rel=1e-9)


def _answers(path: Path, user: int, count: int) -> None:
    with factories.blocking(path) as conn:
        for i in range(count):
            did = conn.execute(
                "INSERT INTO deliveries (chat_id, user_id, bank_id, question_id, sent_at)"
                " VALUES (?, ?, ?, ?, ?) RETURNING id",
                (user, user, BANK, f"q{i % 7}", NOW + i * DAY_SECONDS),
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO answers (delivery_id, user_id, chat_id, bank_id, question_id,"
                " topic, chosen, correct, answered_at) VALUES (?, ?, ?, ?, ?, 't', '0', ?, ?)",
                (did, user, user, BANK, f"q{i % 7}", i % 3 != 0, NOW + i * DAY_SECONDS),
            )


async def answered(tmp_path: Path, counts: dict[int, int]) -> Path:
    """A database with `counts[user]` answers a day apart from each learner in the bank."""
    path = tmp_path / "fit.sqlite3"
    async with open_database(database(path)):
        pass
    for user, count in counts.items():
        _answers(path, user, count)
    return path


def fake_fitter(histories: Sequence[list[Graded]], min_reviews: int) -> Fitted | None:
    """A fit that gives weights naming how many learners it saw (pooled: more than one) and
    the process it ran in."""
    answered = sum(len(h) for h in histories)
    if answered < min_reviews:
        return None
    weights = list(DEFAULT_MODEL.w)
    weights[0], weights[1] = 0.1 * len(histories), (os.getpid() + 1000) / 1e6
    return Fitted(tuple(weights), answered)


def broken(histories: Sequence[list[Graded]], min_reviews: int) -> Fitted | None:
    raise RuntimeError("optimizer diverged")


def slow(histories: Sequence[list[Graded]], min_reviews: int) -> Fitted | None:
    time.sleep(30)
    return Fitted(tuple(DEFAULT_MODEL.w), 1)


async def test_learners_read_their_own_then_the_banks_then_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "fit.sqlite3"
    async with open_database(database(path)) as db:
        fits = MemoryFits(db, FakeClock(NOW), fitter=fake_fitter)
        assert await fits.params_for(ANN, BANK) is None
        assert describe(None) == "Memory model: FSRS-6 defaults (no fit yet)"
    _answers(path, ANN, 450)  # enough for their own fit
    _answers(path, BOB, 30)  # not enough: the bank's
    async with open_database(database(path)) as db:
        fits = MemoryFits(db, FakeClock(NOW), fitter=fake_fitter)
        outcome = await fits.fit_bank(BANK)
        assert (outcome.pooled_version, outcome.learners, outcome.failed) == (1, 1, False)
        assert line(outcome) == "learn: pooled weights version 1; 1 learner with their own"
        ann, bob, cat = [await fits.params_for(u, BANK) for u in (ANN, BOB, CAT)]
        assert ann is not None and not ann.pooled and ann.weights[0] == pytest.approx(0.1)
        assert bob is not None and bob.pooled and bob.weights[0] == pytest.approx(0.2)
        assert cat == bob  # no history at all: the bank's
        assert (bob.version, bob.reviews) == (1, 480)
        # The fit ran in another process: the optimizer holds the GIL while it runs, so in
        # this one it would hold up every answer for as long.
        assert round(bob.weights[1] * 1e6) - 1000 != os.getpid()
        assert describe(bob) == (
            "Memory model: fitted to the bank's learners pooled, version 1, 480 reviews"
        )
        assert await fits.params_for(ANN, "other") is None  # another bank: the defaults
        await fits.fit_bank(BANK)
        again = await fits.params_for(BOB, BANK)
        assert again is not None and again.version == 2


def steep_fitter(histories: Sequence[list[Graded]], min_reviews: int) -> Fitted | None:
    """Weights on a steeper curve than FSRS-6's default (decay 0.3 pooled, 0.4 one's own)."""
    answered = sum(len(h) for h in histories)
    if answered < min_reviews:
        return None
    weights = list(DEFAULT_MODEL.w)
    weights[20] = 0.3 if len(histories) > 1 else 0.4
    return Fitted(tuple(weights), answered)


async def test_a_fit_restates_each_learners_memory_under_their_weights(tmp_path: Path) -> None:
    path = await answered(tmp_path, {ANN: 450, BOB: 30})
    async with open_database(database(path)) as db:
        await db.write(backfill_memory)  # states as the answers left them, on the defaults
        before = await db.read(lambda c: memory_states(c, BOB, BANK))
        assert {s.decay for s in before.values()} == {DEFAULT_MODEL.w[20]}
        await MemoryFits(db, FakeClock(NOW), fitter=broken).fit_bank(BANK)
        assert await db.read(lambda c: memory_states(c, BOB, BANK)) == before
        await MemoryFits(db, FakeClock(NOW), fitter=steep_fitter).fit_bank(BANK)
        ann = await db.read(lambda c: memory_states(c, ANN, BANK))
        bob = await db.read(lambda c: memory_states(c, BOB, BANK))
    # Each on the curve of the weights they are on: their own, else the bank's.
    assert {s.decay for s in ann.values()} == {0.4}
    assert {s.decay for s in bob.values()} == {0.3}
    assert bob.keys() == before.keys()
    assert all(bob[q].reps == before[q].reps for q in bob)


async def test_weights_survive_a_restart_and_a_reset(tmp_path: Path) -> None:
    path = await answered(tmp_path, {ANN: 450})
    async with open_database(database(path)) as db:
        await MemoryFits(db, FakeClock(NOW), fitter=fake_fitter).fit_bank(BANK)
    async with open_database(database(path)) as db:  # a restart
        before = await db.read(lambda c: bank_params(c, BANK))
        assert [p.user_id for p in before] == [BANK_SCOPE, ANN]
        gone = await db.write(lambda c: abuse_sql.reset_history(c, ANN, BANK))
        assert gone == 450
        assert await db.read(lambda c: bank_params(c, BANK)) == before
        own = await db.read(lambda c: params_for(c, ANN, BANK))
        assert own is not None and own.user_id == ANN


async def test_a_failing_or_slow_fit_keeps_the_last_good_weights_and_logs_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = await answered(tmp_path, {ANN: 450})

    async with open_database(database(path)) as db:
        clock = FakeClock(NOW)
        await MemoryFits(db, clock, fitter=fake_fitter).fit_bank(BANK)
        good = await db.read(lambda c: bank_params(c, BANK))
        for fitter, reason, limit in (
            (broken, "failed: RuntimeError", 60.0),
            (slow, "timed out", 3.0),
        ):
            caplog.clear()
            with caplog.at_level(logging.WARNING, logger="bot.practice.fitting"):
                outcome = await MemoryFits(db, clock, fitter=fitter, timeout_s=limit).fit_bank(
                    BANK
                )
            assert outcome.failed and outcome.pooled_version is None
            assert line(outcome) == "learn: fit failed; the last good weights stay in use"
            assert len(caplog.records) == 1, caplog.records
            assert reason in caplog.records[0].getMessage()
            assert "keeping the last good weights" in caplog.records[0].getMessage()
            assert await db.read(lambda c: bank_params(c, BANK)) == good


async def test_admins_stats_name_the_weights_and_the_bot_schedules_the_fit(
    tmp_path: Path,
) -> None:
    from bot.storage.fit_sql import save_params
    from bot.telegram.fit_job import FIT_JOB, fit_all
    from tests.botharness import running_bot

    boss, ann = factories.user(900, "Boss"), factories.user(701, "Ann")
    async with running_bot(tmp_path, admins=frozenset({900})) as h:
        assert h.app.job_queue is not None
        assert len(h.app.job_queue.get_jobs_by_name(FIT_JOB)) == 1

        async def stats_of(user: factories.JSON) -> str:
            await h.feed(factories.command("/stats", user, factories.private_chat(user)))
            last = h.api.last_message(int(user["id"])) or {}
            return str(last.get("text") or last.get("caption") or "")

        assert "Memory model: FSRS-6 defaults (no fit yet)" in await stats_of(boss)
        assert "Memory model" not in await stats_of(ann)
        bank_id = next(iter(h.services.catalog.banks))
        weights = tuple(DEFAULT_MODEL.w)
        await h.services.db.write(lambda c: save_params(c, bank_id, 0, weights, 321, NOW))
        shown = await stats_of(boss)
        assert "fitted to the bank's learners pooled, version 1, 321 reviews" in shown
        await fit_all(h.services)  # too few answers to fit: the stored weights stay
        assert "version 1, 321 reviews" in await stats_of(boss)


def test_fit_command_fits_every_bank_and_stats_names_the_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    from bot.cli import main

    db = tmp_path / "s.sqlite3"
    monkeypatch.setenv("QUIZBOT_DB", str(db))
    monkeypatch.chdir(tmp_path)
    assert main(["fit"]) == 2  # no database yet
    assert "no database" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", "--mock", "--short"]) == 0
    capsys.readouterr()
    assert main(["fit"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out and all(
        o.endswith(": too few reviews for a pooled fit; 0 learners with their own") for o in out
    )
    assert main(["stats", "--user", "0"]) == 0
    assert "Memory model: FSRS-6 defaults (no fit yet)" in capsys.readouterr().out


async def test_restating_uses_the_weights_a_learner_is_on_not_only_tonights_fit(
    tmp_path: Path,
) -> None:
    # Ann's own fit stays after a /reset (weights survive it); with too few answers since for
    # a new one, she is still on it, and her memory is restated under it, not the bank's.
    path = await answered(tmp_path, {ANN: 450, BOB: 250})  # Bob: the bank's fit, not his own
    async with open_database(database(path)) as db:
        await MemoryFits(db, FakeClock(NOW), fitter=steep_fitter).fit_bank(BANK)
        await db.write(lambda c: abuse_sql.reset_history(c, ANN, BANK))
    _answers(path, ANN, 30)
    async with open_database(database(path)) as db:
        await db.write(backfill_memory)
        outcome = await MemoryFits(db, FakeClock(NOW), fitter=steep_fitter).fit_bank(BANK)
        assert outcome.learners == 0  # nobody has enough answers for their own tonight
        ann = await db.read(lambda c: memory_states(c, ANN, BANK))
        bob = await db.read(lambda c: memory_states(c, BOB, BANK))
    assert ann and {s.decay for s in ann.values()} == {0.4}  # her own, older fit
    assert {s.decay for s in bob.values()} == {0.3}


def out_of_bounds_own(histories: Sequence[list[Graded]], min_reviews: int) -> Fitted | None:
    """The pooled fit as steep_fitter's; a learner's own one with a decay FSRS-6 refuses."""
    found = steep_fitter(histories, min_reviews)
    if found is None or len(histories) > 1:
        return found
    weights = list(found.weights)
    weights[20] = 0.95
    return Fitted(tuple(weights), found.reviews)


async def test_a_learners_own_fit_out_of_bounds_leaves_them_on_the_banks(tmp_path: Path) -> None:
    path = await answered(tmp_path, {ANN: 450, BOB: 30})
    async with open_database(database(path)) as db:
        outcome = await MemoryFits(db, FakeClock(NOW), fitter=out_of_bounds_own).fit_bank(BANK)
        assert (outcome.failed, outcome.learners, outcome.pooled_version) == (False, 0, 1)
        ann = await db.read(lambda c: params_for(c, ANN, BANK))
    assert ann is not None and ann.pooled and ann.weights[20] == 0.3


def test_a_weight_the_optimizer_clamped_to_its_bound_is_schedulable() -> None:
    # fsrs-rs clamps in 32-bit floats: its 0.8 reads 0.800000011920929, which py-fsrs refuses.
    raw = list(DEFAULT_MODEL.w)
    raw[19] = raw[20] = float(np.float32(0.8))
    assert raw[20] > 0.8
    with pytest.raises(ValueError):
        check_weights(tuple(raw))
    settled = settle_weights(raw)
    check_weights(settled)
    assert settled[20] == 0.8 and settled[:19] == pytest.approx(raw[:19], abs=1e-6)


def test_stored_weights_fsrs_cannot_use_read_as_the_defaults_with_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    weights_of.cache_clear()
    bad = list(DEFAULT_MODEL.w)
    bad[20] = 3.0
    with caplog.at_level(logging.WARNING, logger="bot.storage.fit_sql"):
        assert weights_of(json.dumps(bad)) == DEFAULT_WEIGHTS
        assert weights_of("[1, 2]") == DEFAULT_WEIGHTS
    assert len(caplog.records) == 2
    assert all("\n" not in r.getMessage() for r in caplog.records)
    clamped = list(DEFAULT_MODEL.w)
    clamped[20] = float(np.float32(0.8))
    assert weights_of(json.dumps(clamped))[20] == 0.8


@pytest.mark.sqlite_only("a SQLite trigger stands in for one learner's failing write")
async def test_one_learners_failing_restate_leaves_the_others_restated(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = await answered(tmp_path, {ANN: 120, BOB: 120})
    async with open_database(database(path)) as db:
        await db.write(backfill_memory)
        await db.write(
            lambda c: c.execute(
                f"CREATE TRIGGER refuse BEFORE UPDATE ON memory_states WHEN NEW.user_id = {ANN}"
                " BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
        )
        with caplog.at_level(logging.WARNING, logger="bot.practice.fitting"):
            outcome = await MemoryFits(db, FakeClock(NOW), fitter=steep_fitter).fit_bank(BANK)
        assert outcome.pooled_version == 1
        bob = await db.read(lambda c: memory_states(c, BOB, BANK))
    assert {s.decay for s in bob.values()} == {0.3}
    assert [r.getMessage() for r in caplog.records] == [
        f"restating learner {ANN} in bank {BANK} failed: refused"
    ]
