"""Plain text measures the cue rules share: words, ideas, clauses, and options that mirror."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*")
_CLAUSE_BREAK = re.compile(r";|:\s|,(?!\d)|\b(?:and|plus|then|while|whereas)\b", re.IGNORECASE)
STOPWORDS = frozenset(
    """
    a an the of to in on at by for from with without into onto over under as is are was were
    be been being it its it's this that these those which who whom whose what when where why how
    and or but nor so if then than not no yes do does did doing done has have had having can
    could will would shall should may might must one two each every all any some more most less
    least few fewer many much very only just also even still too same other another such own
    there here their they them he she his her we our you your i me my us up down out about
    again once both either neither while whereas until after before because since given
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
NEGATORS = frozenset(("not", "no", "never", "without", "cannot", "nor", "doesn't", "isn't"))
ANTONYMS = tuple(
    tuple(pair.split("/"))
    for pair in """
    increase/decrease increases/decreases increasing/decreasing raise/lower raises/lowers
    rise/fall rises/falls grow/shrink grows/shrinks higher/lower more/fewer more/less
    larger/smaller longer/shorter faster/slower before/after earlier/later early/late
    first/last add/remove adds/removes enable/disable enabled/disabled with/without
    above/below inside/outside helps/hurts improves/degrades better/worse can/cannot
    does/doesn't is/isn't double/halve doubles/halves same/different up/down on/off
    """.split()  # noqa: SIM905
)
_OPPOSITES: dict[str, frozenset[str]] = {
    w: frozenset(b if a == w else a for a, b in ANTONYMS if w in (a, b))
    for pair in ANTONYMS
    for w in pair
}


def words(text: str) -> list[str]:
    """Lower-case words, hyphenated and apostrophe forms kept whole."""
    return _WORD.findall(text.casefold())


def stem(word: str) -> str:
    """A crude stem: "fine-tune", "fine-tuned" and "fine-tuning" must count as one idea, and
    "agent's" as "agent"."""
    word = word.removesuffix("'s").removesuffix("’s")
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def is_content(word: str) -> bool:
    """Neither a function word nor a number."""
    return word not in STOPWORDS and not word[0].isdigit()


def ideas(text: str) -> dict[str, str]:
    """Each idea in `text` (stemmed word or adjacent pair) with the words it was written as."""
    ws = words(text)
    found: dict[str, str] = {}
    for i, w in enumerate(ws):
        if not is_content(w):
            continue
        found.setdefault(stem(w), w)
        if i + 1 < len(ws) and is_content(ws[i + 1]):
            found.setdefault(f"{stem(w)} {stem(ws[i + 1])}", f"{w} {ws[i + 1]}")
    return found


def clauses(text: str) -> int:
    """How many clauses or listed items an option bundles (1 for a plain statement)."""
    return 1 + len(_CLAUSE_BREAK.findall(text))


def mirrored(a: Sequence[str], b: Sequence[str], shared: float) -> bool:
    """True when words `b` say words `a`'s opposite: the same words (at least `shared` of the
    longer) but for negations and antonyms."""
    longer = max(len(a), len(b))
    if not longer or min(len(a), len(b)) < shared * longer:
        return False
    wa, wb = Counter(a), Counter(b)
    if sum((wa & wb).values()) < shared * longer:
        return False
    only_a, only_b = list((wa - wb).elements()), list((wb - wa).elements())
    flipped = any(w in NEGATORS for w in (*only_a, *only_b))
    rest_a = [w for w in only_a if w not in NEGATORS]
    rest_b = [w for w in only_b if w not in NEGATORS]
    for w in list(rest_a):
        match = next((x for x in rest_b if x in _OPPOSITES.get(w, ())), None)
        if match is not None:
            rest_a.remove(w)
            rest_b.remove(match)
            flipped = True
    return flipped and not rest_a and not rest_b
