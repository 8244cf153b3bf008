"""The README stays a front door and the documents stay true to the tree they describe."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
ALL = [README, *DOCS]
README_MAX_LINES = 200
MAX_COLUMNS = 100
PNG_BUDGET = 150_000

MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
HTML_SRC = re.compile(r"""(?:src|href)="([^"]+)\"""")
# A backticked repository path: `bot/telegram/app.py`, `tests/fakes/`, `deploy/Dockerfile`.
REPO_PATH = re.compile(r"`((?:bot|tests|deploy|questions|docs)/[A-Za-z0-9_./-]*)`")
# Files the operator makes from the examples (`cp deploy/.env.example deploy/.env`).
MADE_BY_OPERATORS = {"deploy/.env"}


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    found = set()
    for line in _outside_code(text):
        if m := re.match(r"^#{1,6} (.*)$", line):
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            found.add(slug)
    return found


def _outside_code(text: str) -> list[str]:
    """The lines of a Markdown text that are not inside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def _resolves(file: Path, anchor: str) -> bool:
    """The file exists and, for a Markdown file, has a heading for the anchor."""
    if not file.exists():
        return False
    return not anchor or file.suffix != ".md" or anchor in _anchors(file.read_text("utf-8"))


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_readme_is_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_readme_states_the_streak_freeze() -> None:
    """Learners are promised a streak that forgives a missed day: the front door says so."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    (rule,) = [part for part in text.split("- **") if "freeze" in part]
    assert "one missed day a week" in rule and "`/stats`" in rule


def _section(text: str, heading: str) -> str:
    """The prose of one `## heading` section, whitespace folded (lines wrap anywhere)."""
    after = text.split(f"\n## {heading}\n", 1)[1]
    return " ".join(after.split("\n## ", 1)[0].split())


def test_readme_quick_start_says_what_a_newcomer_needs() -> None:
    """Which Python, how long the first test run takes, and how to try a local Bot API."""
    quick = _section(README.read_text(encoding="utf-8"), "Quick start")
    python = next(s for s in quick.split(". ") if "Python 3.11" in s)
    assert "on `PATH`" in python and "`make PYTHON=" in python
    timing = next(s for s in quick.split("; ") if "the first `make test`" in s)
    assert re.search(r"\ba minute or two\b|\b\d+ min", timing), timing
    assert re.search(r"\d+ min(?: \d+ s)? on SQLite", quick)  # the run itself
    assert "set `BOT_API_URL`" in quick and "`BOT_API_URL=http://127.0.0.1:" in quick


@pytest.mark.parametrize("doc", ALL, ids=_name)
def test_relative_links_resolve(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    broken = []
    for target in MD_LINK.findall(text) + HTML_SRC.findall(text):
        if re.match(r"^[a-z]+:", target):
            continue  # https:, mailto: ...
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not _resolves(file, anchor):
            broken.append(target)
    assert not broken, f"{_name(doc)}: broken links {broken}"


@pytest.mark.parametrize("doc", ALL, ids=_name)
def test_repository_files_named_exist(doc: Path) -> None:
    named = set(REPO_PATH.findall(doc.read_text(encoding="utf-8"))) - MADE_BY_OPERATORS
    missing = sorted(p for p in named if not (ROOT / p.rstrip(".")).exists())
    assert not missing, f"{_name(doc)} names files the tree does not have: {missing}"


@pytest.mark.parametrize("doc", ALL, ids=_name)
def test_prose_is_wrapped(doc: Path) -> None:
    """Prose lines fit 100 columns; tables and code blocks may be wider."""
    text = doc.read_text(encoding="utf-8")
    long = [
        line[:50]
        for line in _outside_code(text)
        if len(line) > MAX_COLUMNS and not line.lstrip().startswith("|")
    ]
    assert not long, f"{_name(doc)}: lines over {MAX_COLUMNS} columns: {long}"


def test_checks_catch_what_they_guard(tmp_path: Path) -> None:
    """The patterns above see a broken link, a stale path and a wrapped heading's anchor."""
    assert MD_LINK.findall("see [x](docs/gone.md#a) and [y](https://e.org)") == [
        "docs/gone.md#a",
        "https://e.org",
    ]
    assert REPO_PATH.findall("`bot/storage/gone.py` and `bot`") == ["bot/storage/gone.py"]
    assert "kill9-what-a-kill--9-loses" in _anchors("## `kill9`: what a kill -9 loses")
    assert _outside_code("a\n```\n" + "x" * 200 + "\n```\nb") == ["a", "b"]


def test_pictures_script_draws_both_pictures(tmp_path: Path) -> None:
    from docs import pictures

    written = pictures.main(tmp_path)
    assert sorted(p.name for p in written) == sorted([pictures.VERDICT_PNG, pictures.STATS_PNG])
    for path in written:
        data = path.read_bytes()
        assert 10_000 < len(data) < PNG_BUDGET, (path.name, len(data))
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            width, height = image.size
            colours = image.convert("RGB").getcolors(1 << 20) or []
        assert width >= 700 and height >= 700
        assert len(colours) > 16  # a drawing, not a blank canvas
