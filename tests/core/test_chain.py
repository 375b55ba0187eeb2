"""The chain encoding and checks (app.core.chain), against vectors worked out by hand.

The expected digests were computed with coreutils, not with the code under test:
`printf '%s' '<the netstrings written out below>' | sha256sum`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from app.core import chain

ZERO = "0" * 64
TAKE_BYTES = (
    "21:rogaine-poker/take/v1,3:seq,1:1,4:prev,64:" + ZERO + ",6:source,5:phone,"
    "9:source_id,2:s1,4:code,4:ABCD,8:taken_at,27:2026-06-13T09:00:00.000000Z,"
    "11:received_at,27:2026-06-13T09:00:01.500000Z,11:recorded_by,9:organiser,"
    '7:payload,18:{"note":"Q♥ ok"},'
).encode()
TAKE_HASH = "6dea778b590a75fe503690f9054a880e633359e447aea7cb86ac8c067e2306e5"
VOID_HASH = "1406bd093c38e47d8348b39f374f17bf418e465c987dcd9be836acb25a107e74"
HEAD = "41527870904074682a2160f0d2f75b056d21e6679c6aaec3e1b211d2f7cd8823"
EMPTY_HEAD = "6356b3e0a7ceec156b7c1b96557addea6d4e4dee32df58475a36d2cdd6ad1eb5"

MSK = timezone(timedelta(hours=3))


def take() -> list[chain.Field]:
    return chain.take_content(
        source="phone",
        source_id="s1",
        code="ABCD",
        taken_at=datetime(2026, 6, 13, 12, 0, tzinfo=MSK),  # 09:00 UTC
        received_at=datetime(2026, 6, 13, 9, 0, 1, 500000, tzinfo=UTC),
        recorded_by="organiser",
        payload={"note": "Q♥ ok"},
    )


def void(take_hash: str = TAKE_HASH) -> list[chain.Field]:
    return chain.void_content(
        take_hash=take_hash,
        reason="typo!",
        voided_by="organiser",
        voided_at=datetime(2026, 6, 13, 10, 0, tzinfo=UTC),
    )


def test_netstrings_count_utf8_bytes() -> None:
    assert chain.netstring("Q♥") == b"4:Q\xe2\x99\xa5,"
    assert chain.netstring("") == b"0:,"


def test_take_encoding_and_hash_by_hand() -> None:
    content = take()
    assert chain.encode(chain.TAKE, [("seq", 1), ("prev", ZERO), *content]) == TAKE_BYTES
    assert chain.row_hash(chain.TAKE, 1, ZERO, content) == TAKE_HASH
    assert chain.next_link(0, None, chain.TAKE, content) == (1, ZERO, TAKE_HASH)


def test_void_links_to_the_take_and_the_event_head_by_hand() -> None:
    assert chain.next_link(1, TAKE_HASH, chain.TAKE_VOID, void()) == (2, TAKE_HASH, VOID_HASH)
    # participant 101's chain (take, void), then auction 3's chain of one row
    # (any hash will do for the head's arithmetic: the take's).
    assert chain.event_head([("101", 2, VOID_HASH)], [(3, 1, TAKE_HASH)]) == HEAD
    assert chain.event_head([], []) == EMPTY_HEAD


def test_event_head_order_is_fixed_not_the_callers() -> None:
    a, b = ("101", 1, TAKE_HASH), ("20", 2, VOID_HASH)
    assert chain.event_head([a, b], []) == chain.event_head([b, a], [])
    assert chain.event_head([a], []) != chain.event_head([("102", 1, TAKE_HASH)], [])


def test_canonical_values() -> None:
    assert chain.canonical(None) == ""
    assert chain.canonical(True) == "true"
    assert chain.canonical(["QH", "JK1"]) == "QH JK1"
    assert chain.canonical({"b": 1, "a": "é"}) == '{"a":"é","b":1}'
    with pytest.raises(ValueError):
        chain.canonical(datetime(2026, 6, 13, 9, 0))
    with pytest.raises(TypeError):
        chain.canonical(1.5)


def _links() -> list[chain.Link]:
    first = chain.Link("take 1", chain.TAKE, 1, ZERO, TAKE_HASH, take())
    second = chain.Link("take_void 1", chain.TAKE_VOID, 2, TAKE_HASH, VOID_HASH, void())
    return [first, second]


def test_first_mismatch_names_the_row_and_the_problem() -> None:
    first, second = _links()
    assert chain.first_mismatch([first, second]) is None
    edited = chain.Link("take_void 1", chain.TAKE_VOID, 2, TAKE_HASH, VOID_HASH, void("f" * 64))
    assert chain.first_mismatch([first, edited]) == chain.Mismatch("take_void 1", 2, "hash")
    assert chain.first_mismatch([second]) == chain.Mismatch("take_void 1", 2, "seq")
    relinked = chain.Link("take_void 1", chain.TAKE_VOID, 2, ZERO, VOID_HASH, void())
    assert chain.first_mismatch([first, relinked]) == chain.Mismatch("take_void 1", 2, "prev")
    bare = chain.Link("take 9", chain.TAKE, None, None, None, take())
    assert chain.first_mismatch([first, bare]) == chain.Mismatch("take 9", None, "not_chained")


# Vectors of the chains of migration 0013, by hand as above (`printf '%s' … | sha256sum`):
# a source clock row `29:rogaine-poker/source-clock/v1,3:seq,1:1,4:prev,64:<zeros>,6:source,
# 5:watch,14:offset_seconds,6:-300.0,6:set_by,9:organiser,6:set_at,27:2026-06-13T09:00:00.000000Z,`
CLOCK_HASH = "aa924b61bc50c9932150d4bbf46cdd15723f206a2291e89ad7ca6e0490edc9ac"
# the version 2 head of an event whose only chain is that clock:
# `27:rogaine-poker/event-head/v2,5:chain,6:clocks,3:seq,1:1,4:head,64:<CLOCK_HASH>,`
CLOCK_ONLY_HEAD = "d8ef8d78670d76ebee56c7bd74d32b47f522fb96685e0b75a2c2d09b6f046f0a"
# a lots entry `25:rogaine-poker/decision/v1,3:seq,1:1,4:prev,64:<zeros>,6:action,
# 12:auction.lots,5:actor,9:organiser,7:subject,7:place 3,7:details,
# 32:{"seed":7,"winner":"Алиса"},10:created_at,27:2026-06-13T09:00:00.000000Z,`
LOTS_HASH = "55953aafdc82c3cff225637ef87a38c9725652ff36cd8ae778f15c7518560c9f"


def test_clock_and_decision_rows_and_the_version_2_head_by_hand() -> None:
    nine = datetime(2026, 6, 13, 12, 0, tzinfo=MSK)  # 09:00 UTC
    clock = chain.source_clock_content(
        source="watch", offset_seconds=-300, set_by="organiser", set_at=nine
    )
    assert chain.row_hash(chain.SOURCE_CLOCK, 1, ZERO, clock) == CLOCK_HASH
    lots = chain.decision_content(
        action="auction.lots", actor="organiser", subject="place 3",
        details={"winner": "Алиса", "seed": 7}, created_at=nine,
    )  # fmt: skip
    assert chain.row_hash(chain.DECISION, 1, ZERO, lots) == LOTS_HASH
    assert chain.event_head([], [], [("clocks", 1, CLOCK_HASH)]) == CLOCK_ONLY_HEAD
    # empty event-level chains are left out; no `chains` at all is the version 1 head
    assert chain.event_head([], [], [("clocks", 1, CLOCK_HASH), ("identities", 0, "")]) == (
        CLOCK_ONLY_HEAD
    )
    assert chain.event_head([], []) == EMPTY_HEAD != chain.event_head([], [], [])
    # a cleared offset hashes an empty value, not "None"
    cleared = chain.source_clock_content(
        source="watch", offset_seconds=None, set_by="organiser", set_at=nine
    )
    assert ("offset_seconds", None) in cleared and chain.canonical(None) == ""
