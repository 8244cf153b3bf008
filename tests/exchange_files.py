"""Exchange-format files written for the import tests: Moodle XML, GIFT, Aiken and Anki
packages (a zip holding an SQLite collection built here with the stdlib)."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from collections.abc import Sequence
from pathlib import Path

MOODLE = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="category">
    <category><text>$course$/top/Course bank/Retrieval augmented generation</text></category>
    <idnumber>rag</idnumber>
  </question>
  <question type="multichoice">
    <name><text>rag-chunk-overlap</text></name>
    <questiontext format="html">
      <text><![CDATA[<p>Why do chunkers overlap <b>adjacent</b> chunks?</p>]]></text>
    </questiontext>
    <generalfeedback format="html">
      <text>Overlap keeps a sentence that straddles a boundary whole in one chunk.</text>
    </generalfeedback>
    <single>true</single>
    <shuffleanswers>0</shuffleanswers>
    <answer fraction="100" format="html">
      <text>So a fact cut at a boundary still appears whole somewhere</text>
      <feedback format="html"><text>Right: the overlap repeats each chunk's edge.</text></feedback>
    </answer>
    <answer fraction="0" format="html">
      <text>To make the index smaller on disk overall</text>
      <feedback format="html">
        <text>Overlap repeats text &amp; so the index grows.</text>
      </feedback>
    </answer>
    <answer fraction="0" format="html">
      <text>To let the embedding model skip tokenisation</text>
      <feedback format="html"><text>Every chunk is still tokenised.</text></feedback>
    </answer>
    <tags><tag><text>Chunking</text></tag></tags>
  </question>
  <question type="category">
    <category><text>$course$/top/Evaluation</text></category>
  </question>
  <question type="multichoice">
    <name><text>Judges, two picks</text></name>
    <questiontext format="plain_text">
      <text>Which two habits make an LLM judge fairer?</text>
    </questiontext>
    <generalfeedback format="html"><text>Swap positions and hide names.</text></generalfeedback>
    <single>false</single>
    <answer fraction="50"><text>Ask twice with the answers swapped</text>
      <feedback><text>Position bias averages out.</text></feedback></answer>
    <answer fraction="50"><text>Hide which model wrote each answer</text>
      <feedback><text>Self-preference needs the name.</text></feedback></answer>
    <answer fraction="-100"><text>Always prefer the longer answer</text>
      <feedback><text>Length is the bias to avoid.</text></feedback></answer>
  </question>
</quiz>
"""

GIFT = r"""// Written for the tests.
// [topic:rag]
$CATEGORY: $course$/top/Retrieval augmented generation

// [id:rag-rerank-stage] [tag:reranking]
::Rerank:: Where does a cross-encoder reranker sit in a RAG pipeline? {
	=After retrieval, rescoring the top candidates
		# It reads query and passage together\: too slow for the whole index.
	~Before retrieval, rewriting the query # That is query rewriting, another step.
	~Inside the vector index, replacing it # A reranker needs candidates to rescore.
	####Retrieve many cheaply, then rerank the few with the costlier model.
}

$CATEGORY: $course$/top/Evaluation

::Two picks:: Which two metrics need a reference answer\? {
	~%50%BLEU # It counts n-grams shared with a reference.
	~%50%ROUGE-L # The longest common subsequence with a reference.
	~%-100%Perplexity # It needs only the model's probabilities.
	#### BLEU and ROUGE compare with references; perplexity does not.
}
"""

AIKEN = """Which adapter trains the fewest parameters?
A. Full fine-tuning of every layer
B) LoRA with rank 8 on the attention projections
C. Continued pre-training on domain text
ANSWER: B

Which two settings make decoding deterministic?
A. Greedy decoding
B. Temperature 1.5
C. A fixed seed with sampling
ANSWER: A, C
"""

# Anki's legacy schema (collection.anki2), the part the importer reads.
_LEGACY_SCHEMA = """
CREATE TABLE col (id integer primary key, models text not null, decks text not null);
CREATE TABLE notes (id integer primary key, guid text, mid integer not null, mod integer,
    usn integer, tags text not null, flds text not null, sfld integer, csum integer,
    flags integer, data text);
CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null,
    ord integer, mod integer, usn integer, type integer, queue integer, due integer,
    ivl integer, factor integer, reps integer, lapses integer, left integer, odue integer,
    odid integer, flags integer, data text);
"""
# The newer schema keeps note types, fields and decks in tables of their own.
_NEW_SCHEMA = """
CREATE TABLE col (id integer primary key, models text not null, decks text not null);
CREATE TABLE notes (id integer primary key, guid text, mid integer not null, mod integer,
    usn integer, tags text not null, flds text not null, sfld integer, csum integer,
    flags integer, data text);
CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null);
CREATE TABLE notetypes (id integer primary key, name text not null);
CREATE TABLE fields (ntid integer not null, ord integer not null, name text not null,
    config blob, primary key (ntid, ord));
CREATE TABLE decks (id integer primary key, name text not null);
"""
MCQ_TYPE = 1_500_000_000_001
BASIC_TYPE = 1_500_000_000_002
DECK = 1_600_000_000_001
MCQ_FIELDS = ("Question", "Choices", "Correct", "Extra", "Why")
BASIC_FIELDS = ("Front", "Back")
NOTES: list[tuple[int, int, str, Sequence[str]]] = [
    (
        1001,
        MCQ_TYPE,
        "peft lora",
        (
            "Which method freezes the base weights and learns <i>low-rank</i> updates?",
            "A. Full fine-tuning<br>B. LoRA<br>C. Prompt caching",
            "B",
            "LoRA adds trainable low-rank matrices beside frozen weights.",
            "Every weight changes there.<br>Only the small matrices train.<br>Caching trains "
            "nothing.",
        ),
    ),
    (
        1002,
        MCQ_TYPE,
        "",
        (
            "Which two reduce a model's memory at inference?",
            "<div>Weight quantization</div><div>A longer context</div><div>KV-cache paging</div>",
            "A, C",
            "Fewer bits per weight and paged caches both save memory.",
            "Fewer bytes per weight.<br>More tokens cost more memory.<br>Less waste per sequence.",
        ),
    ),
]
BASIC_NOTE = (1003, BASIC_TYPE, "", ("What does RAG stand for?", "Retrieval-augmented generation"))


def _collection(
    path: Path, notes: Sequence[tuple[int, int, str, Sequence[str]]], new: bool
) -> None:
    types = {MCQ_TYPE: ("Multiple choice", MCQ_FIELDS), BASIC_TYPE: ("Basic", BASIC_FIELDS)}
    with sqlite3.connect(path) as conn:
        conn.executescript(_NEW_SCHEMA if new else _LEGACY_SCHEMA)
        models = {
            str(mid): {"name": name, "flds": [{"name": f, "ord": i} for i, f in enumerate(fs)]}
            for mid, (name, fs) in types.items()
        }
        decks = {str(DECK): {"name": "Exam prep::Fine tuning"}}
        conn.execute("INSERT INTO col VALUES (1, ?, ?)", (json.dumps(models), json.dumps(decks)))
        if new:
            for mid, (name, fs) in types.items():
                conn.execute("INSERT INTO notetypes VALUES (?, ?)", (mid, name))
                conn.executemany(
                    "INSERT INTO fields VALUES (?, ?, ?, NULL)",
                    [(mid, i, f) for i, f in enumerate(fs)],
                )
            conn.execute("INSERT INTO decks VALUES (?, ?)", (DECK, "Exam prep\x1fFine tuning"))
        for nid, mid, tags, fields in notes:
            conn.execute(
                "INSERT INTO notes (id, guid, mid, mod, usn, tags, flds, sfld, csum, flags,"
                " data) VALUES (?, ?, ?, 0, 0, ?, ?, 0, 0, 0, '')",
                (nid, f"g{nid}", mid, f" {tags} " if tags else "", "\x1f".join(fields)),
            )
            conn.execute("INSERT INTO cards (id, nid, did) VALUES (?, ?, ?)", (nid + 1, nid, DECK))
    conn.close()


def apkg(
    path: Path,
    notes: Sequence[tuple[int, int, str, Sequence[str]]] = NOTES,
    *,
    new_schema: bool = False,
    member: str = "collection.anki21",
) -> Path:
    """An Anki package holding these notes, as Anki exports it (plus its media list)."""
    db = path.with_suffix(".sqlite")
    _collection(db, notes, new_schema)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(db, member)
        archive.writestr("media", "{}")
    db.unlink()
    return path


def apkg_with_col(folder: Path, column: str, value: str) -> Path:
    """The test package with one JSON column of its `col` row replaced, stored uncompressed
    (a crafted package need not deflate: 400 KB of brackets cost nothing to ship)."""
    deck = apkg(folder / "deck.apkg")
    db = folder / "collection.sqlite"
    with zipfile.ZipFile(deck) as archive:
        db.write_bytes(archive.read("collection.anki21"))
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(f"UPDATE col SET {column} = ?", (value,))
    conn.close()
    crafted = folder / "crafted.apkg"
    with zipfile.ZipFile(crafted, "w", zipfile.ZIP_STORED) as archive:
        archive.write(db, "collection.anki21")
    return crafted
