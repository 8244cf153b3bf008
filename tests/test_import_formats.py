"""`quizbot import moodle|gift|aiken|anki`: each format's fields land where they belong, and any
problem leaves the bank folder exactly as it was."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.bank.importers import gift
from bot.bank.loader import load_bank
from bot.bank.models import Bank
from bot.cli import main
from tests import exchange_files as fx


def run(
    capsys: pytest.CaptureFixture[str], fmt: str, file: Path, out: Path, *extra: str
) -> tuple[int, str, list[str]]:
    code = main(["import", fmt, str(file), "--bank", "fx", "--out", str(out), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err.splitlines()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under the folder (a missing folder is empty)."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def options(bank: Bank, qid: str) -> list[tuple[str, bool, str]]:
    return [(o.text, o.correct, o.rationale) for o in bank.questions[qid].options]


def test_moodle_xml_maps_every_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fx"
    code, printed, err = run(capsys, "moodle", write(tmp_path / "q.xml", fx.MOODLE), out)
    assert code == 0, err
    assert "2 question files written; bank.yaml written; 1 multiple-answer" in printed
    bank = load_bank(out)
    assert [(t.id, t.name) for t in bank.meta.topics] == [
        ("rag", "Retrieval augmented generation"),
        ("evaluation", "Evaluation"),
    ]
    q = bank.questions["rag-chunk-overlap"]
    assert q.stem == "Why do chunkers overlap adjacent chunks?"  # HTML read as text
    assert (q.topic, q.kind, q.shuffle, q.tags) == ("rag", "single", False, ["chunking"])
    assert (
        q.explanation == "Overlap keeps a sentence that straddles a boundary whole in one chunk."
    )
    assert options(bank, q.id)[1] == (
        "To make the index smaller on disk overall",
        False,
        "Overlap repeats text & so the index grows.",
    )
    judged = next(q for q in bank.questions.values() if q.topic == "evaluation")
    assert judged.kind == "multiple" and judged.shuffle
    assert [o.correct for o in judged.options] == [True, True, False]
    assert judged.options[2].rationale == "Length is the bias to avoid."
    # A second import changes nothing and says so.
    code, printed, _ = run(capsys, "moodle", tmp_path / "q.xml", out)
    assert code == 0 and "0 question files written; 2 unchanged" in printed


def test_gift_maps_every_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fx"
    code, _, err = run(capsys, "gift", write(tmp_path / "q.gift", fx.GIFT), out)
    assert code == 0, err
    bank = load_bank(out)
    assert [(t.id, t.name) for t in bank.meta.topics] == [
        ("rag", "Retrieval augmented generation"),
        ("evaluation", "Evaluation"),
    ]
    q = bank.questions["rag-rerank-stage"]
    assert q.stem == "Where does a cross-encoder reranker sit in a RAG pipeline?"
    assert q.tags == ["reranking"] and q.kind == "single"
    assert options(bank, q.id)[0] == (
        "After retrieval, rescoring the top candidates",
        True,
        "It reads query and passage together: too slow for the whole index.",  # \: unescaped
    )
    assert q.explanation == "Retrieve many cheaply, then rerank the few with the costlier model."
    # A title that is no id ("Two picks") leaves the id to be derived from topic and stem.
    two = next(q for q in bank.questions.values() if q.topic == "evaluation")
    assert two.stem == "Which two metrics need a reference answer?"
    assert two.kind == "multiple" and [o.correct for o in two.options] == [True, True, False]
    assert two.options[2].rationale == "It needs only the model's probabilities."


def test_aiken_needs_a_topic_and_the_texts_it_cannot_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = write(tmp_path / "q.txt", fx.AIKEN)
    out = tmp_path / "fx"
    code, _, err = run(capsys, "aiken", file, out)
    assert code == 1 and snapshot(out) == {}
    assert f"{file}:1: topic: required" in err
    code, _, err = run(capsys, "aiken", file, out, "--topic", "Fine tuning")
    assert code == 1 and snapshot(out) == {}
    assert f"{file}:2: options.0.rationale: Field required" in err
    assert f"{file}:1: explanation: Field required" in err
    assert any("--fill-missing TEXT" in line for line in err)
    code, printed, err = run(
        capsys, "aiken", file, out, "--topic", "Fine tuning", "--fill-missing", "To be written."
    )
    assert code == 0, err
    assert "--fill-missing stood in for 6 rationales and 2 explanations" in printed
    bank = load_bank(out)
    assert {q.topic for q in bank.questions.values()} == {"fine-tuning"}
    lora = next(q for q in bank.questions.values() if q.stem.startswith("Which adapter"))
    assert [o.correct for o in lora.options] == [False, True, False]
    assert lora.options[1].text == "LoRA with rank 8 on the attention projections"
    greedy = next(q for q in bank.questions.values() if q.kind == "multiple")
    assert [o.correct for o in greedy.options] == [True, False, True]


def test_aiken_problems_name_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "First?\nA. One thing\nC. Two things\nANSWER: D\n\nSecond?\nA. Yes indeed\n"
    file = write(tmp_path / "q.txt", text)
    code, _, err = run(
        capsys, "aiken", file, tmp_path / "fx", "--topic", "t", "--fill-missing", "x"
    )
    assert code == 1
    assert err[:-1] == [
        f"{file}:3: options.1: option C where B was expected",
        f"{file}:4: options: ANSWER 'D' is not one of the options",
        f"{file}:6: correct: the question ends without ANSWER:",
    ]


@pytest.mark.parametrize("new_schema", [False, True])
def test_anki_notes_mapped_by_field(
    new_schema: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = fx.apkg(tmp_path / "deck.apkg", new_schema=new_schema)
    maps = [
        "--map", "Question=stem",
        "--map", "choices=options",
        "--map", "Correct=answer",
        "--map", "Extra=explanation",
        "--map", "Why=rationales",
    ]  # fmt: skip
    code, _, err = run(capsys, "anki", deck, tmp_path / "fx", *maps)
    assert code == 0, err
    bank = load_bank(tmp_path / "fx")
    assert [(t.id, t.name) for t in bank.meta.topics] == [("fine-tuning", "Fine tuning")]
    lora = next(q for q in bank.questions.values() if "low-rank" in q.stem)
    assert lora.stem == "Which method freezes the base weights and learns low-rank updates?"
    assert options(bank, lora.id) == [
        ("Full fine-tuning", False, "Every weight changes there."),
        ("LoRA", True, "Only the small matrices train."),
        ("Prompt caching", False, "Caching trains nothing."),
    ]
    assert lora.tags == ["peft", "lora"]
    memory = next(q for q in bank.questions.values() if q.kind == "multiple")
    assert [o.text for o in memory.options][1] == "A longer context"  # <div> per line
    assert [o.correct for o in memory.options] == [True, False, True]


def test_anki_notes_that_do_not_fit_are_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = fx.apkg(tmp_path / "deck.apkg", [*fx.NOTES, fx.BASIC_NOTE])
    maps = ["--map", "Question=stem", "--map", "Choices=options", "--map", "Correct=answer"]
    maps += ["--fill-missing", "To be written."]
    code, _, err = run(capsys, "anki", deck, tmp_path / "fx", *maps)
    assert code == 1 and snapshot(tmp_path / "fx") == {}
    assert err[0] == f"{deck}: note 1003: its note type has no field question, choices, correct"
    code, printed, err = run(capsys, "anki", deck, tmp_path / "fx", *maps, "--skip-unsupported")
    assert code == 0
    assert err[0].startswith(f"skipped: {deck}: note 1003: its note type has no field")
    assert "2 question files written" in printed
    # Without the required roles, nothing is read at all.
    code, _, err = run(capsys, "anki", deck, tmp_path / "other", "--map", "Question=stem")
    assert code == 1
    assert err[0] == f"{deck}: --map FIELD=ROLE names no field for options, answer"


def test_anki_bad_answer_names_the_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = (1004, fx.MCQ_TYPE, "", ("Which?", "A. One thing<br>B. Another", "E", "", ""))
    deck = fx.apkg(tmp_path / "deck.apkg", [note])
    maps = ["--map", "Question=stem", "--map", "Choices=options", "--map", "Correct=answer"]
    code, _, err = run(capsys, "anki", deck, tmp_path / "fx", *maps)
    assert code == 1
    assert err[0] == f"{deck}: note 1004: answer: 'E' is no option's letter, number or text"


def test_anki_numbered_choices_a_whole_choice_line_as_answer_and_sounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stem = "Which adapter trains low-rank matrices?[sound:rank.mp3]"
    note = (1005, fx.MCQ_TYPE, "", (stem, "1. LoRA<br>2) Prompt caching", "1. LoRA", "", ""))
    deck = fx.apkg(tmp_path / "deck.apkg", [note])
    maps = ["--map", "Question=stem", "--map", "Choices=options", "--map", "Correct=answer"]
    code, _, err = run(capsys, "anki", deck, tmp_path / "fx", *maps, "--fill-missing", "x")
    assert code == 0, err
    assert err[0] == f"{deck}: note 1005: stem: a sound (rank.mp3) is not imported"
    [question] = load_bank(tmp_path / "fx").questions.values()
    assert question.stem == "Which adapter trains low-rank matrices?"
    assert [(o.text, o.correct) for o in question.options] == [
        ("LoRA", True),
        ("Prompt caching", False),
    ]


def test_a_problem_anywhere_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fx"
    assert run(capsys, "gift", write(tmp_path / "q.gift", fx.GIFT), out)[0] == 0
    before = snapshot(out)
    broken = fx.GIFT.replace("=After retrieval", "~After retrieval") + (
        "\n::New:: A new question that would be fine on its own? {\n"
        "\t=Yes it would # Right.\n\t~No it would not # Wrong.\n\t####Because.\n}\n"
    )
    file = write(tmp_path / "broken.gift", broken)
    code, _, err = run(capsys, "gift", file, out, "--force")
    assert code == 1
    assert any("options: no option is marked right" in line for line in err)
    assert err[-1].startswith("nothing written")
    assert snapshot(out) == before


def test_bank_problems_after_the_import_refuse_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The bank's own validation runs on the folder as it would be: an option tagged with a
    # misconception the bank does not declare is caught before anything is written.
    out = tmp_path / "fx"
    assert run(capsys, "gift", write(tmp_path / "q.gift", fx.GIFT), out)[0] == 0
    (out / "extra.yaml").write_text("id: broken\n", encoding="utf-8")
    before = snapshot(out)
    code, _, err = run(capsys, "moodle", write(tmp_path / "q.xml", fx.MOODLE), out)
    assert code == 1
    assert any(line.startswith(f"{out / 'extra.yaml'}:") for line in err), err
    assert snapshot(out) == before


def test_lint_warnings_are_printed_and_strict_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gift = (
        "$CATEGORY: Evaluation\n\n::lint-me:: Which option is the key here? {\n"
        "\t=The key option, which is by far the longest of all the options # Right.\n"
        "\t~Short one # Wrong.\n\t~Brief one # Wrong.\n\t####Because it is.\n}\n"
    )
    file = write(tmp_path / "q.gift", gift)
    code, _, err = run(capsys, "gift", file, tmp_path / "strict", "--strict")
    assert code == 1 and snapshot(tmp_path / "strict") == {}
    assert any("[key-longest]" in line for line in err)
    code, _, err = run(capsys, "gift", file, tmp_path / "fx")
    assert code == 0
    assert any("[key-longest]" in line and "lint-me.yaml" in line for line in err)
    assert "1 item-writing warning (--strict refuses them)" in err


def test_moodle_other_question_types_refuse_or_skip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = fx.MOODLE.replace(
        "</quiz>",
        '  <question type="truefalse">\n    <name><text>TF</text></name>\n  </question>\n</quiz>',
    )
    file = write(tmp_path / "q.xml", text)
    code, _, err = run(capsys, "moodle", file, tmp_path / "fx")
    assert code == 1 and snapshot(tmp_path / "fx") == {}
    line = text.splitlines().index('  <question type="truefalse">') + 1
    assert err[0] == (
        f"{file}:{line}: type: a truefalse question (TF): only multichoice is imported"
    )
    code, _, err = run(capsys, "moodle", file, tmp_path / "fx", "--skip-unsupported")
    assert code == 0 and err[0].startswith("skipped: ")


def test_gift_problems_name_their_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        "::tf:: The sky is green. {F}\n\n"
        "::partial:: Pick? {\n\t=Right one # Yes.\n\t~%50%Half right # Half.\n\t####E.\n}\n"
    )
    file = write(tmp_path / "q.gift", text)
    code, _, err = run(capsys, "gift", file, tmp_path / "fx", "--topic", "t")
    assert code == 1, err
    assert len(err) == 3
    assert err[0] == f"{file}:1: a true/false question: only multiple choice is imported"
    assert err[1].startswith(f"{file}:5: options.1.correct: partial credit (~%50%)")


def test_format_is_sniffed_and_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gift = write(tmp_path / "questions.txt", fx.GIFT)
    code, _, err = run(capsys, "aiken", gift, tmp_path / "fx")
    assert code == 1
    assert err == [
        f"{gift}: looks like GIFT, not Aiken: run `quizbot import gift`, or add --format "
        "aiken to read it as Aiken anyway"
    ]
    code, _, err = run(capsys, "aiken", gift, tmp_path / "fx", "--format", "gift")
    assert code == 0, err
    deck = fx.apkg(tmp_path / "deck.xml")
    code, _, err = run(capsys, "moodle", deck, tmp_path / "fx2")
    assert code == 1 and "looks like an Anki package" in err[0]


def test_gift_options_keep_their_lines_without_rebuilding_the_question_per_option(
    tmp_path: Path,
) -> None:
    # Work counted, not timed: placing each option on its line used to join the question's
    # lines again (2,000 options, 2,000 joins of an ever longer text: quadratic).
    lines = ["// Written for the tests.", "", "::t:: A stem that runs", "over two lines {"]
    expected = []
    for i in range(2_000):
        expected.append(len(lines) + 1)
        if i % 100 == 7:  # a rationale on a line of its own, then a comment line
            lines += [f"~option {i}", f"  # why {i}", "// a comment inside the question"]
        else:
            lines.append(f"{'=' if i == 0 else '~'}option {i} # why {i}")
    lines += ["#### because", "}"]
    file = write(tmp_path / "many.gift", "\n".join(lines) + "\n")
    joins = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal joins
        if event == "c_call" and getattr(arg, "__name__", "") == "join":
            joins += getattr(arg, "__self__", None) == "\n"

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        reads, issues, _ = gift.read_gift(file)
    finally:
        sys.setprofile(previous)
    assert issues == []
    [read] = reads
    assert [c.line for c in read.choices] == expected
    assert (read.line, read.lines) == (3, {"stem": 3, "explanation": len(lines) - 1})
    assert joins < 10


def test_gift_question_with_no_right_option_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        "::fine:: Fine? {=Yes # Right. ~No # Wrong. ####E.}\n\n::none:: Which? {~a # r ~b # r}\n"
    )
    file = write(tmp_path / "q.gift", text)
    code, _, err = run(
        capsys, "gift", file, tmp_path / "fx", "--topic", "t", "--fill-missing", "x"
    )
    assert code == 1 and snapshot(tmp_path / "fx") == {}
    assert err == [
        f"{file}:3: options: no option is marked right: mark the right one with = "
        "(or several right ones with ~%50% each)",
        "nothing written: 1 problem",
    ]


@pytest.mark.parametrize(
    "char", ["\u2028", "\f", "\u2029", "\x85", "\x1d"], ids=["ls", "ff", "ps", "nel", "gs"]
)
def test_aiken_lines_are_counted_at_line_feeds_only(
    char: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        f"First line{char}of the stem?\nA. one thing\nB. another\nANSWER: B\n\n"
        "Second question?\nA. first\nB. second\nANSWER: Z\n"
    )
    file = tmp_path / "q.txt"
    file.write_bytes(text.replace("\n", "\r\n").encode())  # a CR before each LF is no line
    code, _, err = run(
        capsys, "aiken", file, tmp_path / "fx", "--topic", "t", "--fill-missing", "x"
    )
    assert err == [
        f"{file}:9: options: ANSWER 'Z' is not one of the options",
        "nothing written: 1 problem",
    ]
    assert code == 1


def test_summary_names_the_topic_given_with_topic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = write(tmp_path / "q.txt", fx.AIKEN)
    extra = ["--topic", "Fine tuning", "--fill-missing", "To be written."]
    code, printed, err = run(capsys, "aiken", file, tmp_path / "fx", *extra)
    assert code == 0, err
    assert printed.splitlines()[-1] == "  by topic: Fine tuning 2"


IMAGE_NOTE = (
    "is not imported: put the picture in the bank folder and name it in the question's image: "
    "field"
)


def test_moodle_embedded_images_are_warned_of_and_strict_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The figure a stem refers to goes with the tags: the author is told where it was.
    stem = (
        "<text><![CDATA[<p>Why do chunkers overlap <b>adjacent</b> chunks?</p><p><img "
        'src="@@PLUGINFILE@@/chunk%20overlap.png" alt="two chunks"></p>]]></text>\n'
        '      <file name="chunk overlap.png" path="/" encoding="base64">iVBORw0KGgo=</file>'
    )
    text = fx.MOODLE.replace(
        "<text><![CDATA[<p>Why do chunkers overlap <b>adjacent</b> chunks?</p>]]></text>", stem
    ).replace(
        "<text>Every chunk is still tokenised.</text>",
        "<text>Every chunk is still tokenised. &lt;IMG SRC='tokens.png'&gt;"
        "&lt;img src=x.gif&gt;</text>",
    )
    file = write(tmp_path / "q.xml", text)
    lines = text.splitlines()
    stem_line = next(i for i, line in enumerate(lines, 1) if "chunk%20overlap.png" in line)
    feedback_line = next(i for i, line in enumerate(lines, 1) if "tokens.png" in line)
    expected = [
        f"{file}:{stem_line}: stem: an embedded image (chunk overlap.png) {IMAGE_NOTE}",
        f"{file}:{feedback_line}: options.2.rationale: embedded images (tokens.png, x.gif) are "
        "not imported (a question shows one picture): put it in the bank folder and name it in "
        "the question's image: field",
    ]
    code, _, err = run(capsys, "moodle", file, tmp_path / "strict", "--strict")
    assert code == 1 and snapshot(tmp_path / "strict") == {}
    assert err[:2] == expected
    code, _, err = run(capsys, "moodle", file, tmp_path / "fx")
    assert code == 0, err
    assert err[:2] == expected
    assert "2 import warnings (--strict refuses them)" in err


def test_gift_and_anki_embedded_images_are_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gift_text = fx.GIFT.replace(
        "::Rerank:: Where", '::Rerank:: [html]<img src\\="@@PLUGINFILE@@/rag.png"> Where'
    )
    file = write(tmp_path / "q.gift", gift_text)
    line = gift_text.splitlines().index(next(t for t in gift_text.splitlines() if "rag.png" in t))
    code, _, err = run(capsys, "gift", file, tmp_path / "gift")
    assert code == 0, err
    assert err == [
        f"{file}:{line + 1}: stem: an embedded image (rag.png) {IMAGE_NOTE}",
        "1 import warning (--strict refuses them)",
    ]
    nid, mid, tags, fields = fx.NOTES[0]
    stem = fields[0] + '<br><img src="paste-7f3a.jpg">'
    deck = fx.apkg(tmp_path / "deck.apkg", [(nid, mid, tags, [stem, *fields[1:]])])
    maps = ["--map", "Question=stem", "--map", "Choices=options", "--map", "Correct=answer"]
    maps += ["--map", "Extra=explanation", "--map", "Why=rationales"]
    code, _, err = run(capsys, "anki", deck, tmp_path / "anki", *maps)
    assert code == 0, err
    assert err == [
        f"{deck}: note 1001: stem: an embedded image (paste-7f3a.jpg) {IMAGE_NOTE}",
        "1 import warning (--strict refuses them)",
    ]


def test_gift_answers_and_feedback_are_in_the_question_texts_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Moodle's own GIFT export writes [html] once, before the question text; its answers and
    # feedback are HTML too, unless they mark a format of their own.
    file = write(
        tmp_path / "export.gift",
        "::lora-rank::[html]<p>Which statement about <strong>LoRA</strong> is true?</p>{\n"
        "\t=<p>It trains far fewer parameters</p>#<p>Right\\: 2rd &lt; d·d.</p>\n"
        "\t~<p>It slows inference</p>#<p>No, adapters <b>merge</b>.</p>\n"
        "\t~[plain]<p> is a tag#[markdown]A *plain* option, kept as written.\n"
        "\t####<p>LoRA trains <em>A</em> and <em>B</em>.</p>\n"
        "}\n",
    )
    code, _, err = run(capsys, "gift", file, tmp_path / "out", "--topic", "LoRA")
    assert code == 0, err
    question = load_bank(tmp_path / "out").questions["lora-rank"]
    assert question.stem == "Which statement about LoRA is true?"
    assert options(load_bank(tmp_path / "out"), "lora-rank") == [
        ("It trains far fewer parameters", True, "Right: 2rd < d·d."),
        ("It slows inference", False, "No, adapters merge."),
        ("<p> is a tag", False, "A *plain* option, kept as written."),
    ]
    assert question.explanation == "LoRA trains A and B."


def test_moodle_html_keeps_exponents_indices_and_table_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stem = (
        "<p>Self-attention over n tokens costs O(n<sup>2</sup>). Given the table</p>"
        "<table><tr><td>GPU</td><td>Memory</td></tr>\n<tr><td>H100</td><td>80 GB</td></tr>"
        "</table><p>which is true of x<sub>1</sub>?</p>"
    )
    xml = fx.MOODLE.replace("<![CDATA[<p>Why do chunkers", f"<![CDATA[{stem}<p>Why do chunkers", 1)
    assert xml != fx.MOODLE
    code, _, err = run(capsys, "moodle", write(tmp_path / "q.xml", xml), tmp_path / "out")
    assert code == 0, err
    [question] = [q for q in load_bank(tmp_path / "out").questions.values() if "O(n" in q.stem]
    # They read "O(n2)" and "H10080 GB" before: wrong facts, silently.
    assert "O(n²)" in question.stem and "x₁" in question.stem
    assert "GPU | Memory\nH100 | 80 GB" in question.stem
