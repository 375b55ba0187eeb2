"""The offline phone (PWA): the encrypted deck, the participant's bundle, the phone sync.

**Encrypted deck.** For each CP of the event, its number, card and discard code are
encrypted with a key derived from that CP's secret code, and the entry is filed under
a hash of the code; the file alone reveals nothing, a scanned code opens exactly its own
CP. Derivations (the browser does the same with WebCrypto, `app/static/offline/deck.js`):

- `salt`: 16 random bytes per file;
- key = HKDF-SHA256(ikm = the code's typed form (`app.events.codes.typed_form`, UTF-8:
  a scanned code and its printed typed form open the same entry), salt,
  info = `rogaine-deck/v1 key`, 32 bytes) — an AES-256-GCM key;
- index = HKDF-SHA256(same ikm and salt, info = `rogaine-deck/v1 index`, 16 bytes),
  base64url without padding (a different derivation: the index gives no key);
- entry = base64url(nonce (12 random bytes) ‖ AES-256-GCM(key, nonce, plaintext,
  aad = `rogaine-deck/v1|event=<id>|<index>`)); the plaintext is the JSON
  `{"n": number, "c": card, "d": discard code}` padded with spaces to 48 bytes, so every
  entry has the same length (no card is told apart by its notation's length).

Entries are sorted by index (random order, not CP order). What the file does reveal: the
number of CPs (public anyway) and the event id.

**Sync.** The phone's queue goes through the feed's one ingest path
(`app.feed.ingest.ingest`) as a batch from the device's own source
(`phone-p<participant id>-<device id>`),
with the source ids made on the device: a batch sent twice stores nothing new
(`duplicate_delivery`). Results are the participant's view
(`feed.views.results_for_participant`, I-1).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from sqlalchemy.orm import Session

from app.core.db import utcnow
from app.events import service as event_service
from app.events.codes import normalize_code, typed_form
from app.events.models import Event, Participant
from app.feed import ingest as feed_ingest
from app.feed import repository as feed_repo
from app.feed import views as feed_views
from app.flows import device_trust

DECK_VERSION = 1
KEY_INFO = b"rogaine-deck/v1 key"
INDEX_INFO = b"rogaine-deck/v1 index"
INDEX_BYTES = 16
NONCE_BYTES = 12
SALT_BYTES = 16
PLAINTEXT_BYTES = 48  # {"n":999,"c":"JK1","d":"ACDEFG"} is 34 bytes
PHONE_SOURCE_PREFIX = "phone-"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _hkdf(code: str, salt: bytes, info: bytes, length: int) -> bytes:
    ikm = typed_form(normalize_code(code)).encode("utf-8")
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def deck_index(code: str, salt: bytes) -> str:
    """The entry name of a CP code in a deck with this `salt` (base64url, 16 bytes)."""
    return b64url(_hkdf(code, salt, INDEX_INFO, INDEX_BYTES))


def _aad(event_id: int, index: str) -> bytes:
    return f"rogaine-deck/v1|event={event_id}|{index}".encode()


def encrypt_deck(event_id: int, checkpoints: Iterable[tuple[int, str, str, str]]) -> dict[str, Any]:
    """The encrypted deck of an event (module docstring) from `(number, card, code,
    discard_code)` rows: `{"v", "event", "alg", "salt", "entries": {index: entry}}`."""
    salt = os.urandom(SALT_BYTES)
    entries: dict[str, str] = {}
    for number, card, code, discard_code in checkpoints:
        index = deck_index(code, salt)
        plain = json.dumps({"n": number, "c": card, "d": discard_code}, separators=(",", ":"))
        padded = plain.encode("utf-8").ljust(PLAINTEXT_BYTES, b" ")
        nonce = os.urandom(NONCE_BYTES)
        key = _hkdf(code, salt, KEY_INFO, 32)
        sealed = AESGCM(key).encrypt(nonce, padded, _aad(event_id, index))
        entries[index] = b64url(nonce + sealed)
    return {
        "v": DECK_VERSION,
        "event": event_id,
        "alg": "HKDF-SHA256/AES-256-GCM",
        "salt": b64url(salt),
        "entries": dict(sorted(entries.items())),
    }


def open_deck_entry(deck: Mapping[str, Any], code: str) -> dict[str, Any] | None:
    """`{"n", "c", "d"}` of the CP whose code is `code`, or None when the deck holds no
    entry for it. Raises `cryptography.exceptions.InvalidTag` for a tampered entry."""
    salt = unb64url(deck["salt"])
    index = deck_index(code, salt)
    entry = deck["entries"].get(index)
    if entry is None:
        return None
    raw = unb64url(entry)
    key = _hkdf(code, salt, KEY_INFO, 32)
    plain = AESGCM(key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], _aad(deck["event"], index))
    return json.loads(plain.decode("utf-8"))


def event_deck(session: Session, event: Event) -> dict[str, Any]:
    """The encrypted deck of `event` (one query for its CPs)."""
    rows = feed_repo.checkpoints_of_event(session, event.id)
    return encrypt_deck(event.id, ((n, card, code, dc) for _, n, card, code, dc in rows))


def bundle(session: Session, participant: Participant) -> dict[str, Any]:
    """What the phone keeps for offline play, for the signed-in participant only.

    `event` (id, name, course window as UTC ISO datetimes, time zone, ranking preset),
    `participant` (external id, name), `save_codes` (this participant's own, normalised),
    `deck` (encrypted, above), `checkpoints` (the public CP list: `number, lat, lon,
    hint`, for the hints page offline), `state` (the participant's view of their state and log,
    `feed_views.participant_state(as_participant=True)`: no card they have not
    seen), `server_time` (UTC, for the device's clock).
    """
    event = session.get(Event, participant.event_id)
    assert event is not None
    state = feed_views.participant_state(session, participant, as_participant=True)
    return {
        "v": DECK_VERSION,
        "event": {
            "id": event.id,
            "name": event.name,
            "opens_at": event.opens_at.isoformat(),
            "closes_at": event.closes_at.isoformat(),
            "timezone": event.timezone,
            "hand_ranking": event.hand_ranking,
        },
        "participant": {"external_id": participant.external_id, "name": participant.name},
        "save_codes": sorted(feed_repo.save_codes_of(session, participant.id)),
        "deck": event_deck(session, event),
        # public before the start (RULES.md §1.1): number, coordinates, hint; no card, no code
        "checkpoints": event_service.public_rows(session, event),
        "state": state.model_dump(mode="json"),
        "server_time": utcnow().isoformat(),
    }


def device_source(participant: Participant, device: str) -> str:
    """The feed source of a participant's device: `phone-p<participant id>-<device id>`.

    Idempotency is per `(event, source, source_id)`, so the participant is part of the
    source: a device id sent by another participant never reaches this participant's
    takes (nor reveals their outcomes through `duplicate_delivery`). `device`:
    `phone-<8–32 lowercase letters or digits>` as the phone made it.
    """
    return f"{PHONE_SOURCE_PREFIX}p{participant.id}-{device.removeprefix(PHONE_SOURCE_PREFIX)}"


def _feed_items(
    participant: Participant, source: str, takes: Sequence[Any], sent_at: datetime | None
) -> tuple[list[Any], list[dict[str, Any]]]:
    """The phone's items as feed items (the participant's external id, the device source)
    and the payload stored with each (the item and the batch's `sent_at`)."""
    items = [
        {**raw, "participant": participant.external_id, "source": source}
        if isinstance(raw, dict)
        else raw
        for raw in takes
    ]
    payloads = [
        {
            **(item if isinstance(item, dict) else {"item": item}),
            "sent_at": sent_at.isoformat() if sent_at else None,
        }
        for item in items
    ]
    return items, payloads


def sync(
    session: Session,
    participant: Participant,
    source: str,
    takes: Sequence[Any],
    *,
    sent_at: datetime | None = None,
    clock_tolerance: timedelta = feed_ingest.CLOCK_TOLERANCE,
    limits: device_trust.TrustLimits | None = None,
) -> dict[str, Any]:
    """Store the phone's queued takes through the feed (`feed_ingest.ingest`).

    `source`: the device's id (`phone-<id>`, stored as `device_source`); `takes`: items
    `{"code", "taken_at" (aware datetime, the device's clock), "source_id"}`, each
    validated by the feed (`TakeCreate`): a bad one gets an error result, the others are
    stored.
    `sent_at`: the device's clock when it sent the batch (also kept in each take's
    payload): when it is off the server clock by more than `clock_tolerance`
    (FEED_CLOCK_TOLERANCE_SECONDS), the feed corrects the batch's times by the offset
    (`feed_ingest.ingest`, device clocks).
    Times are evidence (RULES.md I-22): the batch is a contact of the device
    (`device_trust.record_contact`), its doubtful takes are listed for the organiser
    (`device_trust.review_batch`, `limits`), and after the organiser's sync deadline a
    new take is not stored (409 `sync_deadline_passed`; a redelivery still answers).
    Returns `{"results": [...], "state": ..., "received_at"}`: one result per item in
    order, as the participant may see it (RULES.md I-1), and the participant's state
    after the batch.
    """
    event = session.get(Event, participant.event_id)
    assert event is not None
    device = device_source(participant, source)
    items, payloads = _feed_items(participant, device, takes, sent_at)
    received_at = utcnow()
    offset = None if sent_at is None else received_at - sent_at
    previous = device_trust.farthest_offset(session, event.id, device, offset)
    late = _after_deadline(session, event, items, received_at)
    kept = [i for i in range(len(items)) if i not in late]
    stored = feed_ingest.ingest(
        session,
        event,
        [items[i] for i in kept],
        recorded_by=f"participant:{participant.external_id}",
        received_at=received_at,
        payloads=[payloads[i] for i in kept],
        sent_at=sent_at,
        clock_tolerance=clock_tolerance,
    )
    results = {**late, **dict(zip(kept, stored, strict=True))}
    _note_contact(session, event, participant, device, stored, received_at, sent_at,
                  previous, limits or device_trust.TrustLimits())  # fmt: skip
    shown = feed_views.results_for_participant(
        session, participant.id, [results[i] for i in range(len(items))]
    )
    state = feed_views.participant_state(session, participant, as_participant=True)
    return {
        "results": [result.model_dump(mode="json") for result in shown],
        "state": state.model_dump(mode="json"),
        "received_at": received_at.isoformat(),
    }


def _note_contact(
    session: Session,
    event: Event,
    participant: Participant,
    device: str,
    stored: Sequence[Any],
    received_at: datetime,
    sent_at: datetime | None,
    previous: timedelta | None,
    limits: device_trust.TrustLimits,
) -> None:
    """The batch as a contact of the device, and its doubtful new takes listed for the
    organiser (RULES.md I-22)."""
    new_ids = [r.take_id for r in stored if r.status == "accepted" and r.take_id is not None]
    offset = None if sent_at is None else received_at - sent_at
    device_trust.review_batch(session, event, new_ids, received_at=received_at,
                              offset=offset, previous=previous, limits=limits)  # fmt: skip
    device_trust.record_contact(session, participant, device, "sync", received_at=received_at,
                                device_at=sent_at, takes=len(new_ids))  # fmt: skip


def _after_deadline(
    session: Session, event: Event, items: Sequence[Any], received_at: datetime
) -> dict[int, Any]:
    """The items refused because the batch arrived after the sync deadline (RULES.md
    I-22), by index: 409 `sync_deadline_passed`. A take already in the log is not
    refused (the feed answers `duplicate_delivery`)."""
    deadline = device_trust.sync_deadline(session, event.id)
    if deadline is None or received_at <= deadline:
        return {}
    keys = [
        (item.get("source"), str(item.get("source_id"))) for item in items if isinstance(item, dict)
    ]
    logged = feed_repo.logged_source_keys(session, event.id, keys)
    refused = {}
    for index, item in enumerate(items):
        key = (item.get("source"), str(item.get("source_id"))) if isinstance(item, dict) else None
        if key not in logged:
            source_id = item.get("source_id") if isinstance(item, dict) else None
            refused[index] = feed_ingest.item_error(
                source_id, 409, "sync_deadline_passed",
                "The organiser's deadline for sending takes has passed: this take was not "
                "stored.",
            )  # fmt: skip
    return refused


def bundle_contact(
    session: Session, participant: Participant, device: str, device_at: datetime | None
) -> None:
    """A bundle fetch that named its device: a contact of that device's clock."""
    device_trust.record_contact(session, participant, device_source(participant, device),
                                "bundle", received_at=utcnow(), device_at=device_at)  # fmt: skip
