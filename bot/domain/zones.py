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
    try:
        found = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
    _ZONES[name] = found
    return found


def is_known(name: str) -> bool:
    """Whether a zone name is accepted."""
    return zone(name) is not None


@cache
def _names_by_lower() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones()}


def canonical_zone(name: str) -> str | None:
    """The IANA name as spelled in the zone database ('europe/berlin' -> 'Europe/Berlin')."""
    if zone(name) is not None:
        return name
    found = _names_by_lower().get(name.strip().lower())
    return found if found is not None and zone(found) is not None else None
