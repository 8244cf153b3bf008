"""Read practice pages (the text exam-prep sites publish) into question drafts.

A page, blank lines and surrounding spaces ignored:

    <EXAM-CODE> <Topic words> Practice Question
    <stem, one or more lines>
    ⚠ Common exam trap                       (optional section)
    <trap>
    Answer choices / Why each option matters / Answer the question above first...   (skipped)
    Correct answer & explanation
    ✓
    <text of a correct option>               (✓ + text again for each further correct option)
    <explanation, one or more lines>
    Answer analysis / Option-by-option breakdown / For each option: ...             (skipped)
    - ✓   or   - ✗                           (one block per option)
    <option text>
    Why this is correct   or   Why it's wrong here
    <rationale, one or more lines>
    About these practice questions           (optional footer)
    ... Written and reviewed by <author> ... Last reviewed <Month YYYY> · ...

A file may hold several pages one after the other; each starts with its title line.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bot.bank.importers.common import Draft, ImportIssue, slugify

TITLE = re.compile(r"^(?P<code>\S+)\s+(?P<topic>.+?)\s+practice\s+question$", re.IGNORECASE)
CORRECT_MARKS = frozenset("✓✔☑")
WRONG_MARKS = frozenset("✗✘✕✖×")
# A bullet and a lone symbol ("- ✓", "- ?"), or a bullet, a known mark and the option text on
# the same line; "- a bullet in a rationale" is neither.
MARK_LINE = re.compile(r"^[-•*–]\s*(?:(?P<mark>[^\w\s])|(?P<known>[✓✔☑✗✘✕✖×])\s+(?P<text>.+))$")
LABEL = re.compile(
    r"^why\s+(?:this|it)\s*(?:'s|’s|\s+is)\s+(?:the\s+)?"
    r"(?:(?P<right>correct|right)|(?P<wrong>wrong|incorrect))(?:\s+answer|\s+choice)?"
    r"(?:\s+here)?\s*[.:]?$",
    re.IGNORECASE,
)
AUTHOR = re.compile(r"^(?:written\s+and\s+reviewed|written|reviewed)\s+by\s+(?P<who>.+)$", re.I)
REVIEWED = re.compile(r"^last\s+reviewed\s+(?P<month>[A-Za-z]+)\.?\s+(?P<year>\d{4})\b", re.I)
# English names on purpose: the pages are English, and calendar.month_name follows the locale.
MONTHS: tuple[str, ...] = ("january", "february", "march", "april", "may", "june", "july")
MONTHS += ("august", "september", "october", "november", "december")
TRAP_HEADER = "common exam trap"
CORRECT_HEADERS = (
    "correct answer & explanation",
    "correct answer and explanation",
    "correct answers & explanation",
    "correct answers and explanation",
)
FOOTER_HEADER = "about these practice questions"
SKIPPED = (
    "answer choices",
    "why each option matters",
    "answer analysis",
    "option-by-option breakdown",
    "option by option breakdown",
)
SKIPPED_PREFIXES = ("answer the question above first", "for each option:")

Line = tuple[int, str]


def _key(text: str) -> str:
    """A line as compared with section headers: no emoji, curly quotes or trailing colon."""
    text = text.replace("’", "'").lstrip("⚠️ ").rstrip(":").strip()
    return " ".join(text.casefold().split())


def _month(name: str) -> int | None:
    """1-12 for a month name or an abbreviation of at least three letters ("Sept")."""
    name = name.casefold()
    found = [i for i, full in enumerate(MONTHS, 1) if len(name) >= 3 and full.startswith(name)]
    return found[0] if found else None


def _lines(text: str) -> list[Line]:
    raw = re.split(r"\r\n|\r|\n", text.removeprefix("\ufeff"))
    return [(n, line.strip()) for n, line in enumerate(raw, start=1) if line.strip()]


def _pages(lines: list[Line]) -> Iterator[list[Line]]:
    start = 0
    for i, (_, text) in enumerate(lines):
        if i > start and TITLE.match(text) and _key(text) != FOOTER_HEADER:
            yield lines[start:i]
            start = i
    if lines:
        yield lines[start:]


def _is_skipped(text: str) -> bool:
    key = _key(text)
    return key in SKIPPED or key.startswith(SKIPPED_PREFIXES)


def _join(lines: list[Line]) -> str:
    return "\n".join(text for _, text in lines)


class _PageReader:
    """Walks the lines of one page section by section, noting where each field came from."""

    def __init__(self, file: Path, lines: list[Line]) -> None:
        self.file = file
        self.lines = lines
        self.pos = 0
        self.where: dict[tuple[str | int, ...], int] = {}
        self.issues: list[ImportIssue] = []

    def fail(self, line: int, message: str) -> None:
        self.issues.append(ImportIssue(self.file, line, None, message))

    def take_until(self, stop: Any) -> list[Line]:
        taken = []
        while self.pos < len(self.lines) and not stop(self.lines[self.pos][1]):
            taken.append(self.lines[self.pos])
            self.pos += 1
        return taken

    def skip_boilerplate(self) -> None:
        while self.pos < len(self.lines) and _is_skipped(self.lines[self.pos][1]):
            self.pos += 1

    def at(self, *keys: str) -> bool:
        return self.pos < len(self.lines) and _key(self.lines[self.pos][1]) in keys

    @property
    def line(self) -> int:
        return self.lines[min(self.pos, len(self.lines) - 1)][0]

    def read(self) -> Draft | None:
        first_line, title = self.lines[0]
        match = TITLE.match(title)
        if not match:
            self.fail(first_line, 'first line is not "<EXAM-CODE> <Topic> Practice Question"')
            return None
        self.pos = 1
        data: dict[str, Any] = {"topic": slugify(match["topic"]), "difficulty": "medium"}
        self.where[("topic",)] = self.where[("id",)] = first_line
        sections = (TRAP_HEADER, *CORRECT_HEADERS)
        stem = self.take_until(lambda t: _key(t) in sections or _is_skipped(t))
        self._text_field(data, "stem", stem, first_line, "no question stem")
        if self.at(TRAP_HEADER):
            trap_line = self.line
            self.pos += 1
            trap = self.take_until(lambda t: _key(t) in CORRECT_HEADERS or _is_skipped(t))
            self._text_field(data, "trap", trap, trap_line, "empty exam trap section")
        self.skip_boilerplate()
        if not self.at(*CORRECT_HEADERS):
            self.fail(self.line, 'no "Correct answer & explanation" section')
            return None
        self.pos += 1
        answers = self._correct_answers()
        explanation = self.take_until(lambda t: _is_skipped(t) or bool(MARK_LINE.match(t)))
        self._text_field(data, "explanation", explanation, self.line, "no explanation")
        self.skip_boilerplate()
        self.where[("options",)] = self.line
        data["options"] = self._options()
        self._check_answers(answers, data["options"])
        self._footer(data)
        if sum(bool(o.get("correct")) for o in data["options"]) > 1:
            data["kind"] = "multiple"
        return Draft(
            self.file, first_line, data, match["topic"], self._locate, exam_code=match["code"]
        )

    def _locate(self, loc: tuple[str | int, ...]) -> tuple[int | None, str | None]:
        for size in range(len(loc), 0, -1):
            if loc[:size] in self.where:
                return self.where[loc[:size]], None
        return None, None

    def _text_field(
        self, data: dict[str, Any], name: str, lines: list[Line], at: int, missing: str
    ) -> None:
        if not lines:
            self.fail(at, missing)
            return
        data[name] = _join(lines)
        self.where[(name,)] = lines[0][0]

    def _correct_answers(self) -> list[Line]:
        answers = []
        while self.pos < len(self.lines) and self.lines[self.pos][1] in CORRECT_MARKS:
            if self.pos + 1 >= len(self.lines):
                break
            answers.append(self.lines[self.pos + 1])
            self.pos += 2
        if not answers:
            self.fail(self.line, 'expected "✓" and the correct answer after the section title')
        return answers

    def _options(self) -> list[dict[str, Any]]:
        options: list[dict[str, Any]] = []
        stray = self.take_until(lambda t: bool(MARK_LINE.match(t)) or _key(t) == FOOTER_HEADER)
        if stray:
            self.fail(stray[0][0], f"unexpected text before the first option: {stray[0][1]!r}")
        while self.pos < len(self.lines) and _key(self.lines[self.pos][1]) != FOOTER_HEADER:
            mark_line, text = self.lines[self.pos]
            match = MARK_LINE.match(text)
            self.pos += 1
            if match is None:  # only after an unknown mark: its lines are skipped below
                continue
            mark = match["mark"] or match["known"]
            if mark not in CORRECT_MARKS | WRONG_MARKS:
                self.fail(mark_line, f"unknown mark {mark!r} (expected ✓ or ✗)")
            body = self.take_until(
                lambda t: bool(LABEL.match(t) or MARK_LINE.match(t)) or _key(t) == FOOTER_HEADER
            )
            head = [(mark_line, match["text"])] if match["text"] else []
            index = len(options)
            option: dict[str, Any] = {"text": _join(head + body), "correct": mark in CORRECT_MARKS}
            self.where[("options", index)] = mark_line
            self.where[("options", index, "text")] = (head + body or [(mark_line, "")])[0][0]
            if not head + body:
                self.fail(mark_line, f"option {index + 1} has no text")
            label = LABEL.match(self.lines[self.pos][1]) if self.pos < len(self.lines) else None
            if label is None:
                self.fail(
                    mark_line,
                    f'option {index + 1} has no "Why this is correct" / '
                    '"Why it\'s wrong here" line and no rationale',
                )
            else:
                label_line = self.lines[self.pos][0]
                self.pos += 1
                if bool(label["right"]) != option["correct"]:
                    self.fail(
                        label_line,
                        f"option {index + 1} is marked {mark} but its label "
                        f"says {self.lines[self.pos - 1][1]!r}",
                    )
                rationale = self.take_until(
                    lambda t: bool(MARK_LINE.match(t)) or _key(t) == FOOTER_HEADER
                )
                if rationale:
                    option["rationale"] = _join(rationale)
                    self.where[("options", index, "rationale")] = rationale[0][0]
                else:
                    self.fail(label_line, f"option {index + 1} has no rationale")
            if mark in CORRECT_MARKS | WRONG_MARKS:
                options.append(option)
        return options

    def _check_answers(self, answers: list[Line], options: list[dict[str, Any]]) -> None:
        marked = {" ".join(o["text"].casefold().split()) for o in options if o["correct"]}
        for line, text in answers:
            if " ".join(text.casefold().split()) not in marked:
                self.fail(line, f"correct answer {text!r} is not an option marked ✓ below")

    def _footer(self, data: dict[str, Any]) -> None:
        for line, text in self.lines[self.pos + 1 :]:
            if author := AUTHOR.match(text):
                data["author"] = author["who"].strip()
                self.where[("author",)] = line
            elif reviewed := REVIEWED.match(text):
                month = _month(reviewed["month"])
                if month is None:
                    self.fail(line, f"unknown month {reviewed['month']!r} in the review date")
                else:
                    data["reviewed"] = dt.date(int(reviewed["year"]), month, 1)
                    self.where[("reviewed",)] = line


def read_page_text(text: str, file: Path) -> tuple[list[Draft], list[ImportIssue]]:
    """Drafts for every page in `text`, and the issues of pages that could not be read."""
    drafts: list[Draft] = []
    issues: list[ImportIssue] = []
    lines = _lines(text)
    if not lines:
        return [], [ImportIssue(file, None, None, "the file is empty")]
    for page in _pages(lines):
        reader = _PageReader(file, page)
        draft = reader.read()
        issues.extend(reader.issues)
        if draft is not None and not reader.issues:
            drafts.append(draft)
    return drafts, issues


def read_page_file(path: Path) -> tuple[list[Draft], list[ImportIssue]]:
    """Drafts for every page in a UTF-8 text file (with or without BOM)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [ImportIssue(path, None, None, f"cannot read: {exc}")]
    return read_page_text(text, path)
