"""User-facing text of mock exams and readiness. HTML parse mode; callback answers ≤ 200 chars."""

MOCK_HEAD = "📝 <b>Mock exam</b> · Question {n}/{size} · {left} left"
MOCK_PROGRESS = "Answered {answered}/{size}{flagged}"
MOCK_SELECT = "<i>Select {count}: tap letters to tick and untick them.</i>"
MOCK_CONFIRM = (
    "📝 <b>Finish the exam?</b>\n\n{details}\n\nUnanswered questions count as wrong. "
    "You have {left} left."
)
MOCK_CONFIRM_OPEN = "Unanswered: {positions}"
MOCK_CONFIRM_FLAGGED = "Flagged for review: {positions}"
MOCK_STOP_ASK = (
    "Stop the running mock exam? It will not be scored ({answered}/{size} answered, {left} left)."
)
MOCK_STOPPED = "Mock exam abandoned: no score. /mock starts a new one."
MOCK_GOES_ON = "The exam goes on. /mock shows it again."
MOCK_NONE_RUNNING = "No mock exam is running. /mock starts one."
MOCK_MOVED = "📝 Mock exam continued below ⬇️"
MOCK_SUBMITTED = "📝 <b>Mock exam submitted.</b> Your result is below."
MOCK_EXPIRED = "⏰ <b>Time is up:</b> the mock exam was submitted with your answers so far."
MOCK_TOO_SMALL = (
    "This bank holds {available}: too few for the {requested}-question mock exam. You can sit"
    " a {offer}-question exam in {minutes} min instead."
)
MOCK_EMPTY_BANK = "This bank has no questions for a mock exam."
MOCK_BESIDE = (
    "📝 Your mock exam is running ({left} left), and its clock keeps going. Practice shows"
    " answers, so beside the exam it leaves the exam's questions out."
)
BACK_TO_EXAM_BUTTON = "↩️ Back to the exam"
PAUSE_EXAM_BUTTON = "⏸ Pause the exam"
OUTSIDE_EXAM_BUTTON = "▶️ Practise outside the exam"
CB_OUTSIDE_EXAM = "Questions outside your mock exam."
MOCK_PAUSED = "⏸ <b>Mock exam paused</b> with {left} left: its clock waits. /mock resumes it."
MOCK_PAUSED_LINE = "⏸ Mock exam paused. /mock resumes it."
MOCK_RESUMED = "▶️ Mock exam resumed: {left} left."
MOCK_USAGE = (
    "I did not understand <b>{value}</b>. /mock starts a timed mock exam of the bank's size,"
    " /mock short a quarter of it, /mock stop abandons the one running."
)
MOCK_ALREADY_RUNNING = "You have a mock exam running: here it is. /mock stop abandons it."
MOCK_RESULT_HEAD = "{mark} <b>Mock exam: {percent:.0f}%</b> · {verdict} (pass mark {passing:g}%)"
MOCK_RESULT_LINE = "{correct}/{total} right · time used {used} of {allowed}{expired}"
MOCK_REVIEW_HEAD = "🔎 <b>Mistake {i}/{n}</b> · question {position} of the exam{open}"
MOCK_NO_MISTAKES = "No mistakes to review: every answer was right. 🎉"
MOCK_REVIEW_BUTTON = "🔎 Review mistakes ({n})"
CHART_CAPTION = "Mock exam by topic · pass mark {passing:g}%"
STATS_CAPTION = "Predicted score per topic and your last 30 days"

# Callback answers
CB_MOCK_STALE = "This mock exam is over. /mock starts a new one."
CB_MOCK_NOT_YOURS = "This button is not for you."
CB_MOCK_OTHER_EXAM = (
    "This button's mock exam is gone (a reset or a restore): nothing changed. /mock shows yours."
)
CB_REVIEW_AFTER_EXAM = (
    "Your running mock exam asks some of these questions: review this one after it ends."
    " /mock shows the exam."
)
CB_MOCK_INVALID = "That button is no longer valid. /mock shows your exam."
CB_MOCK_SAVED = "Saved: {letters}"
CB_MOCK_CLEARED = "Nothing selected"
CB_MOCK_TOO_MANY = "This question asks for {count}: untick one first."
CB_MOCK_FLAGGED = "🚩 Flagged for review"
CB_MOCK_UNFLAGGED = "Flag removed"
CB_MOCK_EXPIRED = "⏰ Time is up: your exam was submitted."
CB_MOCK_FINISHED = "Submitted. Your result is below."
CB_MOCK_RUNNING = "You already have a mock exam running: /mock shows it."
CB_MOCK_PAUSED = "⏸ Your mock exam is paused: /mock resumes it."

# Readiness
READY_HEAD = "🎯 <b>Readiness</b> · {bank}"
READY_SCORE = (
    "Predicted exam score: <b>{score:.0f}%</b> (likely {low:.0f}–{high:.0f}%)\n"
    "Chance of passing at {passing:g}%: <b>{probability}</b>"
)
READY_NOW = "If you sat the exam now:"
READY_AT_EXAM = (
    "📅 On your exam date, {date} ({when}), without more practice: <b>{score:.0f}%</b>"
    " (likely {low:.0f}–{high:.0f}%), chance of passing <b>{probability}</b>"
)
READY_EXAM_DATE = "📅 Your exam date: {date} ({when})."
READY_MISSING = "Not enough evidence for a prediction yet ({answers} so far). Missing:\n{what}"
READY_MISSING_ANSWERS = "• {answers}"
READY_MISSING_TOPICS = "• a few answers in: {topics}"
READY_TOPIC = "• {name} ({weight:g}%): {score} · met {met:.0%}"
READY_NOTE = "<i>An estimate from your answers and mock exams; /help explains how.</i>"
MOCKS_HEAD = "<b>Last mock exams</b>"
MOCKS_LINE = "• {date} · {what}"
