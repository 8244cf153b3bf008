"""Question files load as PyYAML's safe loader reads them, and what it would silently accept or
report without a line (a duplicate key, an impossible date) is an error with its line."""

from __future__ import annotations

import pytest
import yaml

from bot.bank import yaml_load


def test_plain_documents_load_as_the_safe_loader_reads_them() -> None:
    text = "a: 1\nb: [1, 2.5, yes, null, 2026-01-01, '2026-01-01']\nc: {d: [e]}\n"
    assert yaml_load.load(text) == yaml.safe_load(text)
    assert yaml_load.load(text.encode()) == yaml.safe_load(text)


@pytest.mark.parametrize("text", ["a: b\na: c\n", "x: &y 1\nm: {a: 1, a: 2}\n"])
def test_a_duplicate_key_is_an_error_on_its_line(text: str) -> None:
    # The safe loader keeps the last value silently; a bank author wants to hear about it.
    with pytest.raises(yaml_load.DuplicateKey) as caught:
        yaml_load.load(text)
    assert caught.value.problem_mark is not None
    assert caught.value.problem_mark.line + 1 == 2


def test_an_impossible_date_is_an_error_on_its_line() -> None:
    with pytest.raises(yaml_load.InvalidScalar) as caught:
        yaml_load.load("id: q\nwhen: 2026-02-30\n")
    assert caught.value.problem_mark is not None
    assert caught.value.problem_mark.line + 1 == 2
    assert "2026-02-30" in str(caught.value)


def test_the_c_loader_is_used_when_libyaml_is_installed() -> None:
    # Parsing a bank costs about half as much with libyaml; losing it should be noticed.
    assert issubclass(yaml_load.SafeLoader, yaml.CSafeLoader)
