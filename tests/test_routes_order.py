"""The answer handler comes first in the handler list: that is safe only while no other handler
but the catch-all takes an answer's callback query, which these tests keep true."""

from __future__ import annotations

from telegram import Bot, Update
from telegram.ext import CallbackQueryHandler

from bot.telegram import routes
from bot.telegram.handlers import answers
from tests import factories
from tests.fakes import TOKEN
from tests.fakes.objects import JSON

ANN = factories.user(42, "Ann")
GROUP = factories.group_chat(-100123)


def _press(data: str, chat: JSON) -> Update:
    message = factories.message("question", None, chat, message_id=7)
    return Update.de_json(factories.callback(data, ANN, message), Bot(TOKEN))


def test_the_answer_handler_is_tried_first() -> None:
    first = routes.handlers()[0]
    assert isinstance(first, CallbackQueryHandler)
    assert first.callback is answers.on_answer


def test_only_the_catch_all_also_takes_an_answer_press() -> None:
    for chat in (factories.private_chat(ANN), GROUP):
        for data in ("a:12:b000:1", "a:12:0", "a:123456789012345678:zz99:11"):
            update = _press(data, chat)
            taking = [
                h.callback
                for h in routes.handlers()
                if h.check_update(update) not in (None, False)
            ]
            assert taking == [answers.on_answer, answers.on_unknown_button], (data, chat)


def test_other_presses_skip_the_answer_handler() -> None:
    first = routes.handlers()[0]
    for data in ("t:12:b000:1", "s:12:b000", "n:12", "x:12:b000", "aa:1:2", "a:12:b000:123"):
        assert first.check_update(_press(data, factories.private_chat(ANN))) in (None, False)
