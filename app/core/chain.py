"""Hash chains of the logs: the canonical encoding, row hashes, chain checks, the event head.

Pure Python (no database, HTTP or clock). Every row of the take log (takes,
manual takes and voids: one chain per participant) and of the bid log (bids and
withdrawals: one chain per auction) stores `log_seq` (1, 2, … in its chain),
`log_prev` (the previous row's hash; `GENESIS` for the first) and `log_hash`:

    log_hash = hex(SHA-256(encode(tag, [("seq", n), ("prev", prev), *content])))

`encode` is a sequence of netstrings (`<byte length>:<UTF-8 bytes>,`): the
domain tag, then each field's name and value. Length prefixes make the
encoding unambiguous (no separator can be forged inside a value) and the tag
keeps a take's hash from ever equalling a bid's. The content holds only what
the log records, never an id of this database (ids change when an event is
archived and restored elsewhere): a void names its take by the take's hash, a
bid its combination by the save take's hash.

By hand, for a row with tag `rogaine-poker/take-void/v1`:

    printf '%s' '26:rogaine-poker/take-void/v1,3:seq,1:2,4:prev,64:<prev>,…' | sha256sum

The event's **head** (`event_head`) is one hash over the heads of every chain in a
fixed order: participants by external id (Unicode code points), then auctions
by place. Anyone who noted a head can later recompute it from an archive.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

GENESIS = "0" * 64  # `log_prev` of the first row of a chain

TAKE = "rogaine-poker/take/v1"
TAKE_VOID = "rogaine-poker/take-void/v1"
BID = "rogaine-poker/bid/v1"
BID_WITHDRAWAL = "rogaine-poker/bid-withdrawal/v1"
EVENT_HEAD = "rogaine-poker/event-head/v1"
SOURCE_CLOCK = "rogaine-poker/source-clock/v1"
IDENTITY = "rogaine-poker/participant-identity/v1"
DECISION = "rogaine-poker/decision/v1"
EVENT_HEAD_V2 = "rogaine-poker/event-head/v2"

# The event-level chains (one each per event; `app.core.ledger` keeps their heads), in the
# order the v2 head hashes them: the organiser's source clock offsets, the audit entries
# that decide a result, the participants' identities.
CLOCKS = "clocks"
DECISIONS = "decisions"
IDENTITIES = "identities"
EVENT_CHAINS = (CLOCKS, DECISIONS, IDENTITIES)

Field = tuple[str, Any]


def canonical(value: Any) -> str:
    """The text of one field value.

    - None → `""` (no chained field has both None and `""` as values);
    - str as is; bool `true`/`false`; int in decimal;
    - datetime (aware) → UTC ISO 8601 with microseconds and `Z`:
      `2026-06-13T09:00:00.000000Z`; a naive datetime raises ValueError;
    - list of str (cards) → joined by one space;
    - dict (a JSON payload) → JSON with sorted keys, no spaces, non-ASCII kept.
    Anything else raises TypeError.
    """
    if type(value) is str:  # the common case first
        return value
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("naive datetime in a chained row")
        # isoformat is twice as fast as strftime; a UTC time ends with "+00:00"
        return value.astimezone(UTC).isoformat(timespec="microseconds")[:-6] + "Z"
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int):
        return str(value)
    if isinstance(value, list | tuple):
        return " ".join(canonical(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    raise TypeError(f"cannot chain a {type(value).__name__}")


def netstring(text: str) -> bytes:
    """`<byte length>:<UTF-8 bytes>,` — e.g. `netstring("Q♥")` is `b"4:Q\\xe2\\x99\\xa5,"`."""
    data = text.encode("utf-8")
    return b"%d:%s," % (len(data), data)


_NAMES: dict[str, bytes] = {}  # netstrings of field names and tags, computed once


def _name(text: str) -> bytes:
    encoded = _NAMES.get(text)
    if encoded is None:
        encoded = _NAMES[text] = netstring(text)
    return encoded


def encode(tag: str, fields: Iterable[Field]) -> bytes:
    """The canonical bytes of a record: netstrings of the tag, then of each name and value."""
    parts = [_name(tag)]
    for name, value in fields:
        parts.append(_name(name))
        parts.append(netstring(canonical(value)))
    return b"".join(parts)


def row_hash(tag: str, seq: int, prev: str, content: Sequence[Field]) -> str:
    """Lowercase hex SHA-256 of a chained row (`seq` ≥ 1, `prev` 64 hex digits)."""
    return hashlib.sha256(encode(tag, [("seq", seq), ("prev", prev), *content])).hexdigest()


def next_link(
    seq: int, head: str | None, tag: str, content: Sequence[Field]
) -> tuple[int, str, str]:
    """`(log_seq, log_prev, log_hash)` of a row appended to a chain of `seq` rows whose
    last hash is `head` (None for an empty chain)."""
    prev = head or GENESIS
    return seq + 1, prev, row_hash(tag, seq + 1, prev, content)


# -- the content of each kind of row (what the log records; no database id) -----------------


def take_content(
    *,
    source: str,
    source_id: str,
    code: str,
    taken_at: datetime,
    received_at: datetime,
    recorded_by: str,
    payload: dict[str, Any] | None,
    device_taken_at: datetime | None = None,
    clock_offset_seconds: float | None = None,
) -> list[Field]:
    """A take (scanned, delivered or added by hand) as sent: the payload holds the
    participant's external id as sent and, for a manual take, the organiser's note.
    A take whose device clock was corrected on receipt (`taken_at` = device time +
    offset) also hashes the raw `device_taken_at` and the `clock_offset_seconds`
    (its repr); an uncorrected take hashes neither, so its hash is as before."""
    fields: list[Field] = [
        ("source", source),
        ("source_id", source_id),
        ("code", code),
        ("taken_at", taken_at),
        ("received_at", received_at),
        ("recorded_by", recorded_by),
        ("payload", payload or {}),
    ]
    if device_taken_at is not None:
        fields.append(("device_taken_at", device_taken_at))
    if clock_offset_seconds is not None:
        fields.append(("clock_offset_seconds", repr(float(clock_offset_seconds))))
    return fields


def void_content(
    *, take_hash: str, reason: str, voided_by: str, voided_at: datetime
) -> list[Field]:
    """An organiser's void of the take whose `log_hash` is `take_hash`."""
    return [
        ("take", take_hash),
        ("reason", reason),
        ("voided_by", voided_by),
        ("voided_at", voided_at),
    ]


def bid_content(
    *,
    round_number: int,
    combination_hash: str,
    cards: Sequence[str],
    nonce: str,
    receipt: str,
    placed_by: str,
    created_at: datetime,
) -> list[Field]:
    """A sealed bid: its round, the save take (`log_hash`) of its combination, the cards,
    the nonce and receipt (RULES.md I-10), who placed it and when."""
    return [
        ("round", round_number),
        ("combination", combination_hash),
        ("cards", list(cards)),
        ("nonce", nonce),
        ("receipt", receipt),
        ("placed_by", placed_by),
        ("created_at", created_at),
    ]


def withdrawal_content(
    *,
    bid_hash: str,
    reason: str,
    replaced_by_hash: str | None,
    withdrawn_by: str,
    created_at: datetime,
) -> list[Field]:
    """A bid taken back (`replaced` by the bid `replaced_by_hash`, or `withdrawn`)."""
    return [
        ("bid", bid_hash),
        ("reason", reason),
        ("replaced_by", replaced_by_hash),
        ("withdrawn_by", withdrawn_by),
        ("created_at", created_at),
    ]


def source_clock_content(
    *, source: str, offset_seconds: float | None, set_by: str, set_at: datetime
) -> list[Field]:
    """An organiser's offset of a source's clock (seconds as the repr of a float; empty
    when the row clears the offset), who set it and when."""
    offset = None if offset_seconds is None else repr(float(offset_seconds))
    return [("source", source), ("offset_seconds", offset), ("set_by", set_by), ("set_at", set_at)]


def identity_content(
    *,
    change: str,
    external_id: str,
    name: str,
    category: str | None,
    changed_by: str,
    changed_at: datetime,
) -> list[Field]:
    """A participant's identity as results show it, after a `change` (`create`, `update`,
    `delete`): external id, name, category (empty when None), who changed it and when."""
    return [
        ("change", change),
        ("external_id", external_id),
        ("name", name),
        ("category", category),
        ("changed_by", changed_by),
        ("changed_at", changed_at),
    ]


def decision_content(
    *, action: str, actor: str, subject: str | None, details: dict[str, Any], created_at: datetime
) -> list[Field]:
    """An audit entry that decides a result (the lots drawn, a correction): its action,
    actor, subject, details (JSON, sorted keys) and time."""
    return [
        ("action", action),
        ("actor", actor),
        ("subject", subject),
        ("details", details),
        ("created_at", created_at),
    ]


def links_of(
    seq: int, head: str | None, tag: str, contents: Iterable[Sequence[Field]]
) -> list[tuple[int, str, str]]:
    """`next_link` for several rows appended in order to a chain of `seq` rows ending at
    `head`: their `(log_seq, log_prev, log_hash)`."""
    links = []
    for content in contents:
        link = next_link(seq, head, tag, content)
        seq, head = link[0], link[2]
        links.append(link)
    return links


# -- checking a chain --------------------------------------------------------------------------


class Link(NamedTuple):
    """One stored row of a chain: what it claims (`seq`, `prev`, `hash`) and its content.

    `label` names the row for a report (`take 17`, `bid 4`); `hash` None: the row
    was never chained (written outside the service). (A tuple: verifying an event
    builds one per row.)
    """

    label: str
    tag: str
    seq: int | None
    prev: str | None
    hash: str | None
    content: Sequence[Field]


@dataclass(frozen=True)
class Mismatch:
    """The first row of a chain that does not match, and why (`problem`)."""

    label: str
    seq: int | None
    problem: str


def first_mismatch(links: Sequence[Link]) -> Mismatch | None:
    """Recompute a chain (`links` in stored `seq` order); the first row that does not match.

    Problems: `not_chained` (no hash), `seq` (not 1, 2, 3, … in order), `prev`
    (not the previous row's stored hash, or not GENESIS for the first), `hash`
    (the stored hash is not the hash of the row's content: the row was edited).
    """
    prev = GENESIS
    for expected_seq, link in enumerate(links, start=1):
        if link.hash is None or link.seq is None or link.prev is None:
            return Mismatch(link.label, link.seq, "not_chained")
        if link.seq != expected_seq:
            return Mismatch(link.label, link.seq, "seq")
        if link.prev != prev:
            return Mismatch(link.label, link.seq, "prev")
        if row_hash(link.tag, link.seq, link.prev, link.content) != link.hash:
            return Mismatch(link.label, link.seq, "hash")
        prev = link.hash
    return None


def event_head(
    participants: Iterable[tuple[str, int, str]],
    auctions: Iterable[tuple[int, int, str]],
    chains: Iterable[tuple[str, int, str]] | None = None,
) -> str:
    """The event's head: SHA-256 over every non-empty chain's head, in a fixed order.

    `participants`: `(external_id, seq, head)` of each participant's take chain;
    `auctions`: `(place, seq, head)` of each auction's bid chain (`seq` = rows in
    the chain, `head` = its last row's hash). Sorted here: participants by
    external id (code points), auctions by place. An event without a chained
    row has the head of the tag alone.

    `chains` None: the version 1 head (tag `EVENT_HEAD`, the take and bid logs only).
    Otherwise the version 2 head (tag `EVENT_HEAD_V2`): the same fields, then
    `("chain", name), ("seq", seq), ("head", head)` of each non-empty event-level
    chain (`EVENT_CHAINS`: clocks, decisions, identities), sorted by name.
    """
    fields: list[Field] = []
    for external_id, seq, head in sorted(participants):
        fields += [("participant", external_id), ("seq", seq), ("head", head)]
    for place, seq, head in sorted(auctions):
        fields += [("place", place), ("seq", seq), ("head", head)]
    if chains is None:
        return hashlib.sha256(encode(EVENT_HEAD, fields)).hexdigest()
    for name, seq, head in sorted(chains):
        if seq:
            fields += [("chain", name), ("seq", seq), ("head", head)]
    return hashlib.sha256(encode(EVENT_HEAD_V2, fields)).hexdigest()
