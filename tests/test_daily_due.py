"""What falls due when: local times in IANA zones, across days and DST changes (pure)."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from bot.domain import due, zones

BERLIN = ZoneInfo("Europe/Berlin")
UTC = dt.UTC


def at(y: int, mo: int, d: int, h: int, mi: int, tz: dt.tzinfo = UTC, fold: int = 0) -> float:
    return dt.datetime(y, mo, d, h, mi, tzinfo=tz, fold=fold).timestamp()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("07:30", "07:30"), ("7:30", "07:30"), ("23.59", "23:59"), ("0:00", "00:00")],
)
def test_parse_time_accepts_24_hour_forms(text: str, expected: str) -> None:
    assert due.parse_time(text) == expected


@pytest.mark.parametrize("text", ["24:00", "7", "07:60", "7:5", "seven", "", "07:30pm"])
def test_parse_time_rejects_the_rest(text: str) -> None:
    assert due.parse_time(text) is None


def test_zone_knows_iana_names_only() -> None:
    assert zones.zone("Europe/Berlin") is BERLIN or zones.zone("Europe/Berlin") == BERLIN
    for bad in ("Mars/Olympus", "../etc/passwd", "/etc/localtime", "", "Europe/"):
        assert zones.zone(bad) is None
    # Files of the zone folder that are not places: the server's own zone, leap-second
    # variants, the POSIX copies, the placeholder.
    for odd in ("localtime", "right/UTC", "posix/Europe/Berlin", "Factory", "posixrules"):
        assert zones.zone(odd) is None and zones.canonical_zone(odd) is None
    assert zones.canonical_zone("europe/berlin") == "Europe/Berlin"


def test_same_local_time_is_a_different_instant_per_zone() -> None:
    now = at(2026, 6, 1, 12, 0)
    tokyo = due.next_due("07:30", ZoneInfo("Asia/Tokyo"), now)
    new_york = due.next_due("07:30", ZoneInfo("America/New_York"), now)
    assert tokyo == due.Occurrence("2026-06-02", at(2026, 6, 1, 22, 30))
    # 07:30 EDT is 11:30 UTC: already past at 12:00 UTC, so the next is tomorrow's.
    assert new_york == due.Occurrence("2026-06-02", at(2026, 6, 2, 11, 30))


def test_next_is_strictly_after_and_latest_at_or_before() -> None:
    tz = ZoneInfo("UTC")
    now = at(2026, 6, 1, 7, 30)
    assert due.latest_due("07:30", tz, now) == due.Occurrence("2026-06-01", now)
    assert due.next_due("07:30", tz, now) == due.Occurrence("2026-06-02", now + 86400)
    assert due.latest_due("08:00", tz, now).local_date == "2026-05-31"


def test_spring_forward_skipped_time_fires_once_at_the_shifted_instant() -> None:
    # 2026-03-29 in Berlin: 02:00 CET jumps to 03:00 CEST; 02:30 does not exist.
    before = at(2026, 3, 28, 12, 0)
    occ = due.next_due("02:30", BERLIN, before)
    assert occ.local_date == "2026-03-29"
    assert occ.at == at(2026, 3, 29, 3, 30, BERLIN)  # 01:30 UTC, 03:30 on the wall
    assert occ.at == at(2026, 3, 29, 1, 30)
    following = due.next_due("02:30", BERLIN, occ.at)
    assert following == due.Occurrence("2026-03-30", at(2026, 3, 30, 0, 30))


def test_fall_back_repeated_time_fires_once_at_its_first_occurrence() -> None:
    # 2026-10-25 in Berlin: 03:00 CEST falls back to 02:00 CET; 02:30 happens twice.
    occ = due.next_due("02:30", BERLIN, at(2026, 10, 24, 12, 0))
    assert occ == due.Occurrence("2026-10-25", at(2026, 10, 25, 0, 30))  # 02:30 CEST
    second = at(2026, 10, 25, 2, 30, BERLIN, fold=1)  # 02:30 CET == 01:30 UTC
    assert second == at(2026, 10, 25, 1, 30)
    # At the second 02:30 the latest occurrence is still the first one: same day key.
    assert due.latest_due("02:30", BERLIN, second) == occ
    assert due.next_due("02:30", BERLIN, second).local_date == "2026-10-26"


def test_days_around_dst_keep_the_wall_time() -> None:
    day_before = due.next_due("07:00", BERLIN, at(2026, 3, 28, 0, 0))
    day_after = due.next_due("07:00", BERLIN, day_before.at)
    assert day_after.at - day_before.at == 23 * 3600  # the short day
    autumn = due.next_due("07:00", BERLIN, at(2026, 10, 24, 0, 0))
    assert due.next_due("07:00", BERLIN, autumn.at).at - autumn.at == 25 * 3600


def test_grace() -> None:
    occ = due.Occurrence("2026-06-01", 1000.0)
    assert not due.is_late(occ, 1000.0 + 7200, 7200)
    assert due.is_late(occ, 1000.0 + 7201, 7200)
