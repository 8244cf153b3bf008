"""All-numeric options are shown from the smallest up, whatever the shuffle says."""

from __future__ import annotations

import random
import re
from pathlib import Path

from bot.bank.models import Question
from bot.domain.display import shuffled_order
from tests import factories, sample_bank
from tests.botharness import running_bot
from tests.test_private_chat import buttons

ANN = factories.user(521, "Ann")
ANN_CHAT = factories.private_chat(ANN)
VALUES = ["About 0.80", "About 0.22", "About 0.52", "About 0.58"]  # the key is 0.52


def kappa(shuffle: bool) -> Question:
    base = sample_bank.question("kappa", shuffle=shuffle)
    options = [
        o.model_copy(update={"text": text, "correct": text == "About 0.52"})
        for o, text in zip(base.options, VALUES, strict=True)
    ]
    return base.model_copy(update={"options": options})


def test_numeric_options_keep_ascending_order_shuffled_or_not() -> None:
    rng = random.Random(1)
    for shuffle in (True, False):
        q = kappa(shuffle)
        orders = {shuffled_order(q, rng) for _ in range(20)}
        assert orders == {(1, 2, 3, 0)}
    words = sample_bank.question("words", shuffle=True)
    assert len({shuffled_order(words, rng) for _ in range(20)}) > 1  # others still shuffle


async def test_quiz_shows_numeric_options_ascending_and_grades_the_shown_letter(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, sample_bank.bank([kappa(True)])) as h:
        await h.feed(factories.command("/quiz", ANN, ANN_CHAT))
        message = h.api.last_message(ANN["id"]) or {}
        shown = re.findall(r"About 0\.\d\d", message["text"])
        assert shown == ["About 0.22", "About 0.52", "About 0.58", "About 0.80"]
        await h.feed(factories.callback(dict(buttons(message))["B"], ANN, message))
        assert h.api.calls_of("answerCallbackQuery")[-1].params["text"].startswith("✅")
