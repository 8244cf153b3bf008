"""Read an Anki package (.apkg): a zip holding the collection, an SQLite database of notes.

Each note's fields are mapped to parts of a question with `--map FIELD=ROLE` (field names as
in Anki, any case):
  stem          the question                                                  (required)
  options       the options: one field with one option per line, or several fields mapped
                to options, one option each, in the order given                (required)
  answer        the right option(s): letters (B, or A,C), numbers (2), an option's text, or
                its whole choice line (B. banana)
                                                                               (required)
  explanation   why the right answer is right
  rationales    one line per option, in the options' order: each option's rationale
  topic         the topic; without it, the note's deck (its last part after ::)
The note's tags become its tags. A note whose type lacks a mapped field, or whose fields do
not make a question, is listed by its id; nothing is written while any is (or, with
--skip-unsupported, those notes are listed as skipped). A picture (<img>) or a sound
([sound:...]) in a mapped field is not imported: a warning names the note and the field.
"""

from __future__ import annotations

import json
import re
import sqlite3
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.bank.importers.common import ImportIssue, strip
from bot.bank.importers.html_text import embedded_images, images_not_imported, to_text
from bot.bank.importers.mcq import Choice, Read
from bot.bank.importers.safe_zip import ZipRefused, checked_entries, extract
from bot.bank.importers.source import SourceError, read_bytes
from bot.bank.models import LETTERS
from bot.plural import plural

ROLES = ("stem", "options", "answer", "explanation", "rationales", "topic")
REQUIRED_ROLES = ("stem", "options", "answer")
# Newest first: an export for older versions keeps a stub collection.anki2 beside the real one.
COLLECTIONS = ("collection.anki21", "collection.anki2")
# SQLite virtual-machine steps allowed for reading a collection: a crafted database (a view
# with a runaway recursive query, say) cannot keep the import busy.
MAX_QUERY_STEPS = 50_000_000
# "B. text" or "2) text": a choice line's label, dropped when the lines are labelled in order.
_LABEL = re.compile(r"^\s*([A-La-l]|1[0-2]|[1-9])[.)]\s+")
# Anki's sound and video reference: played on a card, with nothing to play it in Telegram.
_SOUND = re.compile(r"\[sound:([^\]]*)\]")
_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "boolean"}


@dataclass
class FieldMap:
    """Anki field names (case-folded) for each role; options may take several fields."""

    roles: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, pairs: Sequence[tuple[str, str]]) -> FieldMap:
        mapping = cls()
        for name, role in pairs:
            mapping.roles.setdefault(role, []).append(name.casefold())
        return mapping


@dataclass(frozen=True)
class _Note:
    id: int
    fields: dict[str, str]
    tags: list[str]
    deck: str


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    conn.execute("PRAGMA trusted_schema = OFF")  # no functions run from a view or trigger
    steps = [0]

    def budget() -> int:
        steps[0] += 1
        return 1 if steps[0] * 1000 > MAX_QUERY_STEPS else 0

    conn.set_progress_handler(budget, 1000)
    return conn


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _col_json(conn: sqlite3.Connection, column: str) -> dict[str, Any]:
    """The JSON object the legacy schema keeps in one column of `col` (models or decks).

    ValueError when it is not one: a list there, or arrays nested deep enough to exhaust the
    JSON decoder's recursion (a stored zip entry makes that cheap), is a crafted collection.
    """
    row = conn.execute(f"SELECT {column} FROM col").fetchone()
    if row is None:
        raise ValueError("its col table is empty")
    try:
        value = json.loads(row[0])
    except RecursionError:
        raise ValueError(f"col.{column} is JSON nested too deeply") from None
    if not isinstance(value, dict):
        kind = _JSON_KINDS.get(type(value), "value")
        raise ValueError(f"col.{column} is a JSON {kind}, not an object of {column} by id")
    return value


def _field_names(conn: sqlite3.Connection) -> dict[int, list[str]]:
    """Field names of each note type, in their order."""
    if "fields" in _tables(conn):  # the schema of Anki 2.1.28 and later
        names: dict[int, list[str]] = {}
        for ntid, name in conn.execute("SELECT ntid, name FROM fields ORDER BY ntid, ord"):
            names.setdefault(int(ntid), []).append(str(name))
        return names
    models = _col_json(conn, "models")
    return {
        int(mid): [str(f["name"]) for f in sorted(model["flds"], key=lambda f: f["ord"])]
        for mid, model in models.items()
    }


def _deck_names(conn: sqlite3.Connection) -> dict[int, str]:
    if "decks" in _tables(conn):
        rows = conn.execute("SELECT id, name FROM decks").fetchall()
        return {int(i): str(n).replace("\x1f", "::") for i, n in rows}
    decks = _col_json(conn, "decks")
    return {int(i): str(d["name"]) for i, d in decks.items()}


def _notes(conn: sqlite3.Connection) -> list[_Note]:
    types, decks = _field_names(conn), _deck_names(conn)
    deck_of = dict(conn.execute("SELECT nid, MIN(did) FROM cards GROUP BY nid").fetchall())
    notes = []
    for nid, mid, tags, flds in conn.execute("SELECT id, mid, tags, flds FROM notes ORDER BY id"):
        names = types.get(int(mid), [])
        values = str(flds).split("\x1f")
        notes.append(
            _Note(
                int(nid),
                {n.casefold(): v for n, v in zip(names, values, strict=False)},
                str(tags).split(),
                decks.get(int(deck_of.get(nid, 0)), ""),
            )
        )
    return notes


def _plain(fragment: str) -> str:
    return strip(_SOUND.sub("", to_text(fragment)))


def _lines(fragment: str) -> list[str]:
    return [strip(line) for line in _plain(fragment).split("\n") if strip(line)]


def _label_index(label: str) -> int:
    return int(label) - 1 if label.isdecimal() else LETTERS.index(label.upper())


def _option_texts(note: _Note, names: list[str]) -> list[str]:
    if len(names) > 1:
        return [t for t in (_plain(note.fields[n]) for n in names) if t]
    lines = _lines(note.fields[names[0]])
    labels = [_LABEL.match(line) for line in lines]
    if all(labels) and [_label_index(m.group(1)) for m in labels if m] == list(range(len(lines))):
        return [line[m.end() :] for line, m in zip(lines, labels, strict=True) if m]
    return lines


def _key(answer: str, options: list[str]) -> set[int] | str:
    """Indices of the right options, or why the answer names none."""
    folded = [o.casefold() for o in options]
    if answer.casefold() in folded:
        return {folded.index(answer.casefold())}
    labelled = _LABEL.match(answer)
    if labelled and answer[labelled.end() :].casefold() in folded:
        # A choice line copied whole, label and all ("B. banana").
        return {folded.index(answer[labelled.end() :].casefold())}
    picked: set[int] = set()
    for token in (t for t in re.split(r"[,;\s]+", answer) if t):
        # isdecimal, not isdigit: "²" is a digit that int() refuses.
        if token.isdecimal() and 1 <= int(token) <= len(options):
            picked.add(int(token) - 1)
        elif len(token) == 1 and token.upper() in LETTERS[: len(options)]:
            picked.add(LETTERS.index(token.upper()))
        else:
            return f"{answer!r} is no option's letter, number or text"
    return picked or "empty"


def _read_note(path: Path, note: _Note, mapping: FieldMap) -> Read | str:
    missing = [n for names in mapping.roles.values() for n in names if n not in note.fields]
    if missing:
        return f"its note type has no field {', '.join(missing)}"

    def text(role: str) -> str:
        return "\n".join(_plain(note.fields[n]) for n in mapping.roles.get(role, []))

    options = _option_texts(note, mapping.roles["options"])
    if len(options) < 2:
        return f"options: {plural(len(options), 'option')} found, a question needs at least 2"
    key = _key(strip(text("answer")), options)
    if isinstance(key, str):
        return f"answer: {key}"
    rationales = [
        line for n in mapping.roles.get("rationales", []) for line in _lines(note.fields[n])
    ]
    if rationales and len(rationales) != len(options):
        return f"rationales: {plural(len(rationales), 'line')} for {len(options)} options"
    rationales += [""] * (len(options) - len(rationales))
    choices = [
        Choice(o, i in key, r) for i, (o, r) in enumerate(zip(options, rationales, strict=True))
    ]
    topic = text("topic") if "topic" in mapping.roles else note.deck.split("::")[-1]
    warnings = [
        ImportIssue(path, None, f"note {note.id}: {role}", images_not_imported(names))
        for role, fields in mapping.roles.items()
        if (names := [n for f in fields for n in embedded_images(note.fields[f])])
    ]
    warnings += [
        ImportIssue(
            path, None, f"note {note.id}: {role}", f"a sound ({', '.join(sounds)}) is not imported"
        )
        for role, fields in mapping.roles.items()
        if (sounds := [n for f in fields for n in _SOUND.findall(note.fields[f])])
    ]
    return Read(
        path,
        None,
        text("stem"),
        choices,
        explanation=text("explanation"),
        topic_name=topic,
        multiple=len(key) > 1,
        tags=note.tags,
        where=f"note {note.id}",
        warnings=warnings,
    )


def read_anki(
    path: Path, mapping: FieldMap, skip_unsupported: bool = False
) -> tuple[list[Read], list[ImportIssue], list[ImportIssue]]:
    """(questions, problems, skipped notes) of an .apkg file."""
    lacking = [role for role in REQUIRED_ROLES if role not in mapping.roles]
    if lacking:
        message = "--map FIELD=ROLE names no field for " + ", ".join(lacking)
        return [], [ImportIssue(path, None, None, message)], []
    try:
        archive = checked_entries(read_bytes(path))
        names = set(archive.namelist())
        member = next((n for n in COLLECTIONS if n in names), None)
        if member is None:
            hint = (
                "; export it again with 'Support older Anki versions' ticked"
                if "collection.anki21b" in names
                else ""
            )
            raise ZipRefused(f"no Anki collection (collection.anki21 or .anki2) inside{hint}")
        with tempfile.TemporaryDirectory(prefix="quizbot-anki-") as tmp:
            copy = Path(tmp) / "collection.sqlite"
            extract(archive, member, copy)
            conn = _connect(copy)
            try:
                notes = _notes(conn)
            finally:
                conn.close()
    except (SourceError, ZipRefused) as exc:
        return [], [ImportIssue(path, None, None, str(exc))], []
    except (sqlite3.Error, ValueError, KeyError, TypeError) as exc:
        message = f"the collection inside is not an Anki database Anki wrote ({exc})"
        return [], [ImportIssue(path, None, None, message)], []
    reads: list[Read] = []
    issues: list[ImportIssue] = []
    skipped: list[ImportIssue] = []
    for note in notes:
        read = _read_note(path, note, mapping)
        if isinstance(read, Read):
            reads.append(read)
        else:
            target = skipped if skip_unsupported else issues
            target.append(ImportIssue(path, None, f"note {note.id}", read))
    if not reads and not issues:
        issues.append(ImportIssue(path, None, None, "no notes in the collection"))
    return reads, issues, skipped
