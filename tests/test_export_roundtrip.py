"""A bank exported to Moodle XML or GIFT and imported back keeps every field the format can
hold: ids, topics, kinds, stems, options with their keys and rationales, explanations, tags
(and, in Moodle XML, whether options are shuffled). A property over generated questions."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.bank.exporters.gift import to_gift
from bot.bank.exporters.moodle import to_moodle
from bot.bank.importers.common import validate
from bot.bank.importers.gift import read_gift
from bot.bank.importers.mcq import Defaults, Filled, Read, draft_of
from bot.bank.importers.moodle_xml import read_moodle
from bot.bank.models import Bank, BankMeta, Question
from bot.cli import main
from tests import sample_bank

TOPICS = [("rag", "Retrieval / RAG"), ("evaluation", "Evaluation & judges")]
# Letters, digits, punctuation, symbols and spaces of any script, and line breaks: XML 1.0
# holds no control characters and turns a carriage return into a line break.
CHARS = st.characters(categories=("L", "N", "P", "S", "Zs"), include_characters="\n\u2028\x85")
TEXT = st.text(CHARS, min_size=1, max_size=40).filter(lambda t: t.strip())
SLUG = st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True)


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


@st.composite
def questions(draw: st.DrawFn, qid: str) -> Question:
    texts = draw(st.lists(TEXT, min_size=2, max_size=6, unique_by=_key))
    n = len(texts)
    multiple = n >= 3 and draw(st.booleans())
    count = draw(st.integers(2, n - 1)) if multiple else 1
    right = set(draw(st.permutations(range(n)))[:count])
    return Question.model_validate(
        {
            "id": qid,
            "topic": draw(st.sampled_from([t for t, _ in TOPICS])),
            "kind": "multiple" if multiple else "single",
            "shuffle": draw(st.booleans()),
            "stem": draw(TEXT),
            "options": [
                {"text": t, "correct": i in right, "rationale": draw(TEXT)}
                for i, t in enumerate(texts)
            ],
            "explanation": draw(TEXT),
            "tags": draw(st.lists(SLUG, max_size=3, unique=True)),
        }
    )


@st.composite
def banks(draw: st.DrawFn) -> Bank:
    ids = draw(st.lists(SLUG, min_size=1, max_size=4, unique=True))
    qs = [draw(questions(qid)) for qid in ids]
    meta = BankMeta.model_validate(
        {
            "id": "rt",
            "title": "Round trip",
            "exam_code": "RT",
            "passing_score": 70,
            "mock_exam": {"questions": 5, "minutes": 10},
            "topics": [{"id": t, "name": name, "weight": 50} for t, name in TOPICS],
        }
    )
    return Bank(meta=meta, questions={q.id: q for q in qs})


def held(q: Question, shuffle: bool) -> dict[str, Any]:
    """The fields an exchange format holds."""
    fields = q.model_dump(include={"id", "topic", "kind", "stem", "explanation", "tags"})
    fields["options"] = [(o.text, o.correct, o.rationale) for o in q.options]
    if shuffle:
        fields["shuffle"] = q.shuffle
    return fields


Reader = Callable[[Path], tuple[list[Read], list[Any], list[Any]]]


def round_trip(bank: Bank, text: str, suffix: str, reader: Reader) -> list[Question]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"bank{suffix}"
        path.write_text(text, encoding="utf-8")
        reads, issues, skipped = reader(path)
    assert issues == [] and skipped == []
    back = []
    for read in reads:
        checked = validate(draft_of(read, Defaults(), Filled()))
        assert isinstance(checked, Question), checked
        back.append(checked)
    return back


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banks())
def test_moodle_round_trip_keeps_every_field(bank: Bank) -> None:
    back = round_trip(bank, to_moodle(bank), ".xml", read_moodle)
    by_id = {q.id: q for q in back}
    assert sorted(by_id) == sorted(bank.questions)
    for q in bank.questions.values():
        assert held(by_id[q.id], shuffle=True) == held(q, shuffle=True)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banks())
def test_gift_round_trip_keeps_every_field(bank: Bank) -> None:
    back = round_trip(bank, to_gift(bank), ".gift", read_gift)
    by_id = {q.id: q for q in back}
    assert sorted(by_id) == sorted(bank.questions)
    for q in bank.questions.values():
        assert held(by_id[q.id], shuffle=False) == held(q, shuffle=False)


def test_gift_escapes_and_weights() -> None:
    q = sample_bank.question("esc", correct=(0, 2), n_options=4)
    q = q.model_copy(update={"stem": "What is {x} = ~y # z: \\ ?"})
    text = to_gift(sample_bank.bank([q]))
    assert "::esc::What is \\{x\\} \\= \\~y \\# z\\: \\\\ ? {" in text
    assert "\t~%50%Option A of esc #Rationale A of esc." in text
    assert "\t~%-50%Option B of esc #Rationale B of esc." in text


@pytest.mark.parametrize(
    ("export", "suffix", "reader"),
    [(to_moodle, ".xml", read_moodle), (to_gift, ".gift", read_gift)],
)
def test_texts_that_look_like_syntax_come_back(
    export: Callable[[Bank], str], suffix: str, reader: Reader
) -> None:
    q = Question.model_validate(
        {
            "id": "tricky",
            "topic": "alpha",
            "stem": "Which maps A -> B? <b>not bold</b> &amp; // not a comment",
            "options": [
                {"text": "%50% of the time", "correct": True, "rationale": "#1 &nbsp; 100%"},
                {"text": "A -> B", "rationale": "::not a title:: {}"},
                {"text": "=~ both", "rationale": "line one\nline two\u2028three"},
            ],
            "explanation": "[plain] stays as typed",
        }
    )
    bank = sample_bank.bank([q])
    (back,) = round_trip(bank, export(bank), suffix, reader)
    assert held(back, shuffle=False) == held(q, shuffle=False)


@pytest.mark.parametrize("fmt", ["moodle", "gift"])
def test_export_command_then_import_command(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.ops_support import write_bank

    bank = sample_bank.bank(
        [sample_bank.question("q1"), sample_bank.question("q2", "beta", correct=(0, 3))]
    )
    monkeypatch.setenv("QUIZBOT_QUESTIONS", str(write_bank(tmp_path / "banks", bank)))
    out = tmp_path / f"bank.{fmt}"
    assert main(["export", fmt, "--bank", "demo", "--out", str(out)]) == 0
    assert f"{out}: 2 questions of bank demo as {fmt}" in capsys.readouterr().out
    args = ["import", fmt, str(out), "--bank", "demo", "--out", str(tmp_path / "back")]
    assert main([*args, "--format", fmt]) == 0, capsys.readouterr().err
    from bot.bank.loader import load_bank

    again = load_bank(tmp_path / "back")
    for q in bank.questions.values():
        assert held(again.questions[q.id], shuffle=fmt == "moodle") == held(q, fmt == "moodle")
