"""The buttons come first in the handler list, the answer foremost: that is safe only while no
other handler but the catch-all takes a button's callback query, which these tests keep true
for every declared button."""

from __future__ import annotations

from telegram import Bot, Update
from telegram.ext import CallbackQueryHandler

from bot.telegram import routes
from bot.telegram.handlers import answers
from bot.telegram.views import callbacks
from tests import factories
from tests.fakes import TOKEN
from tests.fakes.objects import JSON

ANN = factories.user(42, "Ann")
GROUP = factories.group_chat(-100123)
BOT = Bot(TOKEN)


def _press(data: str, chat: JSON) -> Update:
    message = factories.message("question", None, chat, message_id=7)
    return Update.de_json(factories.callback(data, ANN, message), BOT)


def test_the_answer_handler_is_tried_first() -> None:
    first = routes.handlers()[0]
    assert isinstance(first, CallbackQueryHandler)
    assert first.pattern is callbacks.ANSWER.pattern
    assert routes.BUTTONS[0].handler is answers.on_answer


def test_only_its_own_route_and_the_catch_all_take_a_buttons_press() -> None:
    handlers = routes.handlers()
    catch_all = [h for h in handlers if h.callback is answers.on_unknown_button]
    for route, button in zip(handlers, routes.BUTTONS, strict=False):
        parts = button.data.parts
        without_optional = button.data(*("" if p.optional else p.longest for p in parts))
        for data in (button.data.longest(), without_optional):
            for chat in (factories.private_chat(ANN), GROUP):
                update = _press(data, chat)
                taking = [h for h in handlers if h.check_update(update) not in (None, False)]
                assert taking == [route, *catch_all], (data, chat)


def test_answers_old_and_new_are_taken_by_the_answer_route() -> None:
    first = routes.handlers()[0]
    for data in ("a:12:b000:1", "a:12:0", "a:123456789012345678:zz99:11"):
        assert first.check_update(_press(data, factories.private_chat(ANN))) not in (None, False)
    for data in ("t:12:b000:1", "s:12:b000", "n:12", "x:12:b000", "aa:1:2", "a:12:b000:123"):
        assert first.check_update(_press(data, factories.private_chat(ANN))) in (None, False)
