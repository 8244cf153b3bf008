"""Item-writing lint: cues that give an answer away without knowing the subject.

Each rule returns warnings as `Problem`s whose message starts with `[rule-name]`; `quizbot
validate` prints them and `--strict` counts them as errors. The rules and their thresholds are
documented for authors in the README ("Question banks"); the cues that only show across many
options live in `bot.bank.cues` and are documented in docs/bank.md.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.bank.cues import find_cues
from bot.bank.limits import MESSAGE_OVERHEAD_CHARS, TELEGRAM_MESSAGE_CHARS
from bot.bank.models import LETTERS, Bank, Kind, Question
from bot.bank.numeric import numeric_values, parse_numeric
from bot.bank.problems import LineFinder, Problem

# A key this many times longer than the longest distractor stands out.
LENGTH_RATIO = 1.3
# Across a bank: the key may be the longest option in at most this share of single-answer
# questions, and one position may hold the key in at most this share of unshuffled ones.
LONGEST_KEY_SHARE = 0.40
POSITION_SHARE = 0.40
# Bank-wide shares say nothing about a handful of questions.
MIN_QUESTIONS_FOR_SHARES = 5
MIN_OPTION_CHARS = 3
ABSOLUTE_WORDS = frozenset(
    (
        "always",
        "never",
        "every",
        "everything",
        "none",
        "nothing",
        "must",
        "guarantee",
        "guarantees",
        "guaranteed",
        "impossible",
        "completely",
        "entirely",
        "invariably",
        "absolutely",
    )
)
CATCH_ALL = re.compile(r"\b(?:all|none|neither|both)\s+of\s+the\s+(?:above|options|these)\b", re.I)
_ARTICLES = frozenset(("a", "an", "the"))


@dataclass(frozen=True)
class _Item:
    """A question with its file, for pointing warnings at lines."""

    question: Question
    path: Path
    finder: LineFinder

    def warn(self, rule: str, loc: tuple[str | int, ...], message: str) -> Problem:
        field = ".".join(str(p) for p in loc) or None
        line = self.finder.line(loc)
        return Problem(self.path, line, self.question.id, field, f"[{rule}] {message}")


def _lengths(q: Question) -> tuple[list[int], list[int]]:
    keys = [len(o.text) for o in q.options if o.correct]
    distractors = [len(o.text) for o in q.options if not o.correct]
    return keys, distractors


def key_longest(item: _Item) -> Iterator[Problem]:
    """Every key longer than every distractor by LENGTH_RATIO or more."""
    q = item.question
    keys, distractors = _lengths(q)
    if not keys or not distractors or min(keys) < LENGTH_RATIO * max(distractors):
        return
    first = min(q.correct_indices)
    what = "the key is" if q.kind is Kind.SINGLE else "every key is"
    yield item.warn(
        "key-longest",
        ("options", first, "text"),
        f"{what} {min(keys) / max(distractors):.1f}x the longest distractor "
        f"({min(keys)} vs {max(distractors)} chars); the longest option should not be a cue",
    )


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _absolutes(text: str) -> list[str]:
    # "None of the above" is the catch-all rule's business, not an absolute claim.
    return sorted(ABSOLUTE_WORDS.intersection(_words(CATCH_ALL.sub(" ", text))))


def absolute_words(item: _Item) -> Iterator[Problem]:
    """Absolute words ("always", "never") in distractors while no key has any."""
    q = item.question
    if any(_absolutes(o.text) for o in q.options if o.correct):
        return
    for i, option in enumerate(q.options):
        found = _absolutes(option.text)
        if found and not option.correct:
            yield item.warn(
                "absolute-words",
                ("options", i, "text"),
                f"{', '.join(repr(w) for w in found)} only in distractors, in no key: "
                "test-wise learners rule such options out",
            )


def catch_all_pin(item: _Item) -> Iterator[Problem]:
    """ "All/None of the above" must be pinned last when options are shuffled."""
    q = item.question
    if not q.shuffle:
        return
    for i, option in enumerate(q.options):
        if CATCH_ALL.search(option.text) and not option.pin:
            yield item.warn(
                "catch-all-pin",
                ("options", i, "text"),
                f"{option.text!r} refers to the other options: add `pin: true` (and make it "
                "the last option) or set `shuffle: false`",
            )


def numeric_order(item: _Item) -> Iterator[Problem]:
    """Options that are all numbers in one unit are listed in ascending order, unshuffled."""
    q = item.question
    values = numeric_values(q)
    if values is None:
        return
    if list(values) != sorted(values):
        hint = " (and set `shuffle: false`)" if q.shuffle else ""
        yield item.warn(
            "numeric-order", ("options",), f"numeric options are not in ascending order{hint}"
        )
    elif q.shuffle:
        yield item.warn(
            "numeric-order",
            ("options",),
            "numeric options without `shuffle: false`: set it, so that the scale reads in order",
        )


def short_option(item: _Item) -> Iterator[Problem]:
    """An option under MIN_OPTION_CHARS characters (numbers excepted) is no real choice."""
    for i, option in enumerate(item.question.options):
        text = option.text.strip()
        if len(text) < MIN_OPTION_CHARS and parse_numeric(text) is None:
            yield item.warn(
                "short-option",
                ("options", i, "text"),
                f"option {LETTERS[i]} {text!r} is under {MIN_OPTION_CHARS} characters",
            )


def _meaning(text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    # Word order rarely changes a claim, but the order of numbers does: "32 bands of 4 rows"
    # and "4 bands of 32 rows" are different options made of the same words.
    words = [w for w in _words(text) if w not in _ARTICLES]
    return frozenset(w for w in words if not w.isdigit()), tuple(w for w in words if w.isdigit())


def duplicate_meaning(item: _Item) -> Iterator[Problem]:
    """Two options with the same words (case, punctuation, articles, word order aside)."""
    seen: dict[tuple[frozenset[str], tuple[str, ...]], int] = {}
    for i, option in enumerate(item.question.options):
        key = _meaning(option.text)
        if key != (frozenset(), ()) and key in seen:
            yield item.warn(
                "duplicate-meaning",
                ("options", i, "text"),
                f"option {LETTERS[i]} says the same as option {LETTERS[seen[key]]}",
            )
        else:
            seen.setdefault(key, i)


def long_verdict(item: _Item) -> Iterator[Problem]:
    """The verdict after a tap (the key, the chosen option's rationale, the explanation and the
    trap) longer than one Telegram message: the bot would send it in several."""
    q = item.question
    fixed = sum(len(o.text) for o in q.options if o.correct) + len(q.explanation)
    fixed += len(q.trap or "") + MESSAGE_OVERHEAD_CHARS
    for i, option in enumerate(q.options):
        length = fixed + len(option.rationale)
        if length > TELEGRAM_MESSAGE_CHARS:
            yield item.warn(
                "long-verdict",
                ("options", i, "rationale"),
                f"the verdict after option {LETTERS[i]} is about {length} characters, more than "
                f"one Telegram message ({TELEGRAM_MESSAGE_CHARS}): shorten its rationale, the "
                "explanation or the trap",
            )
            return  # one warning says it: the explanation and trap are in every verdict


QUESTION_RULES: Sequence[Callable[[_Item], Iterator[Problem]]] = (
    key_longest,
    absolute_words,
    catch_all_pin,
    numeric_order,
    short_option,
    duplicate_meaning,
    long_verdict,
)


def _key_is_longest(q: Question) -> bool:
    keys, distractors = _lengths(q)
    return bool(keys and distractors) and keys[0] > max(distractors)


def _bank_rules(bank: Bank, bank_file: Path) -> Iterator[Problem]:
    line = LineFinder(bank_file.read_bytes()).line(("id",)) if bank_file.is_file() else None
    used = {t.id for t in bank.topics_with_questions()}
    for i, topic in enumerate(bank.meta.topics):
        if topic.id not in used:
            yield Problem(
                bank_file,
                LineFinder(bank_file.read_bytes()).line(("topics", i, "id")),
                None,
                f"topics.{i}",
                f"[empty-topic] topic {topic.id!r} has no questions; the bot does not offer it",
            )
    tagged = {o.misconception for q in bank.questions.values() for o in q.options}
    for i, misconception in enumerate(bank.meta.misconceptions):
        if misconception.id not in tagged:
            yield Problem(
                bank_file,
                LineFinder(bank_file.read_bytes()).line(("misconceptions", i, "id")),
                None,
                f"misconceptions.{i}",
                f"[unused-misconception] {misconception.id!r} is declared but tags no option",
            )
    singles = [q for q in bank.questions.values() if q.kind is Kind.SINGLE]
    if len(singles) >= MIN_QUESTIONS_FOR_SHARES:
        longest = sum(_key_is_longest(q) for q in singles)
        if longest > LONGEST_KEY_SHARE * len(singles):
            yield Problem(
                bank_file,
                line,
                None,
                None,
                f"[key-longest-share] the key is the longest option in {longest} of "
                f"{len(singles)} single-answer questions ({longest / len(singles):.0%}, over "
                f"{LONGEST_KEY_SHARE:.0%})",
            )
    fixed = [q for q in singles if not q.shuffle]
    if len(fixed) < MIN_QUESTIONS_FOR_SHARES:
        return
    counts: Counter[str] = Counter()
    chances: dict[str, float] = {}
    for q in fixed:
        n, key = len(q.options), min(q.correct_indices)
        counts[LETTERS[key]] += 1
        counts["last"] += key == n - 1
        for label in (*LETTERS[:n], "last"):
            chances[label] = chances.get(label, 0.0) + 1 / n
    for label, chance in sorted(chances.items()):
        count = counts[label]
        # Chance alone puts the key last in half of two-option questions: compare with it too.
        if count > max(POSITION_SHARE * len(fixed), 1.5 * chance):
            where = "last" if label == "last" else f"option {label}"
            yield Problem(
                bank_file,
                line,
                None,
                None,
                f"[key-position] the key is {where} in {count} of {len(fixed)} questions with "
                f"shuffle: false ({count / len(fixed):.0%}; chance would give {chance:.1f})",
            )


def lint_bank(bank: Bank, bank_dir: Path, files: Mapping[str, Path]) -> list[Problem]:
    """Every item-writing warning for one bank, question rules first, then bank-wide ones."""
    warnings: list[Problem] = []
    items: dict[str, _Item] = {}
    for qid, question in bank.questions.items():
        path = files.get(qid, bank_dir)
        source = path.read_bytes() if path.is_file() else b""
        item = items[qid] = _Item(question, path, LineFinder(source))
        for rule in QUESTION_RULES:
            warnings.extend(rule(item))
    bank_file = bank_dir / "bank.yaml"
    warnings.extend(_bank_rules(bank, bank_file))
    line = LineFinder(bank_file.read_bytes()).line(("id",)) if bank_file.is_file() else None
    for cue in find_cues(bank):
        if cue.question_id is None:
            warnings.append(Problem(bank_file, line, None, None, f"[{cue.rule}] {cue.message}"))
        else:
            warnings.append(items[cue.question_id].warn(cue.rule, cue.loc, cue.message))
    return warnings
