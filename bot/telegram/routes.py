"""Every handler of the bot, in one list. Order matters: the first matching handler in a group
wins, so specific handlers come before the catch-alls at the end."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import (
    BaseHandler,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    PollAnswerHandler,
    TypeHandler,
    filters,
)

from bot.telegram.handlers import (
    admin,
    answers,
    beside_mock,
    commands,
    daily,
    gates,
    group_admin,
    group_answers,
    group_daily,
    group_quiz,
    group_topics,
    learning,
    membership,
    mock,
    mock_buttons,
    ops,
    reports,
    reset,
    wrong_place,
)
from bot.telegram.handlers.buttons import Button

# Every button, as its handler declares it: the answer first (see handlers()).
BUTTONS: list[Button] = [
    *answers.BUTTONS,
    *reset.BUTTONS,
    *daily.BUTTONS,
    *mock_buttons.BUTTONS,
    *mock.BUTTONS,
    *beside_mock.BUTTONS,
    *reports.BUTTONS,
]
PRIVATE = filters.ChatType.PRIVATE
# Stickers, photos, voice notes, files, locations...: new messages only (not edits), and not
# the service messages Telegram posts about the chat itself.
NOT_TEXT = filters.UpdateType.MESSAGE & ~filters.TEXT & ~filters.StatusUpdate.ALL
WHY_DEEP_LINK = r"^/start(@\w+)? why_\d{1,18}$"
# Group commands come as messages; in a channel, as channel posts (sent by its admins).
# A linked channel's posts are forwarded into its discussion group automatically: a command
# there is the channel's, answered in the channel, not a second time in the group.
GROUPS_AND_CHANNELS = (
    filters.ChatType.GROUPS & filters.UpdateType.MESSAGE & ~filters.IS_AUTOMATIC_FORWARD
) | (filters.ChatType.CHANNEL & filters.UpdateType.CHANNEL_POST)

# Commands that only work in a group or channel, and private-chat ones (besides /start,
# /stats, /quiz, /topics, /daily and /help, which have a group meaning of their own): sent in
# the wrong place, each gets a hint where it works.
GROUP_ONLY = ["leaderboard", "reveal", "window", "quizpoll", "export"]
PRIVATE_ONLY = [
    "admin", "reload", "report", "exam", "mistakes", "confidence", "mock", "ready", "reset",
]  # fmt: skip


def handlers() -> list[BaseHandler[Any, Any, Any]]:
    """The handlers, in the order they are tried."""
    return [
        # The buttons first, the answer tap foremost: it is the busiest update, and PTB asks
        # every handler before the matching one. Each button's pattern starts with its own
        # prefix, so only the catch-all below also takes its press (tests/test_routes_order.py)
        # and their order among themselves changes nothing.
        *(button.route() for button in BUTTONS),
        # The reveal's "Why?" deep link: `/start why_<delivery id>`.
        CommandHandler(
            "start", group_quiz.why_start, filters=PRIVATE & filters.Regex(WHY_DEEP_LINK)
        ),
        CommandHandler("start", commands.start, filters=PRIVATE),
        CommandHandler("quiz", commands.quiz, filters=PRIVATE),
        CommandHandler("topics", commands.topics, filters=PRIVATE),
        CommandHandler("stats", commands.stats, filters=PRIVATE),
        CommandHandler("exam", learning.exam, filters=PRIVATE),
        CommandHandler("mistakes", learning.mistakes, filters=PRIVATE),
        CommandHandler("confidence", learning.confidence, filters=PRIVATE),
        CommandHandler("mock", mock.mock, filters=PRIVATE),
        CommandHandler("ready", mock.ready, filters=PRIVATE),
        CommandHandler("reset", reset.reset, filters=PRIVATE),
        CommandHandler(GROUP_ONLY, wrong_place.private_group_only, filters=PRIVATE),
        # Everywhere; a channel's commands come as channel posts, which are not "messages".
        CommandHandler(
            "help",
            commands.help_command,
            filters=filters.UpdateType.MESSAGES | filters.UpdateType.CHANNEL_POST,
        ),
        # Daily question and operators; groups' /daily goes through the same
        # PushService.subscribe.
        CommandHandler("daily", daily.daily, filters=PRIVATE),
        CommandHandler("admin", admin.admin, filters=PRIVATE),
        CommandHandler("report", admin.report, filters=PRIVATE),
        # Groups and channels
        CommandHandler("quiz", group_quiz.quiz, filters=GROUPS_AND_CHANNELS),
        CommandHandler("reveal", group_quiz.reveal_command, filters=GROUPS_AND_CHANNELS),
        CommandHandler("leaderboard", group_admin.leaderboard, filters=GROUPS_AND_CHANNELS),
        CommandHandler("window", group_admin.window, filters=GROUPS_AND_CHANNELS),
        CommandHandler("quizpoll", group_admin.quizpoll, filters=GROUPS_AND_CHANNELS),
        CommandHandler("export", group_admin.export, filters=GROUPS_AND_CHANNELS),
        CommandHandler("daily", group_daily.daily, filters=GROUPS_AND_CHANNELS),
        CommandHandler("topics", group_topics.topics, filters=GROUPS_AND_CHANNELS),
        CommandHandler("start", wrong_place.group_start, filters=GROUPS_AND_CHANNELS),
        CommandHandler("stats", wrong_place.group_stats, filters=GROUPS_AND_CHANNELS),
        CommandHandler(PRIVATE_ONLY, wrong_place.group_private_only, filters=GROUPS_AND_CHANNELS),
        ChatMemberHandler(membership.on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER),
        MessageHandler(filters.StatusUpdate.MIGRATE, membership.on_migrate),
        PollAnswerHandler(group_answers.on_poll_answer),
        CommandHandler("reload", ops.reload_command, filters=PRIVATE),
        # Catch-alls: a forged or unknown button still gets an answer so the client stops spinning.
        CallbackQueryHandler(answers.on_unknown_button),
        MessageHandler(filters.COMMAND & PRIVATE, commands.unknown_command),
        # A reply to a report's comment prompt is the comment; any other reply is free text.
        MessageHandler(
            filters.REPLY & filters.TEXT & ~filters.COMMAND & PRIVATE, reports.on_reply
        ),
        MessageHandler(filters.TEXT & ~filters.COMMAND & PRIVATE, commands.free_text),
        MessageHandler(NOT_TEXT & PRIVATE, wrong_place.private_not_text),
        # Only a command addressed to this bot (`/foo@bot`) gets a reply in a group.
        MessageHandler(filters.COMMAND & GROUPS_AND_CHANNELS, wrong_place.group_unknown),
    ]


def early_handlers() -> list[tuple[int, BaseHandler[Any, Any, Any]]]:
    """(group, handler) run on every update before the handlers above, each in its own group
    (a group runs only its first matching handler): the update tracker sees every update,
    then flood control may stop one before any work is done."""
    # Blocking on purpose: a non-blocking handler is a task the app must be running to await,
    # and these only touch memory (the database at most every few seconds).
    return [
        (-3, TypeHandler(Update, ops.track_update)),
        (-2, TypeHandler(Update, gates.flood_gate)),
    ]


PRIVATE_COMMANDS = [
    ("quiz", "Next practice question"),
    ("topics", "Choose a topic"),
    ("mistakes", "Review the questions you got wrong"),
    ("exam", "Your exam date and days left"),
    ("confidence", "Ask Sure/Unsure after each pick (on/off)"),
    ("mock", "Timed mock exam (/mock short, /mock stop)"),
    ("ready", "Predicted exam score and chance to pass"),
    ("stats", "Your progress, readiness, mock exams, wrong ideas"),
    ("daily", "A question every day at your time"),
    ("reset", "Start this exam over (asks first)"),
    ("help", "How it works"),
    ("start", "Welcome"),
]
GROUP_COMMANDS = [
    ("quiz", "Ask the group a question"),
    ("reveal", "Close the question and show the answer (admins)"),
    ("leaderboard", "This week and all time"),
    ("window", "How long questions stay open (admins)"),
    ("quizpoll", "Telegram quiz polls on or off (admins)"),
    ("export", "The group's results as a spreadsheet (admins)"),
    ("daily", "This chat's daily question (admins set it)"),
    ("topics", "Exam and topic of this chat's questions (admins)"),
    ("stats", "Your own progress, in a private chat"),
    ("help", "How it works"),
]
