"""Read Aiken, the plain format: a stem, lettered options, the answer's letter.

  Which adapter trains the fewest parameters?
  A. Full fine-tuning
  B) LoRA with rank 8
  ANSWER: B
Options are `A.` or `A)` then the text, in letter order; `ANSWER: A, C` marks several right
options. A blank line may separate questions. Aiken holds no rationales, explanations or
topics: `--topic` names the topic, and the rationales and explanation are to be written (or
stood in for with `--fill-missing`).
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.bank.importers.common import ImportIssue
from bot.bank.importers.mcq import Choice, Read
from bot.bank.importers.source import SourceError, read_text
from bot.bank.models import LETTERS

_OPTION = re.compile(r"^\s*([A-Z])[.)]\s+(.*\S)\s*$")
_ANSWER = re.compile(r"^\s*ANSWER\s*:\s*(.*?)\s*$", re.I)


def _finish(path: Path, read: Read, answer: str, line: int) -> None:
    # The key is what ANSWER: says: problems with the options' count of right ones are its.
    read.lines["options"] = line
    letters = [t for t in re.split(r"[\s,;]+", answer.upper()) if t]
    if not letters:
        read.issues.append(ImportIssue(path, line, "options", "ANSWER: names no letter"))
    for letter in letters:
        index = LETTERS.find(letter) if len(letter) == 1 else -1
        if not 0 <= index < len(read.choices):
            read.issues.append(
                ImportIssue(path, line, "options", f"ANSWER {letter!r} is not one of the options")
            )
        else:
            read.choices[index].correct = True


def read_aiken(path: Path) -> tuple[list[Read], list[ImportIssue]]:
    """(questions, problems) of an Aiken file."""
    try:
        text = read_text(path)
    except SourceError as exc:
        return [], [ImportIssue(path, exc.line, None, str(exc))]
    reads: list[Read] = []
    issues: list[ImportIssue] = []
    current: Read | None = None
    stem: list[str] = []
    # Only \n ends a line (a \r before it dropped): splitlines() would also break at a form
    # feed or U+2028 inside a stem and number every later line wrong.
    for number, line in enumerate((t.removesuffix("\r") for t in text.split("\n")), 1):
        option, answer = _OPTION.match(line), _ANSWER.match(line)
        if current is None:
            if not line.strip():
                continue
            current = Read(path, number, "", [])
            current.lines["stem"] = number
            stem = []
        if answer:
            if not current.choices:
                issues.append(ImportIssue(path, number, "options", "ANSWER: before any option"))
            current.stem = "\n".join(stem)
            _finish(path, current, answer.group(1), number)
            reads.append(current)
            current = None
        elif option:
            expected = (
                LETTERS[len(current.choices)] if len(current.choices) < len(LETTERS) else "?"
            )
            if option.group(1) != expected:
                issues.append(
                    ImportIssue(
                        path,
                        number,
                        f"options.{len(current.choices)}",
                        f"option {option.group(1)} where {expected} was expected",
                    )
                )
            current.choices.append(Choice(option.group(2), False, line=number))
        elif current.choices:
            if line.strip():
                issues.append(
                    ImportIssue(
                        path, number, "correct", "text after the options: ANSWER: missing?"
                    )
                )
        else:
            stem.append(line.strip())
    if current is not None:
        issues.append(
            ImportIssue(path, current.line, "correct", "the question ends without ANSWER:")
        )
    if not reads and not issues:
        issues.append(ImportIssue(path, 1, None, "no question in the file"))
    return reads, issues
