"""Cues that only show across many options: wording habits that mark the key or the distractors.

A learner who has seen a few hundred questions learns a bank's habits: distractors that argue
for themselves ("..., since ..."), one idea that is always wrong, keys that bundle every good
practice, two options that negate each other. Each rule here returns `Cue`s; `bot.bank.lint`
points them at files and lines. The limits are documented for authors in docs/bank.md.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from bot.bank.models import LETTERS, Bank, Kind, Option, Question

# A clause that gives the option's own reason.
JUSTIFICATION = re.compile(
    r"\b(?:because|since|so that|as (?:it|they|this)\b(?! (?:is|are|was|were|stands)\b)|"
    r"which means|which is why|in order to|"
    r"thanks to|due to|given that)\b",
    re.IGNORECASE,
)
# The justified share of one side may exceed the other's by this factor plus this slack.
JUSTIFICATION_RATIO = 1.5
JUSTIFICATION_SLACK = 0.03
# Bank-wide shares need this many keys before they say anything.
MIN_KEYS = 20

# An idea (a word or two adjacent words) in at least this many distractors...
STOCK_MIN_DISTRACTORS = 10
# ...whose share of distractors is this many times its share of keys (one key added to its
# count, so that an idea in no key is not infinitely suspect).
STOCK_RATIO = 6.0

# Per question: a key with this many more clauses than its wordiest distractor bundles.
BUNDLE_MARGIN = 2
# Bank-wide: the key out-clauses every distractor in at most this many times the share a
# randomly chosen option would, plus the slack.
BUNDLE_RATIO = 1.5
BUNDLE_SLACK = 0.03
_CLAUSE_BREAK = re.compile(r";|:\s|,(?!\d)|\b(?:and|plus|then|while|whereas)\b", re.IGNORECASE)

# Two stems sharing this share of their content words (Jaccard) ask the same thing.
STEM_JACCARD = 0.6

# Two options whose words differ only by a negation or by antonyms, and share this much.
MIRROR_SHARED = 0.6
NEGATORS = frozenset(("not", "no", "never", "without", "cannot", "nor", "doesn't", "isn't"))
ANTONYMS = (
    ("increase", "decrease"),
    ("increases", "decreases"),
    ("increasing", "decreasing"),
    ("raise", "lower"),
    ("raises", "lowers"),
    ("rises", "falls"),
    ("rise", "fall"),
    ("grows", "shrinks"),
    ("grow", "shrink"),
    ("higher", "lower"),
    ("more", "fewer"),
    ("more", "less"),
    ("larger", "smaller"),
    ("longer", "shorter"),
    ("faster", "slower"),
    ("before", "after"),
    ("earlier", "later"),
    ("early", "late"),
    ("first", "last"),
    ("add", "remove"),
    ("adds", "removes"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("with", "without"),
    ("above", "below"),
    ("inside", "outside"),
    ("helps", "hurts"),
    ("improves", "degrades"),
    ("better", "worse"),
    ("can", "cannot"),
    ("does", "doesn't"),
    ("is", "isn't"),
    ("doubles", "halves"),
    ("double", "halve"),
    ("same", "different"),
    ("up", "down"),
    ("on", "off"),
)

# A phrase of this many words, reused in this share of rationales (and at least this often).
FORMULA_WORDS = 4
FORMULA_SHARE = 0.02
FORMULA_MIN = 5
# The first words of a rationale, reused in this share of rationales (and at least this often).
OPENER_WORDS = 3
OPENER_SHARE = 0.04
EXAMPLES = 3

_STOPWORD_TEXT = """
    a an the of to in on at by for from with without into onto over under as is are was were
    be been being it its it's this that these those which who whom whose what when where why how
    and or but nor so if then than not no yes do does did doing done has have had having can
    could will would shall should may might must one two each every all any some more most less
    least few fewer many much very only just also even still too same other another such own
    there here their they them he she his her we our you your i me my us up down out about
    again once both either neither while whereas until after before because since given"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*")


@dataclass(frozen=True)
class Cue:
    """One warning: about a question (and a field of it) or, without a question, the bank."""

    rule: str
    message: str
    question_id: str | None = None
    loc: tuple[str | int, ...] = ()


def words(text: str) -> list[str]:
    """Lower-case words, hyphenated and apostrophe forms kept whole."""
    return _WORD.findall(text.casefold())


def _stem(word: str) -> str:
    # Crude on purpose: "fine-tune", "fine-tuned" and "fine-tuning" must count as one idea.
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _content(word: str) -> bool:
    return word not in STOPWORDS and not word[0].isdigit()


def _ideas(text: str) -> dict[str, str]:
    """Each idea in `text` (stemmed word or adjacent pair) with the words it was written as."""
    ws = words(text)
    found: dict[str, str] = {}
    for i, w in enumerate(ws):
        if not _content(w):
            continue
        found.setdefault(_stem(w), w)
        if i + 1 < len(ws) and _content(ws[i + 1]):
            found.setdefault(f"{_stem(w)} {_stem(ws[i + 1])}", f"{w} {ws[i + 1]}")
    return found


def clauses(text: str) -> int:
    """How many clauses or listed items an option bundles (1 for a plain statement)."""
    return 1 + len(_CLAUSE_BREAK.findall(text))


def _options(bank: Bank) -> tuple[list[Option], list[Option]]:
    questions = bank.questions.values()
    keys = [o for q in questions for o in q.options if o.correct]
    distractors = [o for q in questions for o in q.options if not o.correct]
    return keys, distractors


def _examples(ids: Iterable[str]) -> str:
    unique = list(dict.fromkeys(ids))
    more = f" and {len(unique) - EXAMPLES} more" if len(unique) > EXAMPLES else ""
    return ", ".join(unique[:EXAMPLES]) + more


def justification_shares(bank: Bank) -> tuple[float, float]:
    """(share of keys, share of distractors) whose text gives its own reason."""
    keys, distractors = _options(bank)
    if not keys or not distractors:
        return 0.0, 0.0

    def share(options: Sequence[Option]) -> float:
        return sum(bool(JUSTIFICATION.search(o.text)) for o in options) / len(options)

    return share(keys), share(distractors)


def justification_cue(bank: Bank) -> Iterator[Cue]:
    """Reasons ("because", "since", "so that") much more common on one side than the other."""
    keys, _ = _options(bank)
    if len(keys) < MIN_KEYS:
        return
    key, wrong = justification_shares(bank)
    for side, high, other, low in (
        ("distractors", wrong, "keys", key),
        ("keys", key, "distractors", wrong),
    ):
        if high > JUSTIFICATION_RATIO * low + JUSTIFICATION_SLACK:
            yield Cue(
                "justification-cue",
                f"{high:.0%} of {side} give their own reason ('because', 'since', 'so that'...) "
                f"against {low:.0%} of {other} (limit {JUSTIFICATION_RATIO}x "
                f"+ {JUSTIFICATION_SLACK:.0%}): learners strike or pick options by that habit; "
                f"drop the reason from some {side} or give some {other} theirs",
            )


def stock_ideas(bank: Bank) -> list[tuple[str, int, int, list[str]]]:
    """(idea as written, distractors, keys, question ids) for each idea over the limit."""
    keys, distractors = _options(bank)
    if len(keys) < MIN_KEYS:
        return []
    in_keys: Counter[str] = Counter()
    in_distractors: defaultdict[str, list[str]] = defaultdict(list)
    written: dict[str, Counter[str]] = defaultdict(Counter)
    for q in bank.questions.values():
        for o in q.options:
            for idea, form in _ideas(o.text).items():
                written[idea][form] += 1
                if o.correct:
                    in_keys[idea] += 1
                else:
                    in_distractors[idea].append(q.id)
    found = []
    for idea, ids in in_distractors.items():
        d, k = len(ids), in_keys[idea]
        if d >= STOCK_MIN_DISTRACTORS and d / len(distractors) > STOCK_RATIO * (k + 1) / len(keys):
            found.append((idea, written[idea].most_common(1)[0][0], d, k, ids))
    flagged = {idea for idea, *_ in found}
    # A pair of words says no more than its flagged word alone.
    return [
        (form, d, k, ids)
        for idea, form, d, k, ids in sorted(found, key=lambda f: -f[2])
        if " " not in idea or not flagged.intersection(idea.split())
    ]


def stock_distractor(bank: Bank) -> Iterator[Cue]:
    """An idea that is nearly always the wrong option."""
    for form, d, k, ids in stock_ideas(bank):
        yield Cue(
            "stock-distractor",
            f"{form!r} is in {d} distractors and {k} keys (e.g. {_examples(ids)}): learners "
            "strike it unread; let some keys use it or give those distractors other near misses",
        )


def _bundles(q: Question) -> tuple[int, int] | None:
    keys = [clauses(o.text) for o in q.options if o.correct]
    distractors = [clauses(o.text) for o in q.options if not o.correct]
    if not keys or not distractors:
        return None
    return min(keys), max(distractors)


def key_bundling_question(q: Question) -> Iterator[Cue]:
    """A key that bundles clearly more clauses than every distractor."""
    counts = _bundles(q)
    if counts is None or counts[0] < counts[1] + BUNDLE_MARGIN:
        return
    first = min(q.correct_indices)
    yield Cue(
        "key-bundling",
        f"the key bundles {counts[0]} clauses against at most {counts[1]} in a distractor: "
        "learners pick the option that lists every good practice; split it or give "
        "distractors as much detail",
        q.id,
        ("options", first, "text"),
    )


def bundling_shares(bank: Bank) -> tuple[float, float]:
    """(observed, chance) share of single-answer questions whose key out-clauses the rest."""
    singles = [q for q in bank.questions.values() if q.kind is Kind.SINGLE]
    if not singles:
        return 0.0, 0.0
    observed = chance = 0.0
    for q in singles:
        counts = [clauses(o.text) for o in q.options]
        top = max(counts)
        unique = counts.count(top) == 1
        observed += unique and q.options[counts.index(top)].correct
        chance += unique / len(counts)
    return observed / len(singles), chance / len(singles)


def key_bundling(bank: Bank) -> Iterator[Cue]:
    """Across the bank, the key has the most clauses far more often than chance gives."""
    if sum(q.kind is Kind.SINGLE for q in bank.questions.values()) < MIN_KEYS:
        return
    observed, chance = bundling_shares(bank)
    if observed > BUNDLE_RATIO * chance + BUNDLE_SLACK:
        yield Cue(
            "key-bundling",
            f"the key has the most clauses in {observed:.0%} of single-answer questions; a "
            f"random option would in {chance:.0%} (limit {BUNDLE_RATIO}x + {BUNDLE_SLACK:.0%}): "
            "trim keys to their one decisive point or give distractors their own detail",
        )


def _stem_words(q: Question) -> frozenset[str]:
    return frozenset(_stem(w) for w in words(q.stem) if _content(w))


def near_duplicate_pairs(bank: Bank) -> list[tuple[str, str, float]]:
    """(earlier id, later id, Jaccard similarity) of stems that ask nearly the same thing."""
    stems = [(q.id, _stem_words(q)) for q in bank.questions.values()]
    found = []
    for (a, wa), (b, wb) in itertools.combinations(stems, 2):
        shared = len(wa & wb)
        if shared and shared >= STEM_JACCARD * (len(wa) + len(wb) - shared):
            found.append((a, b, shared / (len(wa) + len(wb) - shared)))
    return found


def near_duplicate_stem(bank: Bank) -> Iterator[Cue]:
    """Two questions whose stems are near duplicates."""
    for a, b, similarity in near_duplicate_pairs(bank):
        yield Cue(
            "near-duplicate-stem",
            f"the stem is {similarity:.0%} like {a!r}'s: the two can meet in one mock and one "
            "gives the other away; refocus one on a different decision or retire it",
            b,
            ("stem",),
        )


_OPPOSITE: dict[str, frozenset[str]] = {
    w: frozenset(b for a2, b in ANTONYMS if a2 == w)
    | frozenset(a for a, b2 in ANTONYMS if b2 == w)
    for pair in ANTONYMS
    for w in pair
}


def mirrored(a: Sequence[str], b: Sequence[str]) -> bool:
    """True when words `b` say words `a`'s opposite: the same but for negations and antonyms."""
    longer = max(len(a), len(b))
    if not longer or min(len(a), len(b)) < MIRROR_SHARED * longer:
        return False
    wa, wb = Counter(a), Counter(b)
    if sum((wa & wb).values()) < MIRROR_SHARED * longer:
        return False
    only_a, only_b = list((wa - wb).elements()), list((wb - wa).elements())
    flipped = any(w in NEGATORS for w in (*only_a, *only_b))
    rest_a = [w for w in only_a if w not in NEGATORS]
    rest_b = [w for w in only_b if w not in NEGATORS]
    for w in list(rest_a):
        match = next((x for x in rest_b if x in _OPPOSITE.get(w, ())), None)
        if match is not None:
            rest_a.remove(w)
            rest_b.remove(match)
            flipped = True
    return flipped and not rest_a and not rest_b


def mirrored_options(q: Question) -> Iterator[Cue]:
    """Exactly one pair of options that negate each other, so one of the two looks like the key."""
    texts = [words(o.text) for o in q.options]
    pairs = [
        (i, j) for (i, a), (j, b) in itertools.combinations(enumerate(texts), 2) if mirrored(a, b)
    ]
    # Several mirrored pairs form a grid of combinations (both rise, one rises...): no cue.
    if len(pairs) != 1:
        return
    i, j = pairs[0]
    yield Cue(
        "mirrored-options",
        f"options {LETTERS[i]} and {LETTERS[j]} negate each other, so learners narrow the "
        "choice to those two; rewrite one as a different near miss",
        q.id,
        ("options", j, "text"),
    )


def _rationales(bank: Bank) -> list[tuple[str, list[str]]]:
    return [(q.id, words(o.rationale)) for q in bank.questions.values() for o in q.options]


def formula_phrases(bank: Bank) -> list[tuple[str, str, int, list[str]]]:
    """(what, phrase, rationales, question ids) for each formula over its limit."""
    rationales = _rationales(bank)
    if len(rationales) < MIN_KEYS:
        return []
    counts: Counter[tuple[str, ...]] = Counter()
    for _, ws in rationales:
        counts[("opener", *ws[:OPENER_WORDS])] += 1
        counts.update(
            {("phrase", *ws[i : i + FORMULA_WORDS]) for i in range(len(ws) - FORMULA_WORDS + 1)}
        )
    limits = {
        "opener": max(FORMULA_MIN, OPENER_SHARE * len(rationales)),
        "phrase": max(FORMULA_MIN, FORMULA_SHARE * len(rationales)),
    }
    # Numbers repeated across options are a worked calculation, not a formula.
    over = {
        gram
        for gram, n in counts.items()
        if n >= limits[gram[0]] and not any(w[0].isdigit() for w in gram[1:])
    }
    found: dict[tuple[str, ...], list[str]] = {gram: [] for gram in over}
    for qid, ws in rationales:
        for gram in over:
            text = ws[:OPENER_WORDS] if gram[0] == "opener" else ws
            if _contains(text, gram[1:]):
                found[gram].append(qid)
    return sorted(
        ((g[0], " ".join(g[1:]), len(ids), ids) for g, ids in found.items()),
        key=lambda f: (-f[2], f[0], f[1]),
    )


def _contains(ws: Sequence[str], gram: Sequence[str]) -> bool:
    n = len(gram)
    return any(tuple(ws[i : i + n]) == tuple(gram) for i in range(len(ws) - n + 1))


def formulaic_rationale(bank: Bank) -> Iterator[Cue]:
    """A rationale opener or phrase reused across many options."""
    total = sum(len(q.options) for q in bank.questions.values())
    for what, text, n, ids in formula_phrases(bank):
        yield Cue(
            "formulaic-rationale",
            f"the {what} {text!r} is in {n} of {total} rationales (e.g. {_examples(ids)}): "
            "a formula reads as filler and hides the option's own reason; say why this option "
            "tempts in its own words",
        )


QUESTION_CUES = (key_bundling_question, mirrored_options)
BANK_CUES = (
    justification_cue,
    stock_distractor,
    key_bundling,
    near_duplicate_stem,
    formulaic_rationale,
)


def find_cues(bank: Bank) -> list[Cue]:
    """Every cue in `bank`: per question first, then across the bank."""
    found = [cue for q in bank.questions.values() for rule in QUESTION_CUES for cue in rule(q)]
    found.extend(cue for rule in BANK_CUES for cue in rule(bank))
    return found
