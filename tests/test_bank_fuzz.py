"""Mangled copies of the bundled bank: `validate` reports file:line problems, never a traceback."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import main
from bot.config import BUNDLED_QUESTIONS

BANK = BUNDLED_QUESTIONS / "genai-llm"
FILES = sorted(p.name for p in BANK.glob("*.yaml"))
PROBLEM = re.compile(r"^.+:(\d+|-): .+: .+: .+$")


@st.composite
def mutation(draw: st.DrawFn) -> tuple[str, bytes]:
    """One file of the bank with one line deleted, two swapped, Unicode inserted, or truncated."""
    name = draw(st.sampled_from(FILES))
    lines = (BANK / name).read_bytes().split(b"\n")
    i = draw(st.integers(0, len(lines) - 1))
    j = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(["delete", "swap", "insert", "truncate"]))
    if kind == "delete":
        del lines[i]
    elif kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "insert":
        junk = draw(st.text(min_size=1, max_size=8)).encode("utf-8", "surrogatepass")
        at = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:at] + junk + lines[i][at:]
    data = b"\n".join(lines)
    if kind == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    return name, data


@settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(change=mutation())
def test_validate_never_crashes_on_a_mangled_bank(
    change: tuple[str, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    name, data = change
    with tempfile.TemporaryDirectory() as tmp:
        bank = Path(tmp) / "genai-llm"
        shutil.copytree(BANK, bank)
        (bank / name).write_bytes(data)
        code = main(["validate", str(bank)])  # an exception fails the test
    lines = capsys.readouterr().err.splitlines()
    if code == 1:
        assert lines[-1].endswith(("1 problem found", "problems found"))
        reported = [line for line in lines[:-1] if "item-writing warning" not in line]
        assert reported
        assert all(PROBLEM.match(line) for line in reported), reported
    else:
        # Some mutations keep the file valid (a swapped pair of comments, a truncated tail).
        assert code == 0
