"""Reloading the question banks without a restart: validate everything first, then swap.

Used by `/reload` (admins) and by SIGHUP. A set of banks with any problem is refused whole and
the catalog in use stays; nothing in the database changes, so answers to questions that a new
bank no longer has keep their history, and their old buttons get the "withdrawn" answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.bank.cache import cache_path
from bot.bank.loader import load_banks
from bot.bank.models import Bank
from bot.plural import plural
from bot.practice.catalog import Catalog
from bot.storage import bot_status
from bot.telegram.context import QuizApp, Services

log = logging.getLogger(__name__)

SHOWN_PROBLEMS = 5


@dataclass
class ReloadOutcome:
    """What a reload did: swapped (ok) or refused, and why."""

    ok: bool
    banks: dict[str, int] = field(default_factory=dict)  # bank id -> questions
    added: int = 0
    removed: int = 0
    changed: int = 0  # stem, options or key edited (answers on screen are not misgraded)
    problems: list[str] = field(default_factory=list)
    topics: list[TopicChanges] = field(default_factory=list)  # banks whose topics changed

    def topic_lines(self) -> list[str]:
        """One line per bank whose topics or question-to-topic filing changed."""
        return [line for t in self.topics if (line := t.line())]

    def summary(self) -> str:
        """One line for the log."""
        if not self.ok:
            return f"reload refused: {plural(len(self.problems), 'problem')}, the old banks stay"
        banks = ", ".join(f"{b} ({n})" for b, n in self.banks.items())
        text = (
            f"reloaded {banks}: {plural(self.added, 'question')} added, {self.removed} removed, "
            f"{self.changed} changed"
        )
        return "; ".join([text, *self.topic_lines()])


@dataclass
class TopicChanges:
    """How one bank's topics changed in a reload: topics added, removed, renamed (same id with
    a new name, or an id whose every question went to one new id), and questions filed under
    another topic (the answers given before keep the topic they were given in)."""

    bank_id: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    renamed: list[str] = field(default_factory=list)  # "old → new" (ids or names)
    moved: dict[tuple[str, str], int] = field(default_factory=dict)  # (from, to) -> questions

    def line(self) -> str:
        """What changed, for the log and the admin's reply ('' when nothing did)."""
        parts = []
        if self.added:
            parts.append("topics added: " + ", ".join(self.added))
        if self.removed:
            parts.append("topics removed: " + ", ".join(self.removed))
        if self.renamed:
            parts.append("renamed: " + ", ".join(self.renamed))
        if self.moved:
            n = sum(self.moved.values())
            pairs = ", ".join(f"{a} → {b} {k}" for (a, b), k in sorted(self.moved.items()))
            parts.append(f"{plural(n, 'question')} moved between topics ({pairs})")
        return f"{self.bank_id}: " + "; ".join(parts) if parts else ""


def topic_changes(old: Bank, new: Bank) -> TopicChanges:
    """What a reload does to one bank's topics and to the filing of the questions kept."""
    names_old = {t.id: t.name for t in old.meta.topics}
    names_new = {t.id: t.name for t in new.meta.topics}
    moved: dict[tuple[str, str], int] = {}
    for qid, q in new.questions.items():
        before = old.questions.get(qid)
        if before is not None and before.topic != q.topic:
            moved[(before.topic, q.topic)] = moved.get((before.topic, q.topic), 0) + 1
    gone = [t for t in names_old if t not in names_new]
    fresh = [t for t in names_new if t not in names_old]
    renamed = [
        f"{names_old[t]} → {names_new[t]}"
        for t in names_old
        if t in names_new and names_old[t] != names_new[t]
    ]
    # An id whose kept questions all went to one new id, which took no others: a new id.
    for t in list(gone):
        targets = {b for (a, b) in moved if a == t}
        if (
            len(targets) == 1
            and (b := targets.pop()) in fresh
            and all(a == t for (a, bb) in moved if bb == b)
            and not any(q.topic == b and q.id not in old.questions for q in new.questions.values())
        ):
            renamed.append(f"{t} → {b}")
            gone.remove(t)
            fresh.remove(b)
            del moved[(t, b)]
    return TopicChanges(new.id, fresh, gone, renamed, moved)


def _keys(banks: Mapping[str, Bank]) -> set[tuple[str, str]]:
    return {(bank_id, qid) for bank_id, bank in banks.items() for qid in bank.questions}


async def reload_catalog(
    catalog: Catalog, paths: Sequence[Path], cache: Path | None = None
) -> ReloadOutcome:
    """Load the banks at `paths`; swap them into `catalog` only if all of them are valid.
    With `cache`, files unchanged since they were last parsed come from that cache file."""
    # Parsing thousands of YAML files takes a while: off the event loop, so updates keep flowing.
    result = await asyncio.to_thread(load_banks, list(paths), cache)
    if result.problems or not result.banks:
        problems = [str(p) for p in result.problems] or ["no question bank found"]
        outcome = ReloadOutcome(ok=False, problems=problems)
    else:
        old, new = _keys(catalog.banks), _keys(result.banks)
        before = {key: catalog.version(*key) for key in old & new}
        previous = dict(catalog.banks)
        # The swap is one assignment on the event loop: a handler sees the old or the new set,
        # never a mix.
        catalog.replace(result.banks)
        outcome = ReloadOutcome(
            ok=True,
            banks={b: len(bank.questions) for b, bank in result.banks.items()},
            added=len(new - old),
            removed=len(old - new),
            changed=sum(catalog.version(*key) != v for key, v in before.items()),
            topics=[
                c
                for bank_id, bank in result.banks.items()
                if (was := previous.get(bank_id)) is not None
                and (c := topic_changes(was, bank)).line()
            ],
        )
    if outcome.ok:
        log.info("%s", outcome.summary())
    else:
        log.warning("%s; first: %s", outcome.summary(), " | ".join(outcome.problems[:3]))
    return outcome


async def _reload_own(services: Services) -> ReloadOutcome:
    settings = services.settings
    return await reload_catalog(
        catalog=services.catalog, paths=settings.questions, cache=cache_path(settings.db)
    )


async def reload_services(services: Services) -> ReloadOutcome:
    """Reload the banks the settings name into the running catalog; once swapped, count the
    reload in the database, so that the other processes on it reload too (`follow_reloads`)."""
    outcome = await _reload_own(services)
    if outcome.ok:
        now = services.clock.now()
        version = await services.db.write(lambda c: bot_status.bump_bank_version(c, now))
        # Another process's reload counted meanwhile is caught up with on the next beat anyway:
        # only a later count than the one seen is news.
        services.bank_version = max(services.bank_version, version)
    return outcome


async def note_bank_version(services: Services) -> None:
    """At the start, with the banks just loaded from disk: reloads counted so far are in them."""
    services.bank_version = await services.db.read(bot_status.bank_version)


async def follow_reloads(services: Services) -> ReloadOutcome | None:
    """Reload here when another process on the database reloaded since this one last did
    (None: nobody did). Each process reads the banks from its own disk."""
    version = await services.db.read(bot_status.bank_version)
    if version <= services.bank_version:
        return None
    # Caught up with even when refused: the refusal is logged once, not every beat.
    services.bank_version = version
    log.info("another process reloaded the question banks: reloading here")
    return await _reload_own(services)


async def follow_forever(services: Services, every: float) -> None:
    """`follow_reloads` every `every` seconds."""
    while True:
        try:
            await follow_reloads(services)
        except Exception as err:  # the database is away: look again on the next beat
            log.warning("could not check for reloads by other processes: %s", err)
        await asyncio.sleep(every)


# Tasks started by the signal handler; a reference keeps them from being garbage-collected.
_signal_tasks: set[asyncio.Task[ReloadOutcome]] = set()


def _signal_done(task: asyncio.Task[ReloadOutcome]) -> None:
    _signal_tasks.discard(task)
    if not task.cancelled() and (err := task.exception()) is not None:
        log.error("reload after SIGHUP failed", exc_info=err)


def install_sighup(app: QuizApp) -> bool:
    """Make SIGHUP reload the banks; False where signals cannot be handled (not main thread)."""
    loop = asyncio.get_running_loop()

    def on_hangup() -> None:
        services = app.bot_data.services
        if services is None:
            return
        log.info("SIGHUP: reloading question banks")
        task = loop.create_task(reload_services(services), name="quizbot:reload")
        _signal_tasks.add(task)
        task.add_done_callback(_signal_done)

    try:
        loop.add_signal_handler(signal.SIGHUP, on_hangup)
    except (NotImplementedError, RuntimeError, ValueError, AttributeError):
        # Windows has no SIGHUP; a loop outside the main thread cannot take signals.
        log.info("SIGHUP reload not available here; use /reload")
        return False
    return True


def remove_sighup() -> None:
    """Undo install_sighup (post_shutdown)."""
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
        asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)
