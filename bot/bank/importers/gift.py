"""Read GIFT, Moodle's text format: its multiple-choice questions.

  // a comment line            ignored; `// [id:ID]` and `// [tag:TAG]` in a question's
                               comments give its id and tags
  $CATEGORY: $course$/top/Fine tuning    the questions after it go to topic "Fine tuning"
                               (`// [topic:ID]` just before it gives the topic id)
  ::Title:: The stem {         a title (the id when it is one), the stem
    =the right option # why it is right            `#` starts the option's rationale
    ~a wrong option # why learners pick it and why it is wrong
    #### the explanation
  }
Several right options: `~%50%A # ... ~%50%B # ... ~%-100%C # ...` (a weight above 0 marks a
right option). Questions are separated by a blank line. `\\~ \\= \\# \\{ \\} \\: \\\\` stand for
the character itself, `\\n` for a line break; `[html]` before a text reads it as HTML (a
picture in it, <img>, is not imported: a warning names its line).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from bot.bank.importers.common import ImportIssue, strip
from bot.bank.importers.html_text import embedded_images, images_not_imported, to_text
from bot.bank.importers.mcq import Choice, Read
from bot.bank.importers.moodle_xml import category_name
from bot.bank.importers.source import SourceError, read_text

SPECIAL = "~=#{}:"
_COMMENT_MARK = re.compile(r"\[(id|tag|topic):([^\]]*)\]")
FORMAT_PREFIX = re.compile(r"^\s*\[(html|moodle|plain|markdown)\]", re.I)
_WEIGHT = re.compile(r"^%(-?\d+(?:\.\d+)?)%")


def escape(text: str) -> str:
    """Text as GIFT writes it: the special characters and line breaks escaped."""
    out = text.replace("\\", "\\\\")
    for char in SPECIAL:
        out = out.replace(char, "\\" + char)
    return out.replace("\n", "\\n")


def unescape(text: str) -> str:
    """The text a GIFT fragment stands for."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append("\n" if text[i + 1] == "n" else text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _find(text: str, marks: str, start: int = 0) -> int:
    """Index of the first unescaped character of `marks` at or after `start`, or -1."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] in marks:
            return i
        i += 1
    return -1


def _find_str(text: str, needle: str, start: int = 0) -> int:
    i = _find(text, needle[0], start)
    while i >= 0 and not text.startswith(needle, i):
        i = _find(text, needle[0], i + 1)
    return i


def _format(fragment: str, default: str = "") -> tuple[str, str]:
    """A fragment's text format ([html], [markdown], ...) and its text without the mark. As in
    Moodle, answers and feedback without a mark of their own are in the question text's."""
    found = FORMAT_PREFIX.match(fragment)
    if found is None:
        return default, fragment
    return found.group(1).lower(), fragment[found.end() :]


def _text(fragment: str, default: str = "") -> str:
    kind, body = _format(fragment, default)
    body = unescape(body)
    return strip(to_text(body) if kind == "html" else body)


def _images(
    read: Read, file: Path, line: int, column: str, fragment: str, default: str = ""
) -> None:
    """Warn of the pictures (<img>) of an [html] fragment: `_text` drops them with the tags."""
    kind, body = _format(fragment, default)
    if kind == "html":
        names = embedded_images(unescape(body))
        if names:
            read.warnings.append(ImportIssue(file, line, column, images_not_imported(names)))


@dataclass
class _Block:
    """Lines of one question (comment lines taken out), with their numbers."""

    numbers: list[int]
    lines: list[str]
    comments: list[str]

    @cached_property
    def _starts(self) -> list[int]:
        """Offset in the block's text ("\\n"-joined lines) where each line starts."""
        starts, at = [], 0
        for line in self.lines:
            starts.append(at)
            at += len(line) + 1
        return starts

    def line_at(self, offset: int) -> int:
        """The file line of an offset in the block's text (the last line past its end).

        Looked up in offsets computed once: every option asks, and counting line breaks
        afresh each time made a question with many options quadratic to read.
        """
        index = bisect_right(self._starts, offset) - 1
        return self.numbers[min(max(index, 0), len(self.numbers) - 1)]


def _blocks(text: str) -> list[_Block]:
    blocks: list[_Block] = []
    current = _Block([], [], [])
    # Only \n ends a line: splitlines() would also break at U+2028 or U+0085 inside a text.
    for number, line in enumerate((t.removesuffix("\r") for t in text.split("\n")), 1):
        if not line.strip():
            if current.lines or current.comments:
                blocks.append(current)
            current = _Block([], [], [])
        elif line.lstrip().startswith("//"):
            current.comments.append(line)
        else:
            current.numbers.append(number)
            current.lines.append(line)
    if current.lines or current.comments:
        blocks.append(current)
    return blocks


def _marks(comments: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {"id": [], "tag": [], "topic": []}
    for comment in comments:
        for kind, value in _COMMENT_MARK.findall(comment):
            found[kind].append(value.strip())
    return found


class _Unsupported(Exception):
    pass


def _choices(file: Path, block: _Block, body: str, offset: int, read: Read, kind: str) -> None:
    """The options, rationales and explanation between { and }; `kind`: the question text's
    format, theirs unless they mark their own."""
    general = _find_str(body, "####")
    if general >= 0:
        read.explanation = _text(body[general + 4 :], kind)
        read.lines["explanation"] = block.line_at(offset + general)
        _images(read, file, read.lines["explanation"], "explanation", body[general + 4 :], kind)
        body = body[:general]
    if not body.strip():
        raise _Unsupported("an essay question (nothing between { and })")
    if re.fullmatch(r"\s*(T|F|TRUE|FALSE)\s*(#.*)?", body, re.S):
        raise _Unsupported("a true/false question")
    if body.strip().startswith("#"):
        raise _Unsupported("a numerical question")
    starts = []
    i = _find(body, "=~")
    while i >= 0:
        starts.append(i)
        i = _find(body, "=~", i + 1)
    if not starts or body[: starts[0]].strip():
        raise _Unsupported("no options: each starts with = (right) or ~ (wrong)")
    if all(body[s] == "=" for s in starts):
        # Only = answers: a matching question when they pair items with ->, else short answer.
        if _find_str(body, "->") >= 0:
            raise _Unsupported("a matching question")
        raise _Unsupported("a short-answer question (only = answers, no ~)")
    has_equals = any(body[s] == "=" for s in starts)
    for start, end in zip(starts, [*starts[1:], len(body)], strict=True):
        part = body[start + 1 : end]
        line = block.line_at(offset + start)
        weight = 100.0 if body[start] == "=" else 0.0
        found = _WEIGHT.match(part.lstrip())
        if found:
            weight = float(found.group(1))
            part = part.lstrip()[found.end() :]
        index = len(read.choices)
        partial = has_equals and body[start] == "~" and weight > 0
        if partial:
            read.issues.append(
                ImportIssue(
                    file,
                    line,
                    f"options.{index}.correct",
                    f"partial credit (~%{weight:g}%) next to a = answer: a question here has "
                    "one right option (=) or several (~%50% each, no =)",
                )
            )
        hash_at = _find(part, "#")
        text, rationale = (part, "") if hash_at < 0 else (part[:hash_at], part[hash_at + 1 :])
        # A partial-credit option is reported once, not again as a second right option.
        right = weight > 0 and not partial
        _images(read, file, line, f"options.{index}.text", text, kind)
        _images(read, file, line, f"options.{index}.rationale", rationale, kind)
        read.choices.append(Choice(_text(text, kind), right, _text(rationale, kind), line))
    read.multiple = not has_equals
    if not any(c.correct for c in read.choices):
        # Only ~ answers and no weight above 0: read as a multiple-answer question, the model
        # would say it "needs at least 2 correct options"; the author forgot the = instead.
        # Placed where the model places "options", so the writer says it once.
        read.issues.append(
            ImportIssue(
                file,
                read.lines.get("options", read.line),
                "options",
                "no option is marked right: mark the right one with = "
                "(or several right ones with ~%50% each)",
            )
        )


def _question(file: Path, block: _Block, topic: tuple[str, str]) -> Read:
    text = "\n".join(block.lines)
    read = Read(file, block.numbers[0], "", [], topic_name=topic[0], topic_id=topic[1])
    marks = _marks(block.comments)
    rest, offset = text, 0
    if text.lstrip().startswith("::"):
        first = text.index("::") + 2
        close = _find_str(text, "::", first)
        if close < 0:
            raise _Unsupported("the title's closing :: is missing")
        read.qid = _text(text[first:close])
        rest, offset = text[close + 2 :], close + 2
    read.qid = (marks["id"] or [read.qid])[-1]
    read.tags = marks["tag"]
    opening = _find(rest, "{")
    if opening < 0:
        raise _Unsupported("no answers: a question's options go between { and }")
    closing = _find(rest, "}", opening + 1)
    if closing < 0:
        raise _Unsupported("the { of the answers is never closed with }")
    if rest[closing + 1 :].strip():
        raise _Unsupported("a missing-word question (text after the answers)")
    read.stem = _text(rest[:opening])
    read.lines["stem"] = block.line_at(offset)
    _images(read, file, read.lines["stem"], "stem", rest[:opening])
    kind, _ = _format(rest[:opening])
    _choices(file, block, rest[opening + 1 : closing], offset + opening + 1, read, kind)
    return read


def read_gift(
    path: Path, skip_unsupported: bool = False
) -> tuple[list[Read], list[ImportIssue], list[ImportIssue]]:
    """(questions, problems, skipped questions of other types) of a GIFT file."""
    try:
        text = read_text(path)
    except SourceError as exc:
        return [], [ImportIssue(path, exc.line, None, str(exc))], []
    reads: list[Read] = []
    issues: list[ImportIssue] = []
    skipped: list[ImportIssue] = []
    topic = ("", "")
    for block in _blocks(text):
        if not block.lines:
            continue
        head = block.lines[0].strip()
        if head.upper().startswith("$CATEGORY:"):
            topic = (
                category_name(head.split(":", 1)[1]),
                (_marks(block.comments)["topic"] or [""])[-1],
            )
            block = _Block(block.numbers[1:], block.lines[1:], block.comments)
            if not block.lines:
                continue
        try:
            reads.append(_question(path, block, topic))
        except _Unsupported as exc:
            message = str(exc)
            unsupported = message.startswith(("a ", "an "))
            target = skipped if unsupported and skip_unsupported else issues
            suffix = ": only multiple choice is imported" if unsupported else ""
            target.append(ImportIssue(path, block.numbers[0], None, message + suffix))
    if not reads and not issues:
        issues.append(ImportIssue(path, 1, None, "no multiple-choice question in the file"))
    return reads, issues, skipped
