"""One bad item never sinks a delivery (issue 14 item 1): NUL in a text field, a
`taken_at` out of range once in UTC. The item is refused (422 `invalid_take`), the
others are stored; single takes (scan, manual) answer 422 and store nothing."""

from __future__ import annotations

from tests.conftest import ADMIN_TOKEN
from tests.feed.conftest import World, at

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
YEAR_1 = "0001-01-01T00:30:00+01:00"  # 0000-12-31 23:30 UTC: before year 1
YEAR_10000 = "9999-12-31T23:59:59-01:00"  # 10000-01-01 00:59 UTC: after year 9999


def item(w: World, source_id: str, **changes: str) -> dict:
    good = {
        "participant": w.alice.external_id,
        "code": w.cp("2S"),
        "taken_at": at(5).isoformat(),
        "source": "app",
        "source_id": source_id,
    }
    return {**good, **changes}


def logged(client, w: World) -> list[str]:
    log = client.get(f"/api/v1/events/{w.id}/takes", headers=ADMIN).json()
    return [take["source_id"] for take in log["items"]]


def test_bad_items_are_refused_and_the_good_ones_stored(client, world):
    w = world
    bad = [
        item(w, "nul-code", code=w.cp("3S") + "\x00"),
        item(w, "nul-source", source="app\x00"),
        item(w, "nul\x00id"),
        item(w, "year-1", taken_at=YEAR_1),
        item(w, "year-10000", taken_at=YEAR_10000),
    ]
    takes = [bad[0], bad[1], item(w, "good-1"), bad[2], bad[3], bad[4]]
    takes.append(item(w, "good-2", code=w.cp("4S"), taken_at=at(6).isoformat()))
    response = client.post(f"/api/v1/events/{w.id}/takes", json={"takes": takes}, headers=ADMIN)
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["status"] for r in results] == ["error", "error", "accepted"] + ["error"] * 3 + [
        "accepted"
    ]
    for result in results[:2] + results[3:6]:
        assert (result["error"]["status"], result["error"]["code"]) == (422, "invalid_take")
    fields = [[f["loc"][0] for f in r["error"]["fields"]] for r in results[:2] + results[3:6]]
    assert fields == [["code"], ["source"], ["source_id"], ["taken_at"], ["taken_at"]]
    assert [(r["card"], r["outcome"]) for r in (results[2], results[6])] == [
        ("2S", "counted"),
        ("4S", "counted"),
    ]
    assert logged(client, w) == ["good-1", "good-2"]


def test_csv_import_refuses_bad_rows_only(client, world):
    w = world
    text = (
        "participant,code,taken_at,source_id\n"
        f"{w.alice.external_id},{w.cp('2S')},{at(5).isoformat()},good\n"
        f"{w.alice.external_id},{w.cp('3S')},{YEAR_1},old\n"
        f"{w.alice.external_id},{w.cp('4S')}\x00,{at(7).isoformat()},nul\n"
    )
    response = client.post(
        f"/api/v1/events/{w.id}/takes/import",
        content=text.encode(),
        headers={**ADMIN, "Content-Type": "text/csv"},
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["stored"], body["errors"]) == (1, 2)
    assert [(r["row"], r["status"]) for r in body["results"]] == [
        (2, "accepted"),
        (3, "error"),
        (4, "error"),
    ]
    assert {r["error"]["code"] for r in body["results"][1:]} == {"invalid_take"}
    assert logged(client, w) == ["good"]


def test_manual_take_out_of_range_is_422(client, world):
    w = world
    for taken_at in (YEAR_1, YEAR_10000):
        response = client.post(
            f"/api/v1/events/{w.id}/takes/manual",
            json={"participant": w.alice.external_id, "code": w.cp("2S"), "taken_at": taken_at},
            headers=ADMIN,
        )
        assert (response.status_code, response.json()["code"]) == (422, "validation_error")
    assert logged(client, w) == []


def test_scan_with_nul_is_422(client, open_world):
    w = open_world
    bearer = {"Authorization": f"Bearer {w.alice.access_token}"}
    for body in ({"code": w.cp("2S") + "\x00"}, {"code": w.cp("2S"), "source_id": "a\x00"}):
        response = client.post("/api/v1/scan", json=body, headers=bearer)
        assert (response.status_code, response.json()["code"]) == (422, "validation_error")
    assert logged(client, w) == []
