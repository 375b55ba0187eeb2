"""The offline phone: encrypted deck size, offline result page time, phone sync time.

Three figures, each with a same-run baseline (issue 17 targets in brackets):

1. **Encrypted deck size** of the seed course's 54 CPs as `/me/offline.json` sends it
   (compact JSON; and gzip) [< 20 KB]. Baseline: the same facts in clear (number, card,
   discard code per CP, compact JSON).
2. **Offline result page** in Chromium with 4x CPU throttling (CDP
   `Emulation.setCPUThrottlingRate`): the participant (with `--history` takes already
   stored) signed in online, then the server is stopped; time from the start of the
   navigation to `/t/{code}` until the result is rendered (`performance.mark
   ("rogaine-result")` in app.js: service worker, shell, IndexedDB, deck opened with
   WebCrypto, rules replayed) [< 200 ms]. Baseline: the server-rendered `/t/{code}`
   (record, 303, result page) online, same throttling, service worker blocked
   (`domContentLoadedEventEnd` of the result page's navigation, redirect included).
3. **Phone sync of 200 queued takes** (`POST /me/offline/sync`, in process through
   TestClient, SQLite file) [< 1 s]. Baseline: the same 200 takes for another
   participant through the organiser's `POST /api/v1/events/{id}/takes` (the feed's own
   batch path).

    python benchmarks/offline.py                  # defaults: --rounds 5 --history 40
    python benchmarks/offline.py --rounds 2 --no-browser
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _machine import machine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import feed_throughput as ft  # noqa: E402
import uvicorn  # noqa: E402

from app.core.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.simulation.local import import_test_client  # noqa: E402

TestClient = import_test_client()
API = "/api/v1"
SYNC_TAKES = 200
CHROMIUM = "/usr/bin/chromium"
# The offline page's steps (ms from the start of the navigation), from app.js's marks.
STEPS = """(() => {
  const nav = performance.getEntriesByType('navigation')[0], out = {shell: nav.responseEnd};
  for (const m of performance.getEntriesByType('mark')) {
    const name = m.name.replace('rogaine-', '');
    if (!(name in out)) out[name] = m.startTime;
  }
  return out;
})()"""


def takes_for(participant: dict, codes: list[str], count: int, start: datetime) -> list[dict]:
    """`count` takes of one participant: 5 CP codes then a save code, over and over."""
    takes = []
    for n in range(count):
        cycle, position = divmod(n, 6)
        if position < 5:
            code = codes[(cycle * 5 + position) % len(codes)]
        else:
            code = participant["save_codes"][cycle % len(participant["save_codes"])]
        at = (start + timedelta(seconds=10 * n)).isoformat()
        takes.append({"code": code, "taken_at": at, "source_id": f"pwa-{n}"})
    return takes


def deck_size(client, participant: dict) -> dict:
    client.cookies.clear()
    client.get(f"/p/{participant['access_token']}")
    bundle = client.get("/me/offline.json").json()
    deck = json.dumps(bundle["deck"], separators=(",", ":")).encode()
    # The same facts in clear, as the organiser's deck gives them.
    rows = client.get(
        f"{API}/events/{bundle['event']['id']}/checkpoints",
        headers={"Authorization": f"Bearer {ft.TOKEN}"},
    ).json()
    rows = rows if isinstance(rows, list) else rows.get("checkpoints", rows.get("items", []))
    plain = [{"n": r["number"], "c": r["card"], "d": r["discard_code"]} for r in rows]
    clear = json.dumps(plain, separators=(",", ":")).encode()
    timings = {}
    for path in ("/me/offline.json", "/me"):
        runs = []
        for _ in range(10):
            began = time.perf_counter()
            assert client.get(path).status_code == 200
            runs.append((time.perf_counter() - began) * 1000)
        timings[path] = statistics.median(runs)
    return {
        "bundle_ms": timings["/me/offline.json"],
        "page_ms": timings["/me"],
        "bundle": len(json.dumps(bundle, separators=(",", ":")).encode()),
        "cps": len(bundle["deck"]["entries"]),
        "deck": len(deck),
        "deck_gz": len(gzip.compress(deck)),
        "clear": len(clear),
        "clear_gz": len(gzip.compress(clear)),
    }


def timed_sync(client, event_id: int, participants: list[dict], codes: list[str]) -> dict:
    """Median wall ms of the phone sync and of the organiser batch, one fresh participant each."""
    start = datetime.now(UTC) - timedelta(hours=1)
    phone, organiser = [], []
    for phone_p, organiser_p in participants:
        client.cookies.clear()
        client.get(f"/p/{phone_p['access_token']}")
        body = {
            "source": "phone-benchmark01",
            "takes": takes_for(phone_p, codes, SYNC_TAKES, start),
        }
        began = time.perf_counter()
        response = client.post("/me/offline/sync", json=body)
        phone.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.text
        bad = [r for r in response.json()["results"] if r["status"] != "accepted"]
        assert not bad, bad[:2]
        client.cookies.clear()
        items = [
            {**take, "participant": organiser_p["external_id"], "source": "bench-organiser"}
            for take in takes_for(organiser_p, codes, SYNC_TAKES, start)
        ]
        began = time.perf_counter()
        response = client.post(
            f"{API}/events/{event_id}/takes",
            json={"takes": items},
            headers={"Authorization": f"Bearer {ft.TOKEN}"},
        )
        organiser.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.text
    return {"phone_ms": statistics.median(phone), "organiser_ms": statistics.median(organiser),
            "phone_all": phone, "organiser_all": organiser}  # fmt: skip


class Server:
    """The app under uvicorn in a thread (stopped to cut the network)."""

    def __init__(self, app) -> None:
        self.port = ft.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def browser_times(app, pwa_p: dict, page_p: dict, codes: list[str], rounds: int) -> dict:
    from playwright.sync_api import sync_playwright

    server = Server(app)
    fresh = codes[-(2 * rounds) :]  # CPs not in the history
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
            )
            # Baseline: the server-rendered /t/{code}, online, no service worker.
            plain = browser.new_context(viewport={"width": 360, "height": 780},
                                        service_workers="block")  # fmt: skip
            page = plain.new_page()
            page.goto(f"{server.url}/p/{page_p['access_token']}")
            page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
            baseline = []
            for code in fresh[:rounds]:
                page.goto(f"{server.url}/t/{code}")
                baseline.append(page.evaluate(
                    "performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
                ))  # fmt: skip
            plain.close()
            # The offline phone: signed in online, then no server.
            context = browser.new_context(viewport={"width": 360, "height": 780})
            page = context.new_page()
            page.goto(f"{server.url}/p/{pwa_p['access_token']}")
            page.wait_for_selector("html[data-offline=ready]", timeout=30_000)
            server.stop()
            cdp = context.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
            offline, steps = [], []
            for code in fresh[rounds:]:
                page.goto(f"{server.url}/t/{code}")
                page.wait_for_selector("#take-status")
                offline.append(page.evaluate(
                    "performance.getEntriesByName('rogaine-result')[0].startTime"
                ))  # fmt: skip
                steps.append(page.evaluate(STEPS))
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
            page.goto(f"{server.url}/me/offline")
            page.wait_for_selector("#queue-count")
            unthrottled, free_steps = [], []
            for code in fresh[:rounds]:  # CPs of the other participant: new for this one
                page.goto(f"{server.url}/t/{code}")
                page.wait_for_selector("#take-status")
                unthrottled.append(page.evaluate(
                    "performance.getEntriesByName('rogaine-result')[0].startTime"
                ))  # fmt: skip
                free_steps.append(page.evaluate(STEPS))
            context.close()
            browser.close()
    finally:
        if not server.server.should_exit:
            server.stop()
    return {
        "offline_ms": statistics.median(offline),
        "offline_all": offline,
        "server_ms": statistics.median(baseline),
        "server_all": baseline,
        "offline_unthrottled_ms": statistics.median(unthrottled),
        "steps": {name: statistics.median(step[name] for step in steps) for name in steps[0]},
        "free_steps": {
            name: statistics.median(step[name] for step in free_steps) for name in free_steps[0]
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="measurements of each figure")
    parser.add_argument("--history", type=int, default=40,
                        help="takes already stored for the browser participants")  # fmt: skip
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium figure")
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/offline.db"
        ft.migrate(url)
        settings = Settings(database_url=url, admin_token=ft.TOKEN, log_level="WARNING",
                            environment="development", base_url="http://testserver")  # fmt: skip
        app = create_app(settings)
        count = 2 * args.rounds + 2
        with TestClient(app, headers={"Authorization": f"Bearer {ft.TOKEN}"}) as client:
            event_id, people, codes = ft.setup_event("", count, 17, client)
        with TestClient(app) as client:
            size = deck_size(client, people[0])
            pairs = list(zip(people[2::2], people[3::2], strict=False))[: args.rounds]
            sync = timed_sync(client, event_id, pairs, codes)
            start = datetime.now(UTC) - timedelta(hours=1, minutes=30)
            for person in people[:2]:  # the browser participants' history
                items = [
                    {**take, "participant": person["external_id"], "source": "history",
                     "source_id": f"h-{person['external_id']}-{take['source_id']}"}
                    for take in takes_for(person, codes[: -(2 * args.rounds)], args.history, start)
                ]  # fmt: skip
                client.post(f"{API}/events/{event_id}/takes", json={"takes": items},
                            headers={"Authorization": f"Bearer {ft.TOKEN}"})  # fmt: skip
        print(
            f"encrypted deck, {size['cps']} CPs: {size['deck'] / 1024:.1f} KB "
            f"({size['deck_gz'] / 1024:.1f} KB gzip); in clear: {size['clear'] / 1024:.1f} KB "
            f"({size['clear_gz'] / 1024:.1f} KB gzip); ratio {size['deck'] / size['clear']:.2f}x "
            f"(target < 20 KB: {'met' if size['deck'] < 20 * 1024 else 'MISSED'}); the whole "
            f"bundle of a participant without takes: {size['bundle'] / 1024:.1f} KB, served in "
            f"{size['bundle_ms']:.1f} ms (median of 10; the /me page: {size['page_ms']:.1f} ms)"
        )
        phone_ms, organiser_ms = sync["phone_ms"], sync["organiser_ms"]
        print(
            f"sync of {SYNC_TAKES} queued takes (POST /me/offline/sync), median of "
            f"{len(sync['phone_all'])}: {phone_ms:.0f} ms; organiser batch of the same "
            f"takes: {organiser_ms:.0f} ms; ratio {phone_ms / organiser_ms:.2f}x "
            f"(target < 1 s: {'met' if phone_ms < 1000 else 'MISSED'}); all: "
            f"{[round(v) for v in sync['phone_all']]} / {[round(v) for v in sync['organiser_all']]}"
        )
        if not args.no_browser:
            times = browser_times(app, people[0], people[1], codes, args.rounds)
            print(
                f"offline result page, 4x CPU throttling, {args.history} takes in the history, "
                f"median of {args.rounds}: {times['offline_ms']:.0f} ms "
                f"(all {[round(v) for v in times['offline_all']]}; unthrottled "
                f"{times['offline_unthrottled_ms']:.0f} ms); server-rendered /t/ online, same "
                f"throttling: {times['server_ms']:.0f} ms (all "
                f"{[round(v) for v in times['server_all']]}); ratio "
                f"{times['offline_ms'] / times['server_ms']:.2f}x (target < 200 ms: "
                f"{'met' if times['offline_ms'] < 200 else 'MISSED'})"
            )
            for label, key in (("4x throttled", "steps"), ("unthrottled", "free_steps")):
                steps = ", ".join(f"{name} {value:.0f}" for name, value in times[key].items())
                print(
                    f"  offline page steps, {label}, median ms from the navigation start: {steps}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
