"""A CSV file's text before it is parsed: decoding, the delimiter, and quoting mistakes by line.

Python's csv reader never fails on a quote that is not closed (the cell swallows the rest of the
file) or on a carriage return alone inside a cell (the row silently breaks in two): the rows it
returns are then missing cells, which would be reported as "explanation required". The scan
below finds the real cause first and says on which line and in which cell it starts.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from bot.bank.importers.source import SourceError, read_bytes

# Comma, semicolon (what Excel writes in locales whose decimal mark is a comma) and tab.
DELIMITERS = ",;\t"
QUOTE = '"'


class UnreadableCsv(Exception):
    """The file cannot be read as UTF-8 text; `line` is where, when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class QuotingFlaw:
    """A quoting mistake: the line it starts on, its cell (0-based) in the row, and why."""

    line: int
    cell: int
    message: str


def read_text(path: Path) -> str:
    """The file's text (UTF-8, a BOM dropped), or UnreadableCsv saying why and where; a file
    over the import size limit is refused unread."""
    try:
        data = read_bytes(path)
    except SourceError as exc:
        raise UnreadableCsv(str(exc), exc.line) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UnreadableCsv(
            f"not UTF-8 (byte {exc.start}: {data[exc.start : exc.start + 1]!r}); "
            "save it as CSV UTF-8",
            line,
        ) from None


def first_line(text: str) -> str:
    """The text up to its first line break (the header row of a CSV file)."""
    ends = [i for i in (text.find("\n"), text.find("\r")) if i >= 0]
    return text[: min(ends)] if ends else text


def sniff_delimiter(header: str) -> str:
    """Comma, semicolon or tab, whichever separates the header row's names (comma if unsure)."""
    # Only the header: data rows hold prose with commas and semicolons of their own.
    try:
        return csv.Sniffer().sniff(header, delimiters=DELIMITERS).delimiter
    except csv.Error:
        return ","


def _line_break(text: str, i: int) -> int:
    """Length of the line break at text[i] (2 for CRLF, 1 for CR or LF), 0 if there is none."""
    if text[i] == "\n":
        return 1
    if text[i] == "\r":
        return 2 if text[i + 1 : i + 2] == "\n" else 1
    return 0


def quoting_flaws(text: str, delimiter: str) -> list[QuotingFlaw]:
    """Unclosed quotes, text after a closing quote and bare CRs in unquoted cells, by line."""
    # A file with no LF at all uses CR alone as its line break (old Mac exports): legitimate.
    cr_breaks_rows = "\n" not in text
    flaws: list[QuotingFlaw] = []
    line, cell, at_start, quoted, closed = 1, 0, True, False, False
    opened = (0, 0)  # (line, cell) of the quote that opened the current quoted cell
    i = 0
    while i < len(text):
        char, width = text[i], _line_break(text, i)
        if quoted:
            if char == QUOTE and text[i + 1 : i + 2] == QUOTE:
                i += 2  # "" is a quote inside a quoted cell
                continue
            if char == QUOTE:
                quoted, closed = False, True
            line += 1 if width else 0
            i += max(width, 1)
            continue
        if closed and char != delimiter and not width:
            flaws.append(
                QuotingFlaw(
                    *opened,
                    f"the quoted cell that starts here is closed on line {line} and followed "
                    f"by more text; a closing {QUOTE} is missing, or a {QUOTE} inside the cell "
                    f"is not doubled ({QUOTE}{QUOTE})",
                )
            )
            return flaws  # everything after this point is parsed out of step
        if char == delimiter:
            cell, at_start, closed = cell + 1, True, False
        elif width:
            if char == "\r" and width == 1 and not cr_breaks_rows:
                flaws.append(
                    QuotingFlaw(
                        line,
                        cell,
                        "a carriage return (CR) alone inside the cell ends the row here; "
                        "remove it, or quote the cell to keep it as a line break",
                    )
                )
            line, cell, at_start, closed = line + 1, 0, True, False
        elif char == QUOTE and at_start:
            quoted, opened = True, (line, cell)
        else:
            at_start = False
        i += max(width, 1)
    if quoted:
        flaws.append(
            QuotingFlaw(
                *opened,
                f"unterminated quote: the {QUOTE} that opens this cell is never closed "
                "(the cell would run to the end of the file)",
            )
        )
    return flaws
