"""A group's results as a spreadsheet: one CSV row per member, for Excel and LibreOffice.

UTF-8 with a BOM (without it Excel reads the file in the locale's code page) and every text
cell that a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, or a tab or carriage
return first) prefixed with an apostrophe, so a member named "=HYPERLINK(...)" stays a name.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.domain import zones
from bot.practice.catalog import Catalog
from bot.storage.group_results_sql import MemberTopic, member_topics
from bot.storage.port import Store

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
FIXED_COLUMNS = ("name", "username", "user id", "answers", "right", "accuracy %")
LAST_ACTIVE = "last active"


def neutralised(cell: str) -> str:
    """The cell as text a spreadsheet will not evaluate."""
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


def _percent(correct: int, answered: int) -> str:
    return f"{100 * correct / answered:.1f}" if answered else ""


@dataclass
class _Member:
    name: str
    username: str
    answered: int = 0
    correct: int = 0
    last_at: float = 0.0
    topics: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)


def _topic_order(rows: Sequence[MemberTopic], catalog: Catalog) -> list[tuple[str, str]]:
    seen = {(r.bank_id, r.topic) for r in rows}
    ordered = [
        (bank_id, t.id)
        for bank_id, bank in catalog.banks.items()
        for t in bank.meta.topics
        if (bank_id, t.id) in seen
    ]
    return ordered + sorted(seen - set(ordered))


def _topic_name(catalog: Catalog, bank_id: str, topic: str, several_banks: bool) -> str:
    bank = catalog.banks.get(bank_id)
    found = bank.meta.topic(topic) if bank is not None else None
    name = found.name if found is not None else topic
    return f"{name} ({bank_id})" if several_banks else name


def render(rows: Sequence[MemberTopic], catalog: Catalog, timezone: str) -> bytes:
    """The CSV file: a header, then one row per member, most answers first."""
    members: dict[int, _Member] = {}
    for r in rows:
        member = members.setdefault(
            r.user_id, _Member(r.first_name or f"user {r.user_id}", r.username or "")
        )
        member.answered += r.answered
        member.correct += r.correct
        member.last_at = max(member.last_at, r.last_at)
        member.topics[(r.bank_id, r.topic)] = (r.answered, r.correct)
    topics = _topic_order(rows, catalog)
    several = len({bank_id for bank_id, _ in topics}) > 1
    zone = zones.zone(timezone) or dt.UTC
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    topic_columns = [f"{_topic_name(catalog, b, t, several)} accuracy %" for b, t in topics]
    writer.writerow([neutralised(c) for c in (*FIXED_COLUMNS, *topic_columns, LAST_ACTIVE)])
    ordered = sorted(members.items(), key=lambda item: (-item[1].answered, item[0]))
    for user_id, m in ordered:
        counts = [m.topics.get(key, (0, 0)) for key in topics]
        per_topic = [_percent(correct, answered) for answered, correct in counts]
        last = dt.datetime.fromtimestamp(m.last_at, zone).strftime("%Y-%m-%d %H:%M")
        cells = [m.name, m.username, str(user_id), str(m.answered), str(m.correct)]
        cells += [_percent(m.correct, m.answered), *per_topic, last]
        writer.writerow([neutralised(c) for c in cells])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


async def results_csv(
    db: Store, catalog: Catalog, chat_id: int, timezone: str
) -> tuple[bytes, int]:
    """The chat's results as CSV bytes (a header alone when nobody answered yet), and how
    many members it has a row for."""
    rows = await db.read(lambda conn: member_topics(conn, chat_id))
    return render(rows, catalog, timezone), len({r.user_id for r in rows})
