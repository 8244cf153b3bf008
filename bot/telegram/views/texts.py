"""User-facing text, kept apart from the code that sends it. HTML parse mode."""

WELCOME = (
    "👋 <b>Welcome to quizbot, {name}!</b>\n\n"
    "I send you practice questions for <b>{bank}</b>. Tap the letter of your answer and I tell "
    "you at once whether it was right, why the option you picked tempts people, and the common "
    "exam trap.\n\n"
    "/quiz — next question\n"
    "/topics — practise one topic or all of them\n"
    "/exam — your exam date (I pace the questions to it)\n"
    "/mistakes — review what you got wrong\n"
    "/mock — a timed mock exam, /ready — your predicted exam score\n"
    "/stats — your progress, readiness and mock exams\n"
    "/daily — one question a day at a time you choose\n"
    "/help — how it works"
)
HELP = (
    "<b>How quizbot works</b>\n\n"
    "• /quiz sends a question. Tap a letter to answer; for “select two” questions tap the "
    "letters, then <b>Submit</b>.\n"
    "• You see the verdict, the rationale for the option you chose, the explanation and the "
    "exam trap. <b>All options explained</b> shows why every option is right or wrong.\n"
    "• I choose each question for you: reviews come back just before you would forget them, "
    "new questions are paced to cover every topic before your exam date (/exam), weaker and "
    "heavier topics come more often, and a wrong idea you picked is re-tested within days.\n"
    "• Options are shuffled each time, so you learn the answer, not its letter.\n"
    "• /mistakes reviews only what you got wrong. /confidence on asks “Sure or Unsure?” "
    "after each pick; answers you got wrong while sure come back first.\n"
    "• /topics chooses a topic or exam, /stats shows your progress in this exam and your "
    "totals in the others, and the wrong ideas to unlearn; /daily sets a daily question.\n"
    "• /reset starts the current exam over (it asks first; other exams stay).\n"
    "• /mock sits a timed mock exam of the bank's size (/mock short: a quarter of it): no "
    "verdicts until the end, answers can be changed, 🚩 flags a question, the grid jumps. "
    "At the deadline it is submitted by itself. /mock stop abandons it.\n"
    "• /ready predicts your exam score (blueprint-weighted) and your chance to pass, from "
    "your answers (what you are likely to still remember) and recent mock exams.\n"
    "• In a group, /quiz asks everyone; each member gets a private verdict. /leaderboard, "
    "/reveal, /window and /quizpoll work there."
)
# /help in a group or channel: only what works there (practice, progress and the personal
# daily question belong to the private chat).
GROUP_HELP = (
    "<b>How quizbot works here</b>\n\n"
    "• /quiz posts a question for everyone. Tap a letter to answer: your verdict comes to you "
    "alone, and the answer is revealed when the question closes.\n"
    "• After the reveal, <b>Why?</b> opens your own breakdown in a private chat with me.\n"
    "• /leaderboard shows this week and all time. /daily shows this chat's daily question.\n"
    "• Admins: /reveal closes the open question now, /window &lt;minutes&gt; sets how long "
    "questions stay open, /quizpoll on|off switches to Telegram quiz polls, "
    "/daily HH:MM Zone (or /daily off) posts a daily question, /topics picks the exam and "
    "topic, /leaderboard off|on.\n"
    "• /stats gives you a link to your own progress in a private chat with me; practice on "
    "your own and mock exams are there too."
)
UNKNOWN_COMMAND = "I don't know that command. Try /quiz for a question or /help."
FREE_TEXT = "Tap a letter under a question to answer it, or send /quiz for a new one."
NOT_TEXT = (
    "I only read text and commands, so I skipped that. Tap a letter under a question to "
    "answer it, or send /quiz for a new one (/help lists the rest)."
)
PRIVATE_GROUP_ONLY = (
    "/{command} works in a group or channel I am in (it acts on the question I post there). "
    "Here, /quiz sends you a question and /stats shows your progress."
)
NO_QUESTIONS = "There are no questions in this topic yet. Choose another with /topics."
CHOOSE_TOPIC = "<b>{bank}</b>\nChoose a topic to practise:"
TOPIC_SET = "Topic set: <b>{topic}</b>. Here is your first question."
TOPIC_NOT_FOUND = (
    "I could not find the topic <b>{value}</b> from that link. Here is the welcome instead; "
    "/topics lists the topics."
)
ALL_TOPICS = "All topics"
TOPIC_GONE = "That topic is no longer offered. Choose one with /topics."
BANK_GONE = "That exam is no longer offered. Choose another with /topics."
NO_STATS = "You have not answered any question yet. Send /quiz to start."
NO_STATS_HERE = "📊 No answers yet in <b>{bank}</b>. Send /quiz to start; /topics switches exams."
OTHER_EXAMS_HEAD = "<b>Other exams</b>"
ALL_EXAMS = "All exams: <b>{answered}</b> answered · accuracy <b>{accuracy}</b>"
RESET_ASK = (
    "⚠️ <b>Reset your progress in {bank}?</b>\n\n"
    "I forget every answer you gave to this exam's questions (in groups too), what I learnt "
    "about your memory of them, your wrong ideas, mistakes, mock exams and your exam date. "
    "Your next /quiz starts afresh. Other exams, your daily question and your settings stay. "
    "This cannot be undone."
)
RESET_YES = "Yes, reset this exam"
RESET_NO = "Cancel"
RESET_DONE = "✅ Your progress in <b>{bank}</b> is reset. Send /quiz to start afresh."
RESET_CANCELLED = "Nothing was reset."
CB_RESET_DONE = "Reset: {answers} forgotten."
CB_RESET_CANCELLED = "Cancelled: nothing was reset."
TYPESET = "<i>The explanation, typeset.</i>"  # the caption of an explanation's formula picture

# Callback answers: at most 200 characters each.
CB_CORRECT = "✅ Correct!"
CB_WRONG = "❌ Not quite: the answer is {answer}."
CB_ALREADY = "You already answered this one ({chosen}). Tap “Next question” for a new one."
CB_UNKNOWN = "This button is no longer valid. Send /quiz for a fresh question."
CB_REMOVED = "This question was withdrawn from the bank. Send /quiz for another one."
CB_CLOSED = "This question is closed: answers are no longer taken."
CB_TOGGLED = "Selected: {chosen}. Tap Submit when ready."
CB_PICK_FIRST = "Select exactly {count} options, then tap Submit."
CB_PICK_AGAIN = "Your pick was not kept: pick again, then say how sure you are."
CB_IN_EXAM = "This question is in your running mock exam: answer it there. /mock shows the exam."
CB_PRIVATE_ONLY = "This button works in a private chat with me."
CB_ADMINS_ONLY = "Sorry, only the chat's admins can use this button."
CB_NEXT_USED = "You already moved on from this question: your next one is below."
CB_EXPLAIN_USED = "All options are explained just below this question already."

# Flood control
SLOW_DOWN = (
    "⏳ Slow down a little, please: I am skipping messages that come faster than one a "
    "second. Wait a few seconds and try again."
)
SLOW_DOWN_CB = "⏳ Slow down a little: wait a few seconds, then tap again."

# Daily question (/daily) and operators (/admin)
DAILY_HEADER = "📅 <b>Your daily question</b>\n\n"
# A question the study queue asks again in the same sitting (relearning to a criterion); the
# plain note is the terminal player's.
DAILY_NONE = (
    "You have no daily question yet. Pick a time below, or send for example\n"
    "<code>/daily 07:30 Europe/Berlin</code>\n"
    "Times are in your timezone: <b>{tz}</b>."
)
DAILY_CURRENT = (
    "📅 Your daily question comes at <b>{time}</b> ({tz}). Next: <b>{next}</b>.\n"
    "Change it below or with <code>/daily HH:MM Area/City</code>; "
    "<code>/daily off</code> stops it."
)
DAILY_OFF_STATE = (
    "Your daily question is off. Pick a time below to start it again (timezone <b>{tz}</b>)."
)
DAILY_SET = "✅ Daily question set for <b>{time}</b> ({tz}). The next one comes <b>{next}</b>."
DAILY_FULL = (
    "⏰ <b>{time}</b> ({tz}) is full: the bot already sends as many daily questions in that"
    " minute as it can. The nearest time with room is <b>{free}</b>: /daily {free}, or tap"
    " below."
)
DAILY_ALL_FULL = (
    "⏰ <b>{time}</b> ({tz}) is full, and so is every minute within three hours of it."
    " Please choose another time of day."
)
DAILY_TAKE_BUTTON = "Take {free}"
DAILY_STOPPED = "Daily question stopped. /daily starts it again."
DAILY_NOT_SUBSCRIBED = "You had no daily question. /daily sets one."
DAILY_BAD_TIME = (
    "I could not read <b>{value}</b> as a time. Use 24-hour HH:MM, for example "
    "<code>/daily 07:30</code> or <code>/daily 18:45 Europe/Berlin</code>."
)
DAILY_BAD_ZONE = (
    "I do not know the timezone <b>{value}</b>. Use an IANA name such as "
    "<code>Europe/Berlin</code>, <code>America/New_York</code> or <code>Asia/Tokyo</code>, "
    "for example <code>/daily 07:30 Europe/Berlin</code>."
)
DAILY_OFF_BUTTON = "Off"
CB_DAILY_SET = "Daily question at {time} ({tz})."
CB_DAILY_FULL = "{time} is full. Nearest time with room: {free}."
CB_DAILY_ALL_FULL = "{time} is full, and so is every time near it."
CB_DAILY_OFF = "Daily question stopped."
BUSY_TAP = "Busy for a moment, tap again in a moment."
BUSY_MESSAGE = "I am busy for a moment; please send that again in a few seconds."
CANNOT_SAVE = "I can't save right now, try again in a minute."
ADMIN_ONLY = "Sorry, this command is for the bot's operators."
ADMIN_REPORT = (
    "<b>Daily push</b>\n"
    "Subscribers: <b>{active}</b> active, {inactive} inactive\n"
    "Due in the next 24 h: {upcoming}\n\n"
    "<b>Pushes due in the last 24 h</b>\n"
    "sent {sent} · pending {pending} · sending {sending}\n"
    "blocked {blocked} · failed {failed} · skipped {skipped}"
)
ADMIN_CAPACITY = "\n\n⚠️ <b>Push capacity</b>\n{warning}"

# Groups and channels
GROUP_FOOTER = "⏳ Open for {window} · 👥 {answers} so far · your verdict comes privately"
GROUP_ALERT_RIGHT = "✅ Correct ({chosen})."
GROUP_ALERT_WRONG = "❌ Not quite: you chose {chosen}, the answer is {answer}."
GROUP_ALERT_AGAIN = "Already answered. "
REVEAL_HEAD = "🔒 <b>Closed.</b> The answer is <b>{answer}</b> · {count} answer{s}"
REVEAL_WHY_HINT = "<i>Tap “Why?” for your own breakdown in a private chat.</i>"
WHY_BUTTON = "Why? 💬"
WHY_STILL_OPEN = "That question is still open: answer it in the group first."
WHY_UNKNOWN = "I can't find that question any more. Send /quiz for a fresh one."
WHY_NOT_ANSWERED = "You did not answer this one in the group. Here is every option explained."
GROUP_WELCOME = (
    "👋 Hi, I'm a practice-exam bot. Send /quiz and I post a question for everyone: tap a "
    "letter to answer, your verdict comes to you alone, and the answer is revealed after "
    "{window} (or on /reveal by an admin). /leaderboard shows this week and all time.\n"
    "Admins: /window &lt;minutes&gt;, /leaderboard off|on, /quizpoll on|off, "
    "/daily HH:MM Zone."
)
GROUP_NO_QUESTIONS = "There are no questions to ask in this group's topic."
GROUP_ADMINS_ONLY = "Sorry, only the group's admins can change that. 🙂"
GROUP_NOTHING_OPEN = "No question is open right now. Send /quiz for one."
LEADERBOARD_HEAD = "🏆 <b>Leaderboard</b> · {title}"
LB_WEEK = "This week"
LB_ALL = "All time"
LB_EMPTY = "<i>No answers yet.</i>"
LEADERBOARD_OFF = "The leaderboard is turned off in this group."
LEADERBOARD_SET = "Leaderboard turned <b>{state}</b>."
EXPORT_CAPTION = "📊 Results of <b>{title}</b>: {members}, one row each."
EXPORT_NOT_IN_CHANNELS = (
    "A channel's results are not posted in the channel: every subscriber would see who "
    "answered. The operator can write them with <code>quizbot export --chat {chat_id}</code>."
)
LEADERBOARD_NOT_IN_CHANNELS = (
    "A channel's leaderboard is not posted in the channel: every subscriber would see who "
    "answered."
)
EXPORT_TOO_LARGE = "The results are over Telegram's 50 MB limit for a file; ask the operator."
LEADERBOARD_USAGE = "Use /leaderboard, or (admins) /leaderboard off | on."
WINDOW_SET = "Questions now stay open for <b>{minutes} min</b>."
WINDOW_CLAMPED = " ({asked} min is outside 1 min to 1440 min, so I used the nearest limit.)"
WINDOW_FROM_NEXT = " This applies from the next question; an open one keeps its time."
WINDOW_USAGE = "Use /window &lt;minutes&gt;, for example /window 10."
WINDOW_CURRENT = (
    "Questions here stay open for <b>{minutes} min</b>. Admins change it with"
    " /window &lt;minutes&gt;, for example /window 10."
)
POLL_MODE_SET = "Questions are now posted as {mode}."
POLL_MODE_USAGE = "Use /quizpoll on (Telegram quiz polls) or /quizpoll off (answer buttons)."
POLL_MODE_NOW = "Questions here are posted as {mode}."
POLL_FIT = "{fit} of {total} questions of {bank} can be quiz polls."
POLL_UNFIT = (
    " The other {rest}: an option longer than 100 characters (or over 12 options), so they go"
    " out with answer buttons."
)
POLL_LONG_STEM = " A question longer than 300 characters comes as a message right above its poll."
POLL_SEE_ABOVE = "Which option is right? (The question is in the message above.)"
POLL_SEE_ABOVE_MULTIPLE = (
    "Which {count} options are right? (The question is in the message above.)"
)
GROUP_DAILY_SET = (
    "A daily question is scheduled at <b>{time}</b> ({zone}). The next one comes <b>{next}</b>."
)
GROUP_DAILY_IN_TOPIC = (
    " It is posted in this topic: set <code>/daily</code> in another topic to move it there."
)
GROUP_DAILY_OFF = "The daily question is turned off."
GROUP_DAILY_NONE = (
    "📅 This chat has no daily question. Admins: <code>/daily 08:00 Europe/Paris</code> "
    "(24-hour time and an IANA timezone)."
)
GROUP_DAILY_ON = (
    "📅 Daily question here: <b>{time}</b> ({zone}), on. Next: <b>{next}</b>.\n"
    "Admins: <code>/daily HH:MM Zone</code> changes it, <code>/daily off</code> stops it."
)
GROUP_DAILY_IS_OFF = (
    "📅 The daily question here is off (it was {time}, {zone}). Admins: "
    "<code>/daily HH:MM Zone</code> starts it again."
)
GROUP_STATS = (
    "📊 Your statistics are yours alone, so I show them in a private chat: "
    '<a href="{url}">open my stats</a> (or message me and send /stats).'
)
GROUP_PRIVATE_ONLY = (
    "/{command} works in a private chat with me. Here: /quiz, /leaderboard, /help."
)
GROUP_UNKNOWN_COMMAND = (
    "I don't know that command. Here: /quiz, /leaderboard, /daily, /help; admins also "
    "/reveal, /window, /quizpoll, /topics."
)

# Learning engine: exam date, mistakes, confidence, misconceptions, revised questions
CB_STALE = "This button is from an older copy of the data. Send /quiz for a fresh question."
CB_REVISED = "This question was revised — here it is again."
CB_HOW_SURE = "You picked {chosen}. How sure are you?"
SURE_BUTTON = "Sure ({chosen})"
UNSURE_BUTTON = "Unsure ({chosen})"
CHANGE_BUTTON = "↩️ Change answer"
CB_CHANGE = "Pick again: nothing is recorded until you say how sure you are."
PRACTICE_BUTTON = "Back to practice ▶️"
EXAM_NO_DATE_BUTTON = "No date"
NO_MISTAKES = "🎉 No mistakes left to review."
NO_MISTAKES_IN_TOPIC = (
    "🎉 No mistakes left to review in <b>{topic}</b>. Mistakes in other topics: choose All"
    " topics in /topics."
)
EXAM_NONE = (
    "📅 No exam date set for <b>{bank}</b>. Without one I plan as if the exam were 30 days "
    "away.\nSet it with, for example, <code>/exam {example}</code>."
)
EXAM_CURRENT = (
    "📅 Your <b>{bank}</b> exam: <b>{date}</b> — {days}.\n"
    "Change it with <code>/exam YYYY-MM-DD</code>; <code>/exam off</code> clears it."
)
EXAM_SET = "✅ Exam date set: <b>{date}</b> — {days}. I pace new questions to cover every topic."
EXAM_SET_TODAY = (
    "✅ Exam date set: <b>{date}</b> — today. Good luck! Until then I bring back what you have"
    " already met, for a last review."
)
EXAM_CLEARED = "Exam date cleared. I plan as if the exam were 30 days away."
EXAM_MALFORMED = (
    "I could not read <b>{value}</b> as a date. Use YYYY-MM-DD, for example "
    "<code>/exam {example}</code>, or <code>/exam off</code>."
)
EXAM_PAST = (
    "<b>{value}</b> has already passed: pick today or a later date, for example "
    "<code>/exam {example}</code>."
)
EXAM_TOO_FAR = (
    "<b>{value}</b> is more than two years away. Pick a date within two years, for example "
    "<code>/exam {example}</code>."
)
EXAM_OFFER = (
    "📅 When is your exam? I pace new questions so every topic is covered in time. "
    "(You can change it any time with /exam.)"
)
CB_EXAM_SET = "Exam date set: {date}."
CB_EXAM_NONE = "No exam date: I plan for 30 days. /exam sets one later."
CONFIDENCE_ON = (
    "✅ Confidence on: after you pick, tap <b>Sure</b> or <b>Unsure</b>. Answers you got wrong "
    "while sure come back first."
)
CONFIDENCE_OFF = "Confidence off: your pick is graded at once."
CONFIDENCE_USAGE = (
    "Confidence is <b>{state}</b>. Use <code>/confidence on</code> or "
    "<code>/confidence off</code>."
)
MISCONCEPTIONS_HEAD = "<b>Wrong ideas to unlearn</b>"
GROUP_QUIZ_TOO_SOON = (
    "⏳ The current question has just been asked: give everyone a moment. /quiz posts the next "
    "one in {seconds} s (admins can /reveal it now)."
)
GROUP_QUIZ_COOLDOWN = "⏳ One question at a time: the next /quiz can post in {seconds} s."
GROUP_TOPICS_ADMINS = (
    "Only the group's admins choose the exam and topic here. For your own practice, message "
    "me privately and send /topics."
)
GROUP_CHOOSE_TOPIC = "<b>{bank}</b>\nChoose the topic this chat's questions come from:"
GROUP_TOPIC_SET = "Questions here now come from <b>{topic}</b> ({bank}). Send /quiz for one."

# Learners' reports of a bad question. Reasons by the code stored (bot/storage/report_sql.py).
REPORT_BUTTON = "⚑ Report"
REPORT_REASONS = {
    "key": "Wrong answer key",
    "unclear": "Unclear or ambiguous",
    "typo": "Typo",
    "outdated": "Outdated",
    "other": "Other",
}
REPORT_WHY = "⚑ What is wrong with this question?"
REPORT_FILED = "⚑ Reported: {reason}. Thank you!"
REPORT_COMMENT_PROMPT = (
    "Add a one-line comment for the authors as a reply to this message, or reply <i>skip</i>."
)
REPORT_COMMENT_PLACEHOLDER = "What should be fixed? (or skip)"
REPORT_COMMENT_SAVED = "Thanks, your comment is with the report."
REPORT_COMMENT_SKIPPED = "Fine, the report stands without a comment."
CB_REPORT_ASK = "Why are you reporting it?"
CB_REPORT_THANKS = "Thanks: the authors will look at it."
CB_REPORT_ALREADY = "You have reported this question already. Thank you!"
