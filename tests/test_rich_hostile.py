"""Bank content Telegram or the loader would choke on: a formula too wide for a photo, one
nested too deeply to typeset, an image that is a link out of the bank or a named pipe."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

from PIL import Image

from bot.bank.images import MAX_RATIO
from bot.bank.loader import load_bank
from bot.charts.formula import formula_png
from tests import factories
from tests.botharness import running_bot
from tests.test_rich_content import ANN, RICH, only, photo_sends, quiz

QID = "arch-attention-scaling"


def long_sum(terms: int) -> str:
    return "$" + "+".join(f"x_{{{i}}}" for i in range(terms)) + "$"


def size(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as image:
        return image.size


def test_a_long_one_line_formula_is_drawn_within_a_photos_proportions() -> None:
    width, height = size(formula_png([f"Why is {long_sum(60)} large?"]))
    assert width > 2000  # one line that cannot be wrapped
    assert width <= MAX_RATIO * height


async def test_a_formula_telegram_refuses_as_a_photo_goes_as_text(tmp_path: Path) -> None:
    bank = only(load_bank(RICH), QID)
    stem = bank.questions[QID].stem + " Why " + long_sum(60) + "?"
    async with running_bot(tmp_path, only(bank, QID, stem=stem)) as h:
        h.api.fail_next("sendPhoto", 400, "Bad Request: PHOTO_INVALID_DIMENSIONS")
        question = await quiz(h)
        assert len(photo_sends(h)) == 1  # tried, refused
        assert "x₅₉" in question["text"]  # the question as text, with its buttons
        assert question["reply_markup"]["inline_keyboard"]
        # The next /quiz tries the picture again (the refusal may have been Telegram's moment).
        await h.feed(factories.command("/quiz", ANN, factories.private_chat(ANN)))
        assert len(photo_sends(h)) == 2
        assert "photo" in (h.api.last_message(ANN["id"]) or {})


async def test_a_formula_too_wide_for_any_photo_goes_as_text(tmp_path: Path) -> None:
    bank = only(load_bank(RICH), QID)
    stem = bank.questions[QID].stem + " Why " + long_sum(400) + "?"
    async with running_bot(tmp_path, only(bank, QID, stem=stem)) as h:
        question = await quiz(h)
        assert photo_sends(h) == []
        assert "x₃₉₉" in question["text"]
        assert question["reply_markup"]["inline_keyboard"]


def copy_bank(tmp_path: Path) -> Path:
    folder = tmp_path / "bank"
    shutil.copytree(RICH, folder)
    return folder


def image_problems(folder: Path) -> list[str]:
    from bot.bank.loader import BankError

    try:
        load_bank(folder)
    except BankError as err:
        return [str(p) for p in err.problems]
    return []


def test_a_formula_nested_too_deeply_is_an_authors_problem(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    path = folder / f"{QID}.yaml"
    nested = "x" + "".join("_{x" for _ in range(40)) + "}" * 40
    text = path.read_text().replace("Scaled dot-product", f"With ${nested}$, scaled dot-product")
    path.write_text(text)
    problems = image_problems(folder)
    assert any("nested too deeply" in p and QID in p and "stem" in p for p in problems)


def test_an_image_linking_out_of_the_bank_is_refused(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    outside = tmp_path / "secret.png"
    shutil.copy(folder / "kv-layout.png", outside)
    (folder / "kv-layout.png").unlink()
    (folder / "kv-layout.png").symlink_to(outside)
    problems = image_problems(folder)
    assert any("leads outside the bank's folder" in p for p in problems)


def test_an_image_that_is_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    (folder / "kv-layout.png").unlink()
    os.mkfifo(folder / "kv-layout.png")  # opening it to read would wait for a writer for ever
    problems = image_problems(folder)
    assert any("is not a regular file" in p for p in problems)
