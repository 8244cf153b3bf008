"""The fast YAML path returns exactly what PyYAML's safe loader returns, errors included."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from bot.bank import fastyaml
from bot.bank.loader import question_files
from bot.config import BUNDLED_QUESTIONS

DOCUMENTS = [
    "",
    "# only a comment\n",
    "a: 1\nb: [1, 2.5, yes, no, null, ~, 2026-01-01, '2026-01-01', 0x10, .inf, 1_000]\n",
    "when: 2026-01-01 10:00:00\nempty:\nquoted: 'true'\nplain: true\n",
    "text: >-\n  folded\n  lines\nkeep: |\n  a\n   b\n",
    "x: &anchor {k: v}\ny: *anchor\n",
    "base: &b {a: 1}\nderived:\n  <<: *b\n  c: 2\n",
    "a: !!str 1\nb: !!int '2'\n",
    "- a\n- {b: c}\n- [d, [e]]\n",
    "? [1, 2]\n: complex key\n",
    "---\na: 1\n---\nb: 2\n",
    "key: [unclosed\n",
    "key: 'unterminated\n",
    "\ufeffbom: true\n",
    "a:\n  - [1, {b: [2, {c: d}]}]\n  - e\nf: {g: []}\nh: {}\n",
    "- - - x\n  - y\n- z\n",
    "? {a: 1}\n: b\n",
    "plain\n",
    '"<<": 1\n',
]


def outcome(load: Any, text: str | bytes) -> Any:
    try:
        return load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return type(exc).__name__, getattr(mark, "line", None)


@pytest.mark.parametrize("text", DOCUMENTS)
def test_same_result_as_the_safe_loader(text: str) -> None:
    def reference(t: str | bytes) -> Any:
        return yaml.load(t, Loader=yaml.CSafeLoader)

    for source in (text, text.encode("utf-8")):
        assert outcome(fastyaml.load, source) == outcome(reference, source)


@pytest.mark.parametrize("text", ["a: b\na: c\n", "x: &y 1\nm: {a: 1, a: 2}\n"])
def test_duplicate_keys_are_errors_on_both_paths(text: str) -> None:
    # The safe loader keeps the last value silently; a bank author wants to hear about it.
    with pytest.raises(fastyaml.DuplicateKey) as caught:
        fastyaml.load(text)
    assert caught.value.problem_mark is not None
    assert caught.value.problem_mark.line + 1 == 2


def test_bundled_question_files_load_identically() -> None:
    files = [
        p for bank in BUNDLED_QUESTIONS.iterdir() if bank.is_dir() for p in question_files(bank)
    ]
    assert files
    for path in files:
        source = path.read_bytes()
        assert fastyaml.load(source) == yaml.safe_load(source), path


def test_pure_python_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastyaml, "CParser", None)
    assert fastyaml.load("a: [1, yes]\n") == {"a": [1, True]}
