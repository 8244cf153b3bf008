"""Item-writing lint: each rule on a small bank, firing on the cue and silent without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.bank.lint import lint_bank
from bot.bank.loader import load_banks
from bot.cli import main
from tests.test_bank_loader import BANK_YAML, make_bank

# Balanced options: none is a cue, so only the rule under test can fire.
PLAIN = [
    {"text": "Raise the adapter rank", "correct": True, "rationale": "Right."},
    {"text": "Lower the learning rate", "rationale": "Wrong."},
    {"text": "Add dropout to inputs", "rationale": "Wrong."},
    {"text": "Freeze the embeddings", "rationale": "Wrong."},
]


def qfile(qid: str, options: list[dict[str, Any]] | None = None, **extra: Any) -> str:
    data = {
        "id": qid,
        "topic": "fine-tuning",
        "stem": "Which change adds capacity?",
        "options": options or PLAIN,
        "explanation": "Because.",
        **extra,
    }
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def with_option(i: int, **changes: Any) -> list[dict[str, Any]]:
    options = [dict(o) for o in PLAIN]
    options[i] = {**options[i], **changes}
    return options


ONE_TOPIC = BANK_YAML.replace("weight: 60", "weight: 100").replace(
    "  - {id: evaluation, name: Evaluation, weight: 40}\n", ""
)


def rules(tmp_path: Path, files: dict[str, str], bank_yaml: str = ONE_TOPIC) -> list[str]:
    """`[rule] file:line field` of every warning."""
    bank = make_bank(tmp_path, files, bank_yaml)
    result = load_banks([bank])
    assert result.problems == []
    warnings = lint_bank(result.banks["demo"], result.folders["demo"], result.files["demo"])
    # The fixture questions share one stem and one-word rationales on purpose: the rules that
    # see those are tested in tests/test_bank_cues.py.
    return [
        f"{w.message.split(']')[0]}] {w.file.name}:{w.line} {w.field}"
        for w in warnings
        if not w.message.startswith(("[near-duplicate-stem]", "[formulaic-rationale]"))
    ]


def test_balanced_question_has_no_warning(tmp_path: Path) -> None:
    assert rules(tmp_path, {"q.yaml": qfile("q")}) == []


@pytest.mark.parametrize(
    ("key", "fires"),
    [
        ("Raise the adapter rank to widen its low-rank update", True),  # 51 vs 23 chars
        ("Raise the adapter rank a lot", False),  # 28 < 1.3 x 23
    ],
)
def test_key_longest(tmp_path: Path, key: str, fires: bool) -> None:
    found = rules(tmp_path, {"q.yaml": qfile("q", with_option(0, text=key))})
    assert found == (["[key-longest] q.yaml:5 options.0.text"] if fires else [])


def test_key_longest_multiple_answer_needs_every_key_longer(tmp_path: Path) -> None:
    long_keys = with_option(1, text="Lower the learning rate and warm it up slowly", correct=True)
    long_keys[0]["text"] = "Raise the adapter rank and its alpha with it"
    found = rules(tmp_path, {"q.yaml": qfile("q", long_keys, kind="multiple")})
    assert found == ["[key-longest] q.yaml:5 options.0.text"]
    one_short = with_option(1, text="Lower the learning rate and warm it up slowly", correct=True)
    assert rules(tmp_path / "b", {"q.yaml": qfile("q", one_short, kind="multiple")}) == []


def test_absolute_words_only_in_distractors(tmp_path: Path) -> None:
    cue = with_option(2, text="Always add dropout")
    assert rules(tmp_path, {"q.yaml": qfile("q", cue)}) == [
        "[absolute-words] q.yaml:10 options.2.text"
    ]
    both = with_option(2, text="Always add dropout")
    both[0]["text"] = "Never freeze, raise rank"
    assert rules(tmp_path / "b", {"q.yaml": qfile("q", both)}) == []


def test_catch_all_needs_pin_when_shuffled(tmp_path: Path) -> None:
    unpinned = with_option(3, text="None of the above")
    assert rules(tmp_path, {"q.yaml": qfile("q", unpinned)}) == [
        "[catch-all-pin] q.yaml:12 options.3.text"
    ]
    pinned = with_option(3, text="None of the above", pin=True)
    fixed = with_option(3, text="All of the above")
    files = {"a.yaml": qfile("a", pinned), "b.yaml": qfile("b", fixed, shuffle=False)}
    assert rules(tmp_path / "b", files) == []


def numbers(*texts: str) -> list[dict[str, Any]]:
    return [{"text": t, "correct": i == 1, "rationale": "Because."} for i, t in enumerate(texts)]


def test_numeric_options_in_ascending_order(tmp_path: Path) -> None:
    unsorted = numbers("About 0.5 GiB", "About 4 GiB", "About 32 GiB", "About 8 GiB")
    assert rules(tmp_path, {"q.yaml": qfile("q", unsorted, shuffle=False)}) == [
        "[numeric-order] q.yaml:4 options"
    ]
    # Units are compared by what they mean: 512 MiB < 4 GiB.
    ascending = numbers("About 512 MiB", "About 4 GiB", "About 8 GiB", "About 32 GiB")
    words = numbers("Rank 4 adapters", "Rank 8 adapters", "Rank 2 adapters", "Rank 1 adapters")
    files = {"a.yaml": qfile("a", ascending, shuffle=False), "b.yaml": qfile("b", words)}
    assert rules(tmp_path / "b", files) == []


def test_short_option(tmp_path: Path) -> None:
    assert rules(tmp_path, {"q.yaml": qfile("q", with_option(1, text="No"))}) == [
        "[short-option] q.yaml:8 options.1.text"
    ]
    digits = numbers("16", "32", "64", "128")
    assert rules(tmp_path / "b", {"q.yaml": qfile("q", digits, shuffle=False)}) == []


def test_long_verdict(tmp_path: Path) -> None:
    """Warned once, at the first option whose verdict would not fit one message."""
    long = with_option(2, rationale="Too long. " * 390)
    assert rules(tmp_path, {"q.yaml": qfile("q", long)}) == [
        "[long-verdict] q.yaml:11 options.2.rationale"
    ]
    # Just under a message with the explanation and trap: silent.
    fits = with_option(2, rationale="Long enough. " * 280)
    assert rules(tmp_path / "b", {"q.yaml": qfile("q", fits, trap="A trap.")}) == []


def test_duplicate_meaning(tmp_path: Path) -> None:
    same = with_option(3, text="lower learning-rate!")
    assert rules(tmp_path, {"q.yaml": qfile("q", same)}) == [
        "[duplicate-meaning] q.yaml:12 options.3.text"
    ]
    close = with_option(3, text="Lower the warmup rate")
    assert rules(tmp_path / "b", {"q.yaml": qfile("q", close)}) == []


def test_duplicate_meaning_keeps_the_order_of_numbers(tmp_path: Path) -> None:
    options = [dict(o) for o in PLAIN]
    options[0] = {**options[0], "text": "32 bands of 4 rows each"}
    options[1] = {**options[1], "text": "4 bands of 32 rows each"}
    assert rules(tmp_path, {"q.yaml": qfile("q", options)}) == []
    options[1] = {**options[1], "text": "Each: 32 bands, of 4 rows"}
    assert rules(tmp_path / "b", {"q.yaml": qfile("q", options)}) == [
        "[duplicate-meaning] q.yaml:8 options.1.text"
    ]


def bank_of(
    n: int, key_text: str | None, key_at: int, prefix: str = "q", **extra: Any
) -> dict[str, str]:
    files = {}
    for k in range(n):
        options = [dict(o, correct=False) for o in PLAIN]
        options[key_at] = {**options[key_at], "correct": True}
        if key_text:
            options[key_at]["text"] = f"{key_text} {k}"
        files[f"{prefix}{k}.yaml"] = qfile(f"{prefix}{k}", options, **extra)
    return files


def test_key_longest_share_across_the_bank(tmp_path: Path) -> None:
    # Longest by a little (no per-question warning), but in every question.
    longest = bank_of(5, "Raise the adapter ranks", 0)
    assert rules(tmp_path, longest) == ["[key-longest-share] bank.yaml:1 None"]
    assert rules(tmp_path / "b", bank_of(5, None, 0)) == []  # "Lower the learning rate" ties


def test_key_position_when_not_shuffled(tmp_path: Path) -> None:
    assert rules(tmp_path, bank_of(5, None, 3, shuffle=False)) == [
        "[key-position] bank.yaml:1 None",  # D
        "[key-position] bank.yaml:1 None",  # last
    ]
    few = {**bank_of(3, None, 3, "f", shuffle=False), **bank_of(5, None, 3, "s")}
    assert rules(tmp_path / "b", few) == []  # only 3 unshuffled: too few to judge
    mixed = {
        **bank_of(2, None, 0, "a", shuffle=False),
        **bank_of(2, None, 1, "b", shuffle=False),
        **bank_of(2, None, 2, "c", shuffle=False),
    }
    assert rules(tmp_path / "c", mixed) == []


def test_validate_prints_rules_and_strict_makes_them_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = make_bank(tmp_path, {"q.yaml": qfile("q", with_option(1, text="No"))}, ONE_TOPIC)
    assert main(["validate", str(bank)]) == 0
    captured = capsys.readouterr()
    assert (
        f"{bank / 'q.yaml'}:8: q: options.1.text: [short-option] option B 'No' is under 3 "
        "characters" in captured.err
    )
    assert "1 item-writing warning (--strict makes them errors)" in captured.err
    assert "demo: Demo bank (DEMO-1), 1 question\n" in captured.out
    assert main(["validate", "--strict", str(bank)]) == 1
    assert "1 problem found" in capsys.readouterr().err


def test_empty_topic(tmp_path: Path) -> None:
    assert rules(tmp_path, {"q.yaml": qfile("q")}, BANK_YAML) == [
        "[empty-topic] bank.yaml:8 topics.1"
    ]
    evaluation = qfile("e").replace("topic: fine-tuning", "topic: evaluation")
    assert rules(tmp_path / "b", {"q.yaml": qfile("q"), "e.yaml": evaluation}, BANK_YAML) == []


def test_numeric_options_that_would_be_shuffled_are_a_problem(tmp_path: Path) -> None:
    ascending = numbers("About 0.22", "About 0.52", "About 0.58", "About 0.80")
    assert rules(tmp_path, {"q.yaml": qfile("q", ascending)}) == [
        "[numeric-order] q.yaml:4 options"
    ]
    assert rules(tmp_path / "b", {"q.yaml": qfile("q", ascending, shuffle=False)}) == []
