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
from bot.bank.wording import clauses, ideas, is_content, mirrored, stem, words

# A clause that gives the option's own reason ("keep it as it is" gives none).
JUSTIFICATION = re.compile(
    r"\b(?:because|since|so that|which means|which is why|in order to|thanks to|due to|"
    r"given that|as (?:it|they|this)\b(?! (?:is|are|was|were|stands)\b))\b",
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

# Two stems sharing this share of their content words (Jaccard) ask the same thing.
STEM_JACCARD = 0.6

# Two options whose words differ only by negations or antonyms share this much of them.
MIRROR_SHARED = 0.6

# A phrase of this many words, reused in this share of rationales (and at least this often).
FORMULA_WORDS = 4
FORMULA_SHARE = 0.02
FORMULA_MIN = 5
# The first words of a rationale, reused in this share of rationales (and at least this often).
OPENER_WORDS = 3
OPENER_SHARE = 0.04
# A bank-wide warning names this many of the questions it counted.
EXAMPLES = 3


@dataclass(frozen=True)
class Cue:
    """One warning: about a question (and a field of it) or, without a question, the bank."""

    rule: str
    message: str
    question_id: str | None = None
    loc: tuple[str | int, ...] = ()


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
    written: dict[str, str] = {}
    for q in bank.questions.values():
        for o in q.options:
            for idea, form in ideas(o.text).items():
                written.setdefault(idea, form)
                if o.correct:
                    in_keys[idea] += 1
                else:
                    in_distractors[idea].append(q.id)
    found = []
    for idea, ids in in_distractors.items():
        d, k = len(ids), in_keys[idea]
        if d >= STOCK_MIN_DISTRACTORS and d / len(distractors) > STOCK_RATIO * (k + 1) / len(keys):
            found.append((idea, written[idea], d, k, ids))
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
    return frozenset(stem(w) for w in words(q.stem) if is_content(w))


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


def mirrored_options(q: Question) -> Iterator[Cue]:
    """Exactly one pair of options that negate each other, so one of the two looks like the key."""
    texts = [words(o.text) for o in q.options]
    pairs = [
        (i, j)
        for (i, a), (j, b) in itertools.combinations(enumerate(texts), 2)
        if mirrored(a, b, MIRROR_SHARED)
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
    found: defaultdict[tuple[str, ...], list[str]] = defaultdict(list)
    for qid, ws in rationales:
        found[("opener", *ws[:OPENER_WORDS])].append(qid)
        grams = {tuple(ws[i : i + FORMULA_WORDS]) for i in range(len(ws) - FORMULA_WORDS + 1)}
        for gram in grams:
            found[("phrase", *gram)].append(qid)
    limits = {
        "opener": max(FORMULA_MIN, OPENER_SHARE * len(rationales)),
        "phrase": max(FORMULA_MIN, FORMULA_SHARE * len(rationales)),
    }
    return sorted(
        (
            (what, " ".join(gram), len(ids), ids)
            for (what, *gram), ids in found.items()
            # Numbers repeated across options are a worked calculation, not a formula.
            if len(ids) >= limits[what] and not any(w[0].isdigit() for w in gram)
        ),
        key=lambda f: (-f[2], f[0], f[1]),
    )


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
