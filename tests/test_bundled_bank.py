"""The bundled bank as an exam editor checks it: the NCP-GENL blueprint, no item-writing cues,
room for five full mocks without a repeat (each domain holds five times its share of a mock).
That the blueprint draws five such mocks from any bank so filled is tested on a generated bank
in tests/test_mock_full_exam.py."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from bot.bank import cues
from bot.bank.loader import load_bank
from bot.bank.models import Kind
from bot.mock.blueprint import Draw, apportion, draw
from tests.sample_bank import NCP_GENL_WEIGHTS

BANK = Path(__file__).resolve().parent.parent / "questions" / "genai-llm"


def test_bundled_bank_passes_the_strict_lint() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "validate", "--strict", str(BANK)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_key_is_rarely_the_longest_option() -> None:
    bank = load_bank(BANK)
    single = [q for q in bank.questions.values() if q.kind is Kind.SINGLE]
    longest = ratio = 0
    for q in single:
        key = max(len(o.text) for o in q.options if o.correct)
        wrong = max(len(o.text) for o in q.options if not o.correct)
        longest += key > wrong
        ratio += key >= 1.5 * wrong
    assert longest <= 0.35 * len(single)
    assert ratio <= 0.05 * len(single)


def test_size_and_mix() -> None:
    bank = load_bank(BANK)
    questions = list(bank.questions.values())
    assert len(questions) >= 150
    per_topic = {t.id: sum(q.topic == t.id for q in questions) for t in bank.meta.topics}
    assert min(per_topic.values()) >= 15, per_topic
    assert sum(q.kind is Kind.MULTIPLE for q in questions) >= 0.2 * len(questions)
    tagged = [o.misconception for q in questions for o in q.options if o.misconception]
    assert len(tagged) >= 15 and len(set(tagged)) >= 5


def test_five_full_mocks_in_a_row_never_repeat_a_question_and_keep_the_blueprint() -> None:
    bank = load_bank(BANK)
    size = bank.meta.mock_exam.questions
    blueprint = apportion({t.id: t.weight for t in bank.meta.topics}, size)
    seen: set[str] = set()
    rng = random.Random(5)
    for mock in range(5):
        got = draw(bank, size, seen, rng)
        assert isinstance(got, Draw) and len(got.question_ids) == size
        repeated = sorted(seen & set(got.question_ids))
        assert not repeated, (mock + 1, repeated)
        assert got.per_topic == {t: n for t, n in blueprint.items() if n}
        seen |= set(got.question_ids)


def test_size_and_each_domain_within_4_points_of_its_ncp_genl_weight() -> None:
    bank = load_bank(BANK)
    total = len(bank.questions)
    assert total >= 350
    assert {t.id: t.weight for t in bank.meta.topics} == NCP_GENL_WEIGHTS
    shares = {t: 100 * len(bank.in_topic(t)) / total for t in NCP_GENL_WEIGHTS}
    assert all(abs(shares[t] - w) <= 4 for t, w in NCP_GENL_WEIGHTS.items()), shares


def test_no_near_duplicate_stems() -> None:
    assert cues.near_duplicate_pairs(load_bank(BANK)) == []


def test_cue_ratios_within_their_limits() -> None:
    bank = load_bank(BANK)
    key, wrong = cues.justification_shares(bank)
    assert wrong <= cues.JUSTIFICATION_RATIO * key + cues.JUSTIFICATION_SLACK, (key, wrong)
    assert key <= cues.JUSTIFICATION_RATIO * wrong + cues.JUSTIFICATION_SLACK, (key, wrong)
    observed, chance = cues.bundling_shares(bank)
    assert observed <= cues.BUNDLE_RATIO * chance + cues.BUNDLE_SLACK, (observed, chance)
    assert cues.stock_ideas(bank) == []
    assert cues.formula_phrases(bank) == []
    assert not [c for q in bank.questions.values() for c in cues.mirrored_options(q)]
