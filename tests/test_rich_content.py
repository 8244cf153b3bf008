"""Rich questions through the real Application and the fake Bot API: a formula question goes
as a photo with its buttons, an image question with its image; each picture is uploaded once
and then sent by file_id; the verdict becomes the photo's caption; fenced code is <pre><code>."""

from __future__ import annotations

import datetime as dt
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.bank.loader import load_bank
from bot.bank.models import LETTERS, Bank, Question
from bot.bank.rich import plain_text
from bot.commands.jsonl_io import play_jsonl
from bot.commands.play import play
from bot.practice.catalog import Catalog
from bot.telegram.views import question_media
from bot.telegram.views.question_media import image_key
from tests import factories, groups_support
from tests.backend import database
from tests.botharness import Harness, running_bot

RICH = Path(__file__).resolve().parent / "fixtures" / "rich"
GROUP_ID = groups_support.GROUP_ID
ANN = factories.user(501, "Ann")
ANN_CHAT = factories.private_chat(ANN)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def only(bank: Bank, qid: str, **changes: Any) -> Bank:
    """The fixture bank with one question (changed as asked), so /quiz must pick it."""
    question = bank.questions[qid]
    if changes:
        question = Question.model_validate({**question.model_dump(), **changes})
    images = {k: v for k, v in bank.images.items() if k == qid}
    return bank.model_copy(update={"questions": {qid: question}, "images": images})


def buttons(message: dict[str, Any]) -> list[tuple[str, str]]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [(b["text"], b["callback_data"]) for row in rows for b in row]


def photo_sends(h: Harness) -> list[str]:
    """The `photo` parameter of each sendPhoto: '<file …>' for an upload, else a file_id."""
    return [str(c.params["photo"]) for c in h.api.calls_of("sendPhoto")]


async def quiz(h: Harness) -> dict[str, Any]:
    await h.feed(factories.command("/quiz", ANN, ANN_CHAT))
    message = h.api.last_message(ANN["id"])
    assert message is not None
    return message


async def answer(h: Harness, message: dict[str, Any], letter: str) -> None:
    await h.feed(factories.callback(dict(buttons(message))[letter], ANN, message))


async def next_question(h: Harness) -> dict[str, Any]:
    last = h.api.last_message(ANN["id"])
    assert last is not None
    await h.feed(factories.callback(dict(buttons(last))["Next question ▶️"], ANN, last))
    message = h.api.last_message(ANN["id"])
    assert message is not None
    return message


async def test_formula_question_is_a_photo_with_buttons_uploaded_once(tmp_path: Path) -> None:
    bank = only(load_bank(RICH), "arch-attention-scaling")
    async with running_bot(tmp_path, bank) as h:
        message = await quiz(h)
        # One message: the typeset stem as a photo, the question as its caption, buttons under.
        assert "photo" in message and "text" not in message
        assert [t for t, _ in buttons(message)] == list(LETTERS[:4])
        caption = message["caption"]
        assert "softmax(QKᵀ" not in caption  # no made-up glyphs: plain readable text
        assert "Why are the scores divided by √d_k?" in caption and "$" not in caption
        [upload] = photo_sends(h)
        assert upload.startswith("<file formula.png")
        png = h.api.photo(ANN["id"], message["message_id"])
        assert png.startswith(PNG_MAGIC)
        [(key, file_id)] = factories.rows(
            h.db_path, "SELECT content_key, file_id FROM media_files"
        )  # before any answer: the explanation's picture is not sent yet
        assert key.startswith("formula:") and file_id == message["photo"][-1]["file_id"]

        # The verdict replaces the caption (what would not fit would follow, with the buttons).
        shown_question = groups_support.question_of(h, groups_support.delivery_of(message))
        right = LETTERS[min(shown_question.correct_indices)]
        h.api.clear_calls()
        await answer(h, message, right)
        assert [c.method for c in h.api.calls if c.method.startswith("edit")] == [
            "editMessageCaption"
        ]
        verdict = h.api.message(ANN["id"], message["message_id"])
        assert verdict["caption"].startswith("✅ Correct!")
        [rest] = [m for m in h.api.messages_to(ANN["id"]) if "Next question ▶️" in dict(buttons(m))]
        words = rest.get("text") or rest["caption"]
        assert "Explanation" in words and "Var(q · k) = d_k" in words
        # The explanation's formulas, typeset, after the verdict (which shows them as text).
        typeset = h.api.last_message(ANN["id"])
        assert typeset is not None and typeset["caption"] == "The explanation, typeset."
        assert not buttons(typeset)
        assert photo_sends(h)[-1].startswith("<file explanation.png")
        await answer(h, message, right)  # a repeated tap: no second picture
        assert len(h.api.calls_of("sendPhoto")) == 1

        # The same question again (a new option order, the same stem): sent by file_id.
        h.api.clear_calls()
        await h.feed(factories.callback(dict(buttons(rest))["Next question ▶️"], ANN, rest))
        again = h.api.last_message(ANN["id"])
        assert again is not None
        assert photo_sends(h) == [file_id]
        assert "photo" in again and len(buttons(again)) == 4


async def test_image_question_sends_its_file_once(tmp_path: Path) -> None:
    bank = only(load_bank(RICH), "deploy-kv-cache-per-token")
    image = (RICH / "kv-layout.png").read_bytes()
    async with running_bot(tmp_path, bank) as h:
        message = await quiz(h)
        assert h.api.photo(ANN["id"], message["message_id"]) == image
        assert "How much memory does one more token" in message["caption"]
        assert [t for t, _ in buttons(message)] == list(LETTERS[:4])
        [upload] = photo_sends(h)
        assert upload.startswith("<file kv-layout.png")
        await answer(h, message, "A")
        shown = h.api.message(ANN["id"], message["message_id"])
        assert shown["caption"].startswith("❌ Not quite. The answer is B.")
        h.api.clear_calls()
        again = await next_question(h)
        assert photo_sends(h) == [message["photo"][-1]["file_id"]]
        assert h.api.photo(ANN["id"], again["message_id"]) == image
        [(key,)] = factories.rows(h.db_path, "SELECT content_key FROM media_files")
        assert key.startswith("image:")


async def test_a_refused_file_id_is_uploaded_again(tmp_path: Path) -> None:
    bank = only(load_bank(RICH), "deploy-kv-cache-per-token")
    async with running_bot(tmp_path, bank) as h:
        # A file_id of another bot's (the token changed): Telegram refuses it.
        await h.services.media.remember(image_key(RICH / "kv-layout.png"), "another-bots-id")
        message = await quiz(h)
        sends = photo_sends(h)
        assert sends[0] == "another-bots-id" and sends[1].startswith("<file kv-layout.png")
        assert "photo" in message and len(buttons(message)) == 4
        rows = factories.rows(h.db_path, "SELECT file_id FROM media_files")
        assert rows == [(message["photo"][-1]["file_id"],)]


async def test_long_question_sends_the_photo_then_the_text_with_buttons(tmp_path: Path) -> None:
    long_stem = "Given $E = mc^2$, consider this. " + "A long setting of the scene. " * 40
    bank = only(load_bank(RICH), "arch-attention-scaling", stem=long_stem)
    async with running_bot(tmp_path, bank) as h:
        message = await quiz(h)
        shown = h.api.messages_to(ANN["id"])
        photo, text = shown[-2], shown[-1]
        assert "photo" in photo and "caption" not in photo and not buttons(photo)
        assert text == message and "E = mc²" in text["text"]
        assert len(buttons(text)) == 4
        h.api.clear_calls()
        await answer(h, text, "A")
        assert [c.method for c in h.api.calls if c.method.startswith("edit")] == [
            "editMessageText"
        ]


async def test_fenced_code_is_pre_code_escaped(tmp_path: Path) -> None:
    bank = only(load_bank(RICH), "arch-causal-mask-code")
    async with running_bot(tmp_path, bank) as h:
        message = await quiz(h)
        assert "photo" not in message  # code alone is text: no picture
        source = h.api.source_text(ANN["id"], message["message_id"])
        assert source is not None
        assert (
            "<pre><code>i = torch.arange(n)[:, None]\nj = torch.arange(n)[None, :]\n"
            'scores = scores.masked_fill(j &gt; i, float("-inf"))</code></pre>'
        ) in source
        assert "```" not in source


def test_play_text_is_plain_and_readable() -> None:
    bank = load_bank(RICH)
    stem = bank.questions["arch-attention-scaling"].stem
    assert plain_text(stem).endswith("Why are the scores divided by √d_k?")
    code = plain_text(bank.questions["arch-causal-mask-code"].stem)
    assert '\n    scores = scores.masked_fill(j > i, float("-inf"))\n' in code
    assert plain_text("From $2.50 to $3, or \\$5") == "From $2.50 to $3, or $5"


async def test_play_shows_formulas_and_code_as_plain_text(tmp_path: Path) -> None:
    bank = load_bank(RICH)
    for qid in ("arch-attention-scaling", "arch-causal-mask-code"):
        out = io.StringIO()
        catalog = Catalog({"rich": only(bank, qid)})
        code = await play(catalog, tmp_path / f"{qid}.db", None, None, 1, io.StringIO("A\n"), out)
        assert code == 0
        text = out.getvalue()
        assert "```" not in text and "\\sqrt" not in text and "$" not in text
        if qid == "arch-causal-mask-code":
            # Code keeps its lines and indentation, set off from the prose.
            assert '\n    scores = scores.masked_fill(j > i, float("-inf"))\n' in text
        else:
            words = " ".join(text.split())
            assert "computes softmax(QK^T / √d_k) V. Why are the scores divided by √d_k?" in words
            assert "Var(q · k) = d_k" in words  # the explanation's formula


async def test_play_jsonl_keeps_the_formula_source(tmp_path: Path) -> None:
    # Another front end typesets formulas its own way: it needs the source, not √d_k.
    fixture = load_bank(RICH)
    question = fixture.questions["arch-attention-scaling"]
    options = [o.model_dump() for o in question.options]
    options[2]["text"] = r"It halves the memory the $n \times n$ score matrix needs."
    bank = only(fixture, question.id, options=options)
    out = io.StringIO()
    catalog = Catalog({"rich": bank})
    requests = io.StringIO(json.dumps({"cmd": "next", "user": 3}) + "\n")
    code = await play_jsonl(catalog, database(tmp_path / "j.db"), None, 1, None, requests, out)
    assert code == 0
    (reply,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert reply["type"] == "question" and reply["question_id"] == question.id
    assert reply["stem"] == question.stem
    assert r"$\mathrm{softmax}(QK^T / \sqrt{d_k})\,V$" in reply["stem"]
    assert "√" not in reply["stem"]
    # Options come in the order shown; each keeps its text as written, dollars and all.
    assert sorted(reply["options"]) == sorted(o["text"] for o in options)
    assert r"It halves the memory the $n \times n$ score matrix needs." in reply["options"]


async def test_daily_push_sends_the_picture_with_its_buttons_once(tmp_path: Path) -> None:
    bank = only(load_bank(RICH), "deploy-kv-cache-per-token")
    async with running_bot(tmp_path, bank, push_rate=20.0) as h:
        push = h.services.push
        push.pace_now = h.clock.now

        async def no_wait(seconds: float) -> None:
            h.clock.advance(seconds)

        push.sleep = no_wait
        h.clock.set(dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC))
        for chat in (31, 32):
            await push.subscribe(chat, "06:01", "UTC", user_id=chat)
        h.clock.advance(120)
        assert await push.run_once() == 2
        first, second = (h.api.last_message(c) for c in (31, 32))
        assert first is not None and second is not None
        assert "Your daily question" in first["caption"]
        assert len(buttons(first)) == 4 and len(buttons(second)) == 4
        sends = photo_sends(h)
        assert sends[0].startswith("<file kv-layout.png") and sends[1:] == [
            first["photo"][-1]["file_id"]
        ]
        # The delivery is the photo's: a tap on its buttons is graded and the caption edited.
        ann = factories.user(31, "Ann")
        await h.feed(factories.callback(dict(buttons(first))["B"], ann, first))
        shown = h.api.message(31, first["message_id"])
        assert shown["caption"].startswith("✅ Correct!")


async def test_group_question_has_its_picture_just_above(tmp_path: Path) -> None:
    bank = only(load_bank(RICH), "arch-attention-scaling")
    async with running_bot(tmp_path, bank) as h:
        groups_support.setup_admin(h)
        message = await groups_support.ask(h)
        picture, question = h.api.messages_to(GROUP_ID)[-2:]
        assert "photo" in picture and not buttons(picture)
        assert question == message and "0 answers so far" in message["text"]
        assert "√d_k" in message["text"] and "$" not in message["text"]
        # The member's alert is plain text: the rationale's formula readable.
        wrong = next(
            i
            for i, o in enumerate(bank.questions["arch-attention-scaling"].options)
            if not o.correct and "$" in o.rationale
        )
        shown = groups_support.question_of(h, groups_support.delivery_of(message))
        position = next(
            i
            for i, o in enumerate(shown.options)
            if o.text == bank.questions["arch-attention-scaling"].options[wrong].text
        )
        alert = await groups_support.tap(h, groups_support.ANN, message, position)
        assert "$" not in alert["text"] and "\\" not in alert["text"]
        assert photo_sends(h)[0].startswith("<file formula.png")


async def test_a_verdict_longer_than_a_caption_continues_below(tmp_path: Path) -> None:
    fixture = load_bank(RICH)
    long = fixture.questions["deploy-kv-cache-per-token"].explanation + " More detail." * 60
    bank = only(fixture, "deploy-kv-cache-per-token", explanation=long)
    async with running_bot(tmp_path, bank) as h:
        message = await quiz(h)
        assert "photo" in message and len(buttons(message)) == 4
        await answer(h, message, "B")
        photo = h.api.message(ANN["id"], message["message_id"])
        assert photo["caption"].startswith("✅ Correct!") and len(photo["caption"]) <= 1024
        assert not buttons(photo)  # the buttons go under the end of the verdict
        rest = h.api.last_message(ANN["id"])
        assert rest is not None and "More detail." in rest["text"]
        assert "Next question ▶️" in dict(buttons(rest))


async def test_a_quiz_poll_shows_formulas_as_plain_text(tmp_path: Path) -> None:
    fixture = load_bank(RICH)
    stem = (
        r"Which is the softmax temperature $\tau$ in $p_i = e^{z_i/\tau} / \sum_j e^{z_j/\tau}$?"
    )
    bank = only(fixture, "arch-attention-scaling", stem=stem)
    async with running_bot(tmp_path, bank) as h:
        groups_support.setup_admin(h)
        admin, group = groups_support.ADMIN, groups_support.GROUP
        await h.feed(factories.command("/quizpoll on", admin, group))
        await h.feed(factories.command("/quiz", admin, group))
        [call] = h.api.calls_of("sendPoll")
        assert call.params["question"].startswith("Which is the softmax temperature τ in p_i = ")
        assert "$" not in call.params["question"] and "\\" not in call.params["explanation"]
        assert "Var(q · k) = d_k" in call.params["explanation"]
        picture, poll = h.api.messages_to(GROUP_ID)[-2:]
        assert "photo" in picture and "poll" in poll  # the typeset stem just above the poll


async def test_an_image_gone_since_the_load_leaves_the_question_as_text(tmp_path: Path) -> None:
    folder = tmp_path / "bank"
    shutil.copytree(RICH, folder)
    bank = only(load_bank(folder), "deploy-kv-cache-per-token")
    # Replaced by something unreadable after the bank loaded: the key is taken, the read fails.
    (folder / "kv-layout.png").unlink()
    (folder / "kv-layout.png").mkdir()
    async with running_bot(tmp_path, bank) as h:
        message = await quiz(h)
        assert "photo" not in message and "How much memory" in message["text"]
        assert len(buttons(message)) == 4 and not h.api.calls_of("sendPhoto")


async def test_a_picture_that_cannot_be_drawn_leaves_the_question_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cannot_draw(lines: list[str]) -> bytes:
        raise ValueError("no glyph for that")

    monkeypatch.setattr(question_media, "formula_png", cannot_draw)
    bank = only(load_bank(RICH), "arch-attention-scaling")
    async with running_bot(tmp_path, bank) as h:
        message = await quiz(h)
        assert "photo" not in message and "divided by √d_k?" in message["text"]
        assert len(buttons(message)) == 4 and not h.api.calls_of("sendPhoto")
        assert factories.rows(h.db_path, "SELECT COUNT(*) FROM media_files") == [(0,)]
