"""Read Moodle XML (`<quiz>` of `<question>`s): the multiple-choice questions.

  <question type="category">      the questions after it go to this topic: the last part of
                                  the category path, its <idnumber> as the topic id if any
  <question type="multichoice">   one question:
    <name>, <idnumber>            the question id (when it is one: lower-case, digits, - . _)
    <questiontext>                the stem
    <answer fraction="...">       an option, correct when the fraction is above 0
      <feedback>                  that option's rationale
    <generalfeedback>             the explanation
    <single>                      false: a multiple-answer question
    <shuffleanswers>              0: the options keep their order
    <tags><tag>                   tags
HTML text is read as what a reader sees (tags dropped, <br> and paragraphs as line breaks);
a picture in it (<img>) is not imported: a warning names where it was.
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.bank.importers.common import ImportIssue
from bot.bank.importers.html_text import embedded_images, images_not_imported, to_text
from bot.bank.importers.mcq import Choice, Read
from bot.bank.importers.safe_xml import Element, XmlRefused, parse
from bot.bank.importers.source import SourceError, decode, read_bytes

_PATH_SEPARATOR = re.compile(r"(?<!/)/(?!/)")  # Moodle writes a "/" inside a name as "//"


def _text(parent: Element | None) -> str:
    if parent is None:
        return ""
    node = parent.find("text")
    raw = node.text if node is not None else ""
    return to_text(raw) if parent.attrs.get("format", "html") == "html" else raw


def _images_dropped(file: Path, parent: Element | None, column: str) -> list[ImportIssue]:
    """A warning for the <img> pictures of an HTML text, which `_text` drops with the tags."""
    if parent is None or parent.attrs.get("format", "html") != "html":
        return []
    node = parent.find("text")
    names = embedded_images(node.text) if node is not None else []
    if node is None or not names:
        return []
    return [ImportIssue(file, node.line, column, images_not_imported(names))]


def _plain(parent: Element | None, tag: str) -> str:
    node = parent.find(tag) if parent is not None else None
    return node.text.strip() if node is not None else ""


def _flag(value: str) -> bool | None:
    return {"1": True, "true": True, "0": False, "false": False}.get(value.strip().lower())


def category_name(path: str) -> str:
    """The last part of a Moodle category path: "$course$/top/Fine tuning" -> "Fine tuning"."""
    parts = [p.replace("//", "/") for p in _PATH_SEPARATOR.split(path.strip()) if p]
    if parts[:1] and parts[0].startswith("$") and parts[0].endswith("$"):
        parts = parts[1:]  # $course$, $system$...: where the category lives, not its name
    if parts[:1] == ["top"]:
        parts = parts[1:]
    return parts[-1].strip() if parts else ""


def _question(file: Path, node: Element, topic: tuple[str, str]) -> Read:
    read = Read(
        file,
        node.line,
        _text(node.find("questiontext")),
        [],
        explanation=_text(node.find("generalfeedback")),
        topic_name=topic[0],
        topic_id=topic[1],
        qid=_plain(node, "idnumber") or _text(node.find("name")).strip(),
        shuffle=_flag(_plain(node, "shuffleanswers")),
    )
    single = _flag(_plain(node, "single"))
    read.multiple = None if single is None else not single
    for name in ("questiontext", "generalfeedback"):
        found = node.find(name)
        if found is not None:
            column = {"questiontext": "stem"}.get(name, "explanation")
            read.lines[column] = found.line
            read.warnings += _images_dropped(file, found, column)
    for answer in node.findall("answer"):
        index = len(read.choices)
        try:
            fraction = float(answer.attrs.get("fraction", "0"))
        except ValueError:
            read.issues.append(
                ImportIssue(file, answer.line, f"options.{index}.correct", "fraction not a number")
            )
            fraction = 0.0
        partial = single is not False and 0 < fraction < 100
        if partial:
            read.issues.append(
                ImportIssue(
                    file,
                    answer.line,
                    f"options.{index}.correct",
                    f"partial credit ({fraction:g}%) in a single-answer question: "
                    "a question here has one right option (100) or several (<single>false)",
                )
            )
        read.warnings += _images_dropped(file, answer, f"options.{index}.text")
        read.warnings += _images_dropped(
            file, answer.find("feedback"), f"options.{index}.rationale"
        )
        read.choices.append(
            Choice(
                _text(answer),
                fraction > 0 and not partial,  # reported once, not again as a second key
                _text(answer.find("feedback")),
                answer.line,
            )
        )
    tags = node.find("tags")
    read.tags = [_text(tag).strip() for tag in tags.findall("tag")] if tags is not None else []
    return read


def read_moodle(
    path: Path, skip_unsupported: bool = False
) -> tuple[list[Read], list[ImportIssue], list[ImportIssue]]:
    """(questions, problems, skipped questions of other types) of a Moodle XML file."""
    try:
        data = read_bytes(path)
        decode(data)  # Moodle writes UTF-8; a bad byte is named by its line before parsing
        root = parse(data)
    except SourceError as exc:
        return [], [ImportIssue(path, exc.line, None, str(exc))], []
    except XmlRefused as exc:
        return [], [ImportIssue(path, exc.line, None, str(exc))], []
    if root.tag != "quiz":
        return [], [ImportIssue(path, root.line, None, f"<{root.tag}> is not Moodle's <quiz>")], []
    reads: list[Read] = []
    issues: list[ImportIssue] = []
    skipped: list[ImportIssue] = []
    topic = ("", "")
    for node in root.findall("question"):
        kind = node.attrs.get("type", "")
        if kind == "category":
            # A path, not HTML: "A &amp; B" in it is what the name says.
            topic = (
                category_name(_plain(node.find("category"), "text")),
                _plain(node, "idnumber"),
            )
        elif kind == "multichoice":
            reads.append(_question(path, node, topic))
        else:
            name = _text(node.find("name")).strip()
            message = f"a {kind or 'typeless'} question ({name or 'no name'}): only multichoice"
            (skipped if skip_unsupported else issues).append(
                ImportIssue(path, node.line, "type", message + " is imported")
            )
    if not reads and not issues:
        issues.append(ImportIssue(path, root.line, None, "no multichoice question in the file"))
    return reads, issues, skipped
