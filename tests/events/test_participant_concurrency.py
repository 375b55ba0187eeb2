"""Concurrent participant creation (issue 14 item 6): generated numbers never collide, a
real duplicate is 409 `external_id_taken`, concurrent imports of the same ids are refused
as a sequential import would be, never 500. Threads on SQLite and PostgreSQL."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from fastapi.testclient import TestClient

WORKERS = 10


def run_at_once(send, count: int = WORKERS) -> list:
    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(send, range(count)))


def test_concurrent_creation_without_external_id(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    url = f"/api/v1/events/{event_id}/participants"

    def create(i: int):
        return client.post(url, json={"name": f"Runner {i}"}, headers=admin)

    responses = run_at_once(create)
    assert [r.status_code for r in responses] == [201] * WORKERS
    numbers = sorted(int(r.json()["external_id"]) for r in responses)
    assert numbers == list(range(1, WORKERS + 1))


def test_concurrent_duplicates_are_409(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    url = f"/api/v1/events/{event_id}/participants"

    def create(i: int):
        return client.post(url, json={"name": f"Runner {i}", "external_id": "42"}, headers=admin)

    responses = run_at_once(create)
    assert sorted(r.status_code for r in responses) == [201] + [409] * (WORKERS - 1)
    assert {r.json()["code"] for r in responses if r.status_code == 409} == {"external_id_taken"}


def test_concurrent_imports_of_the_same_ids(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    url = f"/api/v1/events/{event_id}/participants/import"
    text = "name,external_id\n" + "".join(f"Runner {i},{i}\n" for i in range(1, 21))
    headers = {**admin, "Content-Type": "text/csv"}

    def send(_: int):
        return client.post(url, content=text.encode(), headers=headers)

    responses = run_at_once(send, 4)
    assert sorted(r.status_code for r in responses) == [201, 422, 422, 422]
    for refused in (r for r in responses if r.status_code == 422):
        assert refused.json()["code"] == "csv_invalid"
        assert [e["row"] for e in refused.json()["errors"]] == list(range(2, 22))
    listed = client.get(f"/api/v1/events/{event_id}/participants", headers=admin).json()
    assert sorted(int(p["external_id"]) for p in listed["participants"]) == list(range(1, 21))
