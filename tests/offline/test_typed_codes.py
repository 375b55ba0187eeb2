"""Typed CP codes (issue 26 point 2): the short grouped form printed under each QR,
accepted online and offline with case, spaces, dashes and look-alikes normalised."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.events.codes import (
    TYPED_ALPHABET,
    grouped,
    is_typed_form,
    new_cp_code,
    new_short_code,
    normalize_code,
    typed_form,
)
from app.flows.offline import encrypt_deck, open_deck_entry
from tests.factories import DECK, make_event, make_participant
from tests.offline.test_offline_api import random_codes
from tests.web.test_participant_pages import signed_in
from tests.web.test_signin import admin_login

NODE = shutil.which("node") or "/usr/bin/node"
STATIC = Path(__file__).resolve().parents[2] / "app" / "static" / "offline"

# Look-alikes a reader may type for characters of the alphabet.
MISREAD = {"0": "O", "1": "l", "2": "Z", "5": "S", "6": "G", "8": "B", "U": "v"}


def misread(typed: str) -> str:
    """The typed form as cold hands type it: lower case, dashes between groups, every
    look-alike swapped for its twin."""
    swapped = "".join(MISREAD.get(c, c) for c in typed)
    return "-".join(swapped[i : i + 3] for i in range(0, len(swapped), 3)).lower()


def test_the_typed_form_has_no_look_alikes_and_reads_back_through_them():
    for bad in "ODQILZSGBV":
        assert bad not in TYPED_ALPHABET
    code = new_cp_code()
    typed = typed_form(code)
    assert len(typed) == 18 and is_typed_form(typed) and typed_form(typed) == typed
    assert re.fullmatch(r"(\w{3} ){5}\w{3}", grouped(typed))
    assert normalize_code(misread(typed)) == typed
    assert normalize_code(" " + grouped(typed).lower() + " ") == typed
    # 26**18 typed forms: 84.6 bits, above the 80 bits of the offline deck bound
    assert len(TYPED_ALPHABET) ** 18 > 2**84
    # no other code's shape changes: 24-character CP codes, 6-character discard codes
    assert normalize_code(code.lower()) == code
    discard = new_short_code()
    assert normalize_code(discard.lower()) == discard
    # worked by hand: "OOO…" (18 letters O) reads as eighteen zeros
    assert normalize_code("ooo-ooo-ooo-ooo-ooo-ooo") == "0" * 18


def test_a_typed_form_opens_the_same_deck_entry_as_the_code():
    rows = [(n, card, new_cp_code(), new_short_code()) for n, card in enumerate(DECK, start=1)]
    deck = encrypt_deck(3, rows)
    number, card, code, discard = rows[20]
    opened = open_deck_entry(deck, misread(typed_form(code)))
    assert opened == {"n": number, "c": card, "d": discard}
    assert open_deck_entry(deck, typed_form(rows[21][2]))["c"] == rows[21][1]


def test_the_phone_computes_the_same_typed_form_and_reads_look_alikes_the_same():
    """deck.js `typedForm` and rules.js `normalizeCode` under Node against Python."""
    codes = [new_cp_code() for _ in range(6)] + ["CPCODE01WITHMORELETTERS"]
    script = f"""
        const R = require({json.dumps(str(STATIC / "rules.js"))});
        const {{ typedForm }} = require({json.dumps(str(STATIC / "deck.js"))});
        const codes = {json.dumps(codes)};
        const typed = {json.dumps([misread(typed_form(c)) for c in codes])};
        Promise.all(codes.map(c => typedForm(c))).then(forms => {{
          console.log(JSON.stringify({{forms, read: typed.map(t => R.normalizeCode(t))}}));
        }});
    """
    out = subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    assert result["forms"] == [typed_form(c) for c in codes]
    assert result["read"] == [typed_form(c) for c in codes]


def test_a_typed_code_with_look_alikes_counts_online_and_in_a_sync(
    client: TestClient, session: Session
):
    event = make_event(session)
    codes = random_codes(session, event)
    anna = make_participant(session, event, "51")
    session.commit()
    signed_in(client, anna.access_token)
    # online: the code form, then the confirmation (as the page posts it)
    typed = misread(typed_form(codes["QH"][0]))
    page = client.get("/me").text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    confirm = client.post("/me/code", data={"code": typed, "csrf_token": csrf})
    assert confirm.status_code == 200
    source_id = re.search(r'name="source_id" value="([^"]+)"', confirm.text).group(1)
    done = client.post(
        "/me/code/confirm", data={"code": typed, "source_id": source_id, "csrf_token": csrf}
    )
    assert done.status_code == 200 and "big-card" in done.text
    # the same CP by its QR: a duplicate (one card per CP), by its typed form in a sync: too
    body = {
        "source": "phone-0a1b2c3d",
        "sent_at": datetime.now(UTC).isoformat(),
        "takes": [
            {"code": misread(typed_form(codes["QD"][0])), "source_id": "pwa-1",
             "taken_at": (datetime.now(UTC) - timedelta(minutes=1)).isoformat()},
            {"code": grouped(typed_form(codes["QH"][0])), "source_id": "pwa-2",
             "taken_at": datetime.now(UTC).isoformat()},
        ],
    }  # fmt: skip
    first, second = client.post("/me/offline/sync", json=body).json()["results"]
    assert (first["outcome"], first["card"]) == ("counted", "QD")
    assert (second["outcome"], second["reason"]) == ("rejected", "duplicate")


def test_the_tile_and_the_organiser_list_show_the_typed_form(client: TestClient, session: Session):
    event = make_event(session)
    codes = random_codes(session, event)
    session.commit()
    admin_login(client)
    shown = grouped(typed_form(codes["QH"][0]))
    number = codes["QH"][2]
    sheet = client.get(f"/admin/events/{event.id}/print/checkpoints").text
    tile = sheet.split(f'id="cp-{number}"')[1].split("</section>")[0]
    assert shown in tile and codes["QH"][0] not in tile
    assert shown in client.get(f"/admin/events/{event.id}/checkpoints").text
