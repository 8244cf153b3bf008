"""IANA timezones: the one rule for which zone names the bot accepts (settings, /daily, groups)."""

from __future__ import annotations

from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

_ZONES: dict[str, ZoneInfo] = {}


def zone(name: str) -> ZoneInfo | None:
    """The IANA zone of that name (cached), or None if unknown."""
    cached = _ZONES.get(name)
    if cached is not None:
        return cached
    # Reject paths and odd input before zoneinfo turns them into file lookups.
    if not name or name.startswith(("/", ".")) or ".." in name or len(name) > 64:
        return None
    known = _known()
    if known and name not in known:
        return None  # "right/UTC", "posix/...": files in the zone folder, not zones to offer
    try:
        found = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
    _ZONES[name] = found
    return found


def is_known(name: str) -> bool:
    """Whether a zone name is accepted."""
    return zone(name) is not None


# In the zone database but not a place: the server's own zone, and a placeholder zone.
NOT_PLACES = frozenset({"localtime", "Factory", "posixrules"})


@cache
def _known() -> frozenset[str]:
    """The zones the bot accepts (empty when the system lists none: then zoneinfo decides)."""
    return frozenset(available_timezones()) - NOT_PLACES


@cache
def _names_by_lower() -> dict[str, str]:
    return {name.lower(): name for name in _known()}


def canonical_zone(name: str) -> str | None:
    """The IANA name as spelled in the zone database ('europe/berlin' -> 'Europe/Berlin')."""
    if zone(name) is not None:
        return name
    found = _names_by_lower().get(name.strip().lower())
    return found if found is not None and zone(found) is not None else None
