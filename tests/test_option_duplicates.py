"""Two options a learner cannot tell apart are duplicates, whatever invisible characters an
export left inside one of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from bot.bank.models import Question
from bot.cli import main


def question(*texts: str) -> dict[str, Any]:
    return {
        "id": "capital",
        "topic": "geo",
        "stem": "Which city is the capital of France?",
        "options": [
            {"text": t, "correct": i == 0, "rationale": f"Reason {i}."}
            for i, t in enumerate(texts)
        ],
        "explanation": "Paris has been the capital for centuries.",
    }


@pytest.mark.parametrize(
    "twin",
    [
        "Pa\u200bris",
        "Par\u00adis",
        "\ufeffParis",
        "Pa\u2060ris",
        "P\u200da\u200cris",
        "PARIS\u200e",
    ],
    ids=["zero-width-space", "soft-hyphen", "bom", "word-joiner", "zwj-zwnj", "case-lrm"],
)
def test_options_differing_only_by_format_characters_are_duplicates(twin: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Question.model_validate(question("Paris", "Lyon", twin))
    assert f"options.2.text: duplicates option A ({twin!r})" in str(caught.value)
    # Only the invisible characters are ignored: a visible accent still tells them apart.
    accented = twin.replace("a", "\u00e2").replace("A", "\u00c2")
    Question.model_validate(question("Paris", "Lyon", accented))


def test_an_option_of_format_characters_only_is_empty() -> None:
    with pytest.raises(ValidationError) as caught:
        Question.model_validate(question("Paris", "\u200b\u2060"))
    assert "options.1.text: option text is empty" in str(caught.value)


def test_the_import_names_the_line_of_the_invisible_duplicate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "q.txt"
    file.write_text(
        "Capital of France?\nA. Paris\nB. Pa\u200bris\nC. Lyon\nANSWER: A\n", encoding="utf-8"
    )
    out = tmp_path / "out"
    args = ["import", "aiken", str(file), "--bank", "fx", "--out", str(out)]
    code = main([*args, "--topic", "Geography", "--fill-missing", "To be written."])
    err = capsys.readouterr().err.splitlines()
    assert code == 1 and not out.exists()
    assert err[0] == f"{file}:3: options.1.text: duplicates option A ('Pa\\u200bris')"
