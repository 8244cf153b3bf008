"""Read a CSV spreadsheet (one row per question) into question drafts.

The first row names the columns, in any order and any case; each column once. UTF-8, with or
without a BOM (Excel's "CSV UTF-8" is fine); cells may hold line breaks when quoted. Cells are
separated by commas, semicolons (Excel in many locales) or tabs, guessed from the first row
(--delimiter says it instead).

  id             optional; derived from topic and stem when empty (stable across imports)
  topic          topic id or name, e.g. fine-tuning or "Fine-tuning"             (required)
  difficulty     easy, medium or hard; medium when empty
  kind           single or multiple; when empty, multiple if several options are correct
  stem           the question                                                       (required)
  option_1 .. option_12        the answer options, from option_1 without gaps (2 to 12)
  rationale_1 .. rationale_12  why learners pick that option and why it is or isn't right
  misconception_1 .. misconception_12  optional: id of the misconception (declared in
                 bank.yaml) that wrong option N embodies
  correct        the right option(s): letters like B or A,C, or 1-based numbers like 2 or 1;3
  explanation    why the right answer is right                                    (required)
  trap           the common exam trap (optional)
  tags           ;-separated tags, e.g. lora;peft (optional)
  author         who wrote or reviewed it (optional)
  reviewed       date of the last review, YYYY-MM-DD (optional)

Problems are reported as `file.csv:LINE: column: message`, LINE being where the row starts
(for a quote that is never closed, where that quote is).
"""

from __future__ import annotations

import csv
import difflib
import io
import re
from pathlib import Path
from typing import Any

from bot.bank.importers.common import SLUG, Draft, ImportIssue, slugify, strip, tag_slug
from bot.bank.importers.csv_text import (
    QuotingFlaw,
    UnreadableCsv,
    first_line,
    quoting_flaws,
    read_text,
    sniff_delimiter,
)
from bot.bank.limits import MAX_OPTIONS
from bot.bank.models import LETTERS

OPTION_COLUMNS = [f"option_{i}" for i in range(1, MAX_OPTIONS + 1)]
RATIONALE_COLUMNS = [f"rationale_{i}" for i in range(1, MAX_OPTIONS + 1)]
MISCONCEPTION_COLUMNS = [f"misconception_{i}" for i in range(1, MAX_OPTIONS + 1)]
SIMPLE_COLUMNS = (
    "id",
    "topic",
    "difficulty",
    "kind",
    "stem",
    "explanation",
    "trap",
    "author",
    "reviewed",
)
COLUMNS = frozenset(
    (
        *SIMPLE_COLUMNS,
        "correct",
        "tags",
        *OPTION_COLUMNS,
        *RATIONALE_COLUMNS,
        *MISCONCEPTION_COLUMNS,
    )
)
REQUIRED = (
    "topic",
    "stem",
    "option_1",
    "option_2",
    "rationale_1",
    "rationale_2",
    "correct",
    "explanation",
)


def _column_of(loc: tuple[str | int, ...]) -> str:
    if loc[:1] == ("options",):
        if len(loc) >= 2 and isinstance(loc[1], int):
            field = {"rationale": "rationale", "misconception": "misconception"}.get(
                str(loc[2]) if len(loc) > 2 else "", "option"
            )
            return f"{field}_{loc[1] + 1}"
        return "correct"  # the count of correct options is what the options error is about
    return str(loc[0]) if loc else "-"


def _correct_indices(cell: str, count: int) -> tuple[set[int], str | None]:
    picked: set[int] = set()
    for token in (t for t in re.split(r"[,;\s]+", cell.strip()) if t):
        # isdecimal, not isdigit: "²" is a digit that int() refuses.
        if token.isdecimal():
            index = int(token) - 1
        elif len(token) == 1 and token.upper() in LETTERS:
            index = LETTERS.index(token.upper())
        else:
            return set(), f"{token!r} is neither a letter (A, B, ...) nor an option number"
        if not 0 <= index < count:
            return set(), f"{token!r}: there is no such option (the row has {count})"
        picked.add(index)
    if not picked:
        return set(), "no correct option given (letters like B or A,C, or numbers like 2)"
    return picked, None


def _topic_name(cell: str) -> str:
    return cell.replace("-", " ").capitalize() if SLUG.match(cell) else cell


def _row_draft(file: Path, line: int, row: dict[str, str]) -> Draft:
    cells = {k: strip(v) for k, v in row.items()}
    data: dict[str, Any] = {k: cells[k] for k in SIMPLE_COLUMNS if cells.get(k)}
    issues: list[ImportIssue] = []
    if "topic" in data and not SLUG.match(data["topic"]):
        data["topic"] = slugify(data["topic"])
    options: list[dict[str, Any]] = []
    last = max((i for i in range(MAX_OPTIONS) if cells.get(OPTION_COLUMNS[i])), default=-1)
    for i in range(last + 1):
        text, rationale = cells.get(OPTION_COLUMNS[i], ""), cells.get(RATIONALE_COLUMNS[i], "")
        if not text:
            issues.append(
                ImportIssue(
                    file,
                    line,
                    OPTION_COLUMNS[i],
                    "empty, but a later option is filled (options must have no gaps)",
                )
            )
        option: dict[str, Any] = {"text": text}
        if rationale:
            option["rationale"] = rationale
        if cells.get(MISCONCEPTION_COLUMNS[i]):
            option["misconception"] = cells[MISCONCEPTION_COLUMNS[i]]
        options.append(option)
    for i in range(last + 1, MAX_OPTIONS):
        if cells.get(RATIONALE_COLUMNS[i]):
            issues.append(
                ImportIssue(
                    file,
                    line,
                    RATIONALE_COLUMNS[i],
                    f"rationale without its option in {OPTION_COLUMNS[i]}",
                )
            )
    picked, problem = _correct_indices(cells.get("correct", ""), len(options))
    if problem:
        issues.append(ImportIssue(file, line, "correct", problem))
    for i, option in enumerate(options):
        option["correct"] = i in picked
    data["options"] = options
    if "kind" not in data and len(picked) > 1:
        data["kind"] = "multiple"
    if cells.get("tags"):
        # As the LMS importers do: "LoRA;Fine tuning" -> lora, fine-tuning.
        tags = (tag_slug(t.strip()) for t in cells["tags"].split(";"))
        data["tags"] = [t for t in dict.fromkeys(tags) if t]
    data.setdefault("difficulty", "medium")
    draft = Draft(
        file,
        line,
        data,
        _topic_name(cells.get("topic", "")),
        lambda loc: (line, _column_of(loc)),
        extra_issues=issues,
    )
    return draft


def _letters(position: int) -> str:
    """A spreadsheet column's letters: 1 -> A, 27 -> AA."""
    letters = ""
    while position:
        position, rest = divmod(position - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _where(position: int) -> str:
    return f"column {position} ({_letters(position)})"


def _header(path: Path, names: list[str]) -> tuple[dict[int, str], list[ImportIssue]]:
    """Known column names by cell index, and an issue per unknown or repeated name."""
    columns: dict[int, str] = {}
    seen: dict[str, int] = {}
    issues: list[ImportIssue] = []
    for index, raw in enumerate(names):
        name, position = strip(raw).lower(), index + 1
        if not name:
            continue  # an unnamed column is fine while its cells are empty (see _row_cells)
        if name not in COLUMNS:
            close = difflib.get_close_matches(name, sorted(COLUMNS), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            issues.append(
                ImportIssue(
                    path, 1, strip(raw), f"unknown column name in {_where(position)}{hint}"
                )
            )
        elif name in seen:
            first = seen[name]
            issues.append(
                ImportIssue(
                    path,
                    1,
                    name,
                    f"duplicated column: {_where(first)} and {_where(position)} are both "
                    f"{name}; keep one",
                )
            )
        else:
            seen[name] = position
            columns[index] = name
    missing = [name for name in REQUIRED if name not in seen]
    if missing:
        issues.append(ImportIssue(path, 1, None, "missing columns: " + ", ".join(missing)))
    return columns, issues


def _row_cells(
    path: Path, line: int, row: list[str], columns: dict[int, str]
) -> tuple[dict[str, str], list[ImportIssue]]:
    """The row's cells by column name; an issue for text in a column the header does not name."""
    cells = {name: row[index] if index < len(row) else "" for index, name in columns.items()}
    stray = [i + 1 for i, cell in enumerate(row) if i not in columns and strip(cell)]
    issues = [
        ImportIssue(path, line, None, f"text in {_where(p)}, which has no name in the header")
        for p in stray
    ]
    return cells, issues


def read_csv_file(
    path: Path, delimiter: str | None = None
) -> tuple[list[Draft], list[ImportIssue]]:
    """Drafts for every non-empty row, or the issues that make the file unreadable as a whole.

    The delimiter is sniffed from the header row (comma, semicolon or tab) unless given.
    """
    try:
        text = read_text(path)
    except UnreadableCsv as exc:
        return [], [ImportIssue(path, exc.line, None, str(exc))]
    if not strip(text):
        return [], [ImportIssue(path, None, None, "empty file: the first row names the columns")]
    delimiter = delimiter or sniff_delimiter(first_line(text))
    flaws = quoting_flaws(text, delimiter)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        names = next(reader)
    except csv.Error as exc:  # quoting_flaws names the cause; this covers anything else
        names, flaws = [], flaws or [QuotingFlaw(reader.line_num, 0, f"not valid CSV: {exc}")]
    columns, issues = _header(path, names)
    if flaws:
        by_index = dict(enumerate(strip(n) for n in names))
        return [], [
            ImportIssue(path, f.line, by_index.get(f.cell) or _where(f.cell + 1), f.message)
            for f in flaws
        ]
    if issues:
        return [], issues
    drafts = []
    try:
        start = reader.line_num + 1
        for row in reader:
            if any(strip(cell) for cell in row):
                cells, stray = _row_cells(path, start, row, columns)
                draft = _row_draft(path, start, cells)
                draft.extra_issues[:0] = stray
                drafts.append(draft)
            start = reader.line_num + 1
    except csv.Error as exc:
        return [], [ImportIssue(path, reader.line_num, None, f"not valid CSV: {exc}")]
    if not drafts:
        return [], [ImportIssue(path, 1, None, "no questions: nothing below the header row")]
    return drafts, []
