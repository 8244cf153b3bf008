"""The flag rules: which figures make a question worth an author's second look."""

from __future__ import annotations

from bot.analysis.model import (
    NON_FUNCTIONING_SHARE,
    TOO_EASY_P,
    TOO_HARD_P,
    WEAK_R,
    Flag,
    FlagKind,
    OptionStats,
)


def _mis_keyed(options: tuple[OptionStats, ...]) -> Flag | None:
    """A wrong option that more of the upper group pick than pick the (weakest) key."""
    keys = [o for o in options if o.correct and o.upper_share is not None]
    if not keys:
        return None
    key = min(keys, key=lambda o: o.upper_share or 0.0)
    key_share = key.upper_share or 0.0
    rivals = [o for o in options if not o.correct and (o.upper_share or 0.0) > key_share]
    if not rivals:
        return None
    top = max(rivals, key=lambda o: o.upper_share or 0.0)
    return Flag(
        FlagKind.MIS_KEYED,
        f"option {top.letter} is picked by {top.upper_share or 0.0:.0%} of the upper group, "
        f"the key {key.letter} by {key_share:.0%}: likely mis-keyed",
        top.index,
    )


def question_flags(
    p: float | None, r: float | None, options: tuple[OptionStats, ...]
) -> tuple[Flag, ...]:
    """Every flag the figures of one question raise, worst first."""
    flags: list[Flag] = []
    mis_keyed = _mis_keyed(options)
    if mis_keyed:
        flags.append(mis_keyed)
    if r is not None and r < 0:
        flags.append(
            Flag(
                FlagKind.NEGATIVE,
                f"r = {r:.2f} < 0: weaker learners get it right more often than stronger "
                "ones; check the key",
            )
        )
    elif r is not None and r < WEAK_R:
        flags.append(
            Flag(
                FlagKind.WEAK,
                f"r = {r:.2f} < {WEAK_R:.2f}: hardly separates stronger from weaker learners",
            )
        )
    if p is not None and p < TOO_HARD_P:
        flags.append(Flag(FlagKind.TOO_HARD, f"p = {p:.2f} < {TOO_HARD_P:.2f}: too hard"))
    if p is not None and p > TOO_EASY_P:
        flags.append(Flag(FlagKind.TOO_EASY, f"p = {p:.2f} > {TOO_EASY_P:.2f}: too easy"))
    for o in options:
        if o.picked == 0:
            role = "the key" if o.correct else "distractor"
            flags.append(
                Flag(
                    FlagKind.NEVER_PICKED, f"option {o.letter} ({role}) was never picked", o.index
                )
            )
        elif not o.correct and o.share < NON_FUNCTIONING_SHARE:
            flags.append(
                Flag(
                    FlagKind.NON_FUNCTIONING,
                    f"option {o.letter} is picked by {o.share:.1%} "
                    f"(< {NON_FUNCTIONING_SHARE:.0%}): a non-functioning distractor",
                    o.index,
                )
            )
    flags.sort(key=lambda f: -f.kind.severity)
    return tuple(flags)
