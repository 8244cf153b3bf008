"""Bank-wide cue rules: each on a small fixture bank, firing on the cue and silent without it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.bank.cues import MIRROR_SHARED
from bot.bank.lint import lint_bank
from bot.bank.loader import load_banks
from bot.bank.wording import clauses, mirrored, stem, words
from bot.cli import main
from tests.test_bank_lint import ONE_TOPIC
from tests.test_bank_loader import make_bank

N = 24
Change = Callable[[int, dict[str, Any]], None]


def plain(i: int) -> dict[str, Any]:
    """Question i of a bank with no cue: its own stem words, options alike in form."""
    options = [
        {
            "text": f"Use method m{i}{letter} on part p{i}{letter}",
            "correct": letter == "a",
            "rationale": f"Rationale r{i}{letter} about method m{i}{letter}.",
        }
        for letter in "abcd"
    ]
    stem = " ".join(f"s{i}w{k}" for k in range(6)) + "?"
    return {"id": f"q{i:02d}", "topic": "fine-tuning", "stem": stem, "options": options,
            "explanation": f"Explanation e{i}."}  # fmt: skip


def lint(tmp_path: Path, change: Change | None = None, n: int = N) -> list[str]:
    """`[rule] file:line field message` of every warning on a bank of n questions."""
    files = {}
    for i in range(n):
        q = plain(i)
        if change is not None:
            change(i, q)
        files[f"q{i:02d}.yaml"] = yaml.safe_dump(q, sort_keys=False)
    result = load_banks([make_bank(tmp_path, files, ONE_TOPIC)])
    assert result.problems == []
    found = lint_bank(result.banks["demo"], result.folders["demo"], result.files["demo"])
    return [f"{w.file.name}:{w.line} {w.field} {w.message}" for w in found]


def fired(found: list[str], rule: str) -> list[str]:
    return [f for f in found if f"[{rule}]" in f]


def test_a_bank_without_cues_has_no_warning(tmp_path: Path) -> None:
    assert lint(tmp_path) == []


def test_justification_cue_in_distractors_and_in_keys(tmp_path: Path) -> None:
    def wrong_ones_argue(i: int, q: dict[str, Any]) -> None:
        if i % 2 == 0:
            for option in q["options"][1:]:
                option["text"] += ", since it is cheaper"

    found = fired(lint(tmp_path / "d", wrong_ones_argue), "justification-cue")
    assert len(found) == 1 and found[0].startswith("bank.yaml:1 None ")
    assert "50% of distractors give their own reason" in found[0]
    assert "against 0% of keys" in found[0]

    def keys_argue(i: int, q: dict[str, Any]) -> None:
        if i % 3 == 0:
            q["options"][0]["text"] += " because it is cheaper"

    found = fired(lint(tmp_path / "k", keys_argue), "justification-cue")
    assert len(found) == 1 and "33% of keys give their own reason" in found[0]

    def balanced(i: int, q: dict[str, Any]) -> None:
        if i % 3 == 0:
            q["options"][i % 4]["text"] += " so that it is cheaper"

    assert fired(lint(tmp_path / "b", balanced), "justification-cue") == []


def test_justification_ignores_as_it_is(tmp_path: Path) -> None:
    def keep(i: int, q: dict[str, Any]) -> None:
        q["options"][1]["text"] += ", kept as it is"

    assert fired(lint(tmp_path, keep), "justification-cue") == []


@pytest.mark.parametrize(("in_keys", "fires"), [(0, True), (4, False)])
def test_stock_distractor(tmp_path: Path, in_keys: int, fires: bool) -> None:
    def temperature(i: int, q: dict[str, Any]) -> None:
        if i < 20:
            q["options"][1 + i % 3]["text"] += " with the temperature up"
        if i < in_keys:
            q["options"][0]["text"] += " with the temperature up"

    found = fired(lint(tmp_path, temperature), "stock-distractor")
    if fires:
        assert len(found) == 1 and "'temperature' is in 20 distractors and 0 keys" in found[0]
        assert "e.g. q00, q01, q02 and 17 more" in found[0]
    else:
        assert found == []


def test_stock_distractor_counts_word_forms_as_one_idea(tmp_path: Path) -> None:
    forms = ("fine-tune it", "fine-tuning it", "fine-tuned once")

    def fine_tune(i: int, q: dict[str, Any]) -> None:
        if i < 21:
            q["options"][1 + i % 3]["text"] += " after " + forms[i % 3]

    found = fired(lint(tmp_path, fine_tune), "stock-distractor")
    assert len(found) == 1 and "is in 21 distractors and 0 keys" in found[0]


@pytest.mark.parametrize(
    ("forms", "one"),
    [
        (("fine-tune", "fine-tuned", "fine-tuning", "fine-tunes"), True),
        (("agent", "agent's", "agents"), True),
        (("random", "randomly"), False),
    ],
)
def test_word_forms_of_one_idea(forms: tuple[str, ...], one: bool) -> None:
    assert (len({stem(w) for w in forms}) == 1) is one


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("Pad the vocabulary to 50,304 rows", 1),
        ("Roll back, confirm latency recovers, then investigate", 4),
        ("Cap steps; alert on spend and log it", 3),
    ],
)
def test_clauses(text: str, n: int) -> None:
    assert clauses(text) == n


def test_key_bundling_per_question(tmp_path: Path) -> None:
    def bundle(i: int, q: dict[str, Any]) -> None:
        if i == 3:
            q["options"][0]["text"] += ", then log it; alert on it and review it weekly"

    found = fired(lint(tmp_path, bundle), "key-bundling")
    assert len(found) == 1
    assert found[0].startswith("q03.yaml:")
    assert " options.0.text [key-bundling] the key bundles 5 clauses against at most 1" in found[0]


def test_key_bundling_across_the_bank(tmp_path: Path) -> None:
    # One clause more than the distractors is no per-question cue; half the bank doing it is.
    def one_more(i: int, q: dict[str, Any]) -> None:
        if i % 2 == 0:
            q["options"][0]["text"] += " and logs it"

    found = fired(lint(tmp_path / "a", one_more), "key-bundling")
    assert len(found) == 1 and found[0].startswith("bank.yaml:")
    assert "the key has the most clauses in 50% of single-answer questions" in found[0]
    assert "a random option would in 12%" in found[0]

    def anyone(i: int, q: dict[str, Any]) -> None:
        if i % 2 == 0:
            q["options"][(i // 2) % 4]["text"] += " and logs it"

    assert fired(lint(tmp_path / "b", anyone), "key-bundling") == []


def test_near_duplicate_stem(tmp_path: Path) -> None:
    def copy(i: int, q: dict[str, Any]) -> None:
        if i == 7:
            q["stem"] = plain(2)["stem"].replace("s2w5", "x9")

    found = fired(lint(tmp_path / "a", copy), "near-duplicate-stem")
    assert found == [
        "q07.yaml:3 stem [near-duplicate-stem] the stem is 71% like 'q02''s: the two can meet "
        "in one mock and one gives the other away; refocus one on a different decision or "
        "retire it"
    ]

    def half(i: int, q: dict[str, Any]) -> None:
        if i == 7:
            q["stem"] = " ".join([*plain(2)["stem"].split()[:3], "x1", "x2", "x3"])

    assert fired(lint(tmp_path / "b", half), "near-duplicate-stem") == []


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("Latency increases with batch size", "Latency decreases with batch size", True),
        ("The cache is reused across requests", "The cache is not reused across requests", True),
        ("Quantize before calibrating the model", "Quantize after calibrating the model", True),
        ("Latency increases with batch size", "Throughput decreases with batch size", False),
        ("Latency increases with batch size", "Latency increases with context length", False),
    ],
)
def test_mirrored_pairs(a: str, b: str, expected: bool) -> None:
    assert mirrored(words(a), words(b), MIRROR_SHARED) is expected


def test_mirrored_options(tmp_path: Path) -> None:
    def mirror(i: int, q: dict[str, Any]) -> None:
        if i == 5:
            q["options"][0]["text"] = "Latency increases with batch size"
            q["options"][2]["text"] = "Latency decreases with batch size"

    found = fired(lint(tmp_path / "a", mirror), "mirrored-options")
    assert len(found) == 1 and found[0].startswith("q05.yaml:")
    assert "options.2.text [mirrored-options] options A and C negate each other" in found[0]

    def grid(i: int, q: dict[str, Any]) -> None:
        # All four combinations: no pair stands out, so nothing narrows the choice.
        if i == 5:
            for option, (x, y) in zip(q["options"], ("uu", "ud", "du", "dd"), strict=True):
                up = {"u": "rises", "d": "falls"}
                option["text"] = f"Latency {up[x]} and throughput {up[y]}"

    assert fired(lint(tmp_path / "b", grid), "mirrored-options") == []


def test_formulaic_rationale(tmp_path: Path) -> None:
    def formula(i: int, q: dict[str, Any]) -> None:
        if i < 6:
            q["options"][1]["rationale"] = f"This is tempting because t{i} looks right."

    found = fired(lint(tmp_path / "a", formula), "formulaic-rationale")
    assert len(found) == 2
    assert "the opener 'this is tempting' is in 6 of 96 rationales (e.g. q00, q01, q02" in found[0]
    assert "the phrase 'this is tempting because' is in 6 of 96 rationales" in found[1]

    def worked(i: int, q: dict[str, Any]) -> None:
        # The same numbers in every rationale are a calculation, not a formula.
        if i < 6:
            q["options"][1]["rationale"] = f"Rationale r{i}: 128 kib 3 35 tb per step."

    assert fired(lint(tmp_path / "b", worked), "formulaic-rationale") == []


def test_validate_strict_fails_on_a_cue_and_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {}
    for i in range(N):
        q = plain(i)
        if i < 20:
            q["options"][1]["text"] += " with the temperature up"
        files[f"q{i:02d}.yaml"] = yaml.safe_dump(q, sort_keys=False)
    bank = make_bank(tmp_path, files, ONE_TOPIC)
    assert main(["validate", str(bank)]) == 0
    assert main(["validate", "--strict", str(bank)]) == 1
    err = capsys.readouterr().err
    assert "[stock-distractor] 'temperature' is in 20 distractors and 0 keys" in err
    assert "let some keys use it or give those distractors other near misses" in err
