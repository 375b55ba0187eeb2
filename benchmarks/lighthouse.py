"""Lighthouse (mobile) on `/me` of the demo, signed in as its first participant.

    python benchmarks/lighthouse.py [--runs 3] [--lighthouse 12.2.3] [--chrome /usr/bin/chromium]

Starts `rogaine-poker serve` (what `make run` starts: migrations, the demo event and its
six simulated hours) on a free port with a throwaway SQLite database, opens the first
personal link for the participant cookie, and runs `npx lighthouse` (mobile form factor,
simulated throttling, performance only) `--runs` times on `/me`, then on the landing
page `/` as the same-run baseline. Prints each run's performance score, Total Blocking
Time, First Contentful Paint, and whether the compression, static-cache and
back/forward-cache audits pass, with the load average. Lighthouse 13 wants Node 22, so
12.2.3 is the default. Needs Node (npx) and Chromium; says so and exits 0 without them.
Targets (issue 24): performance >= 95, TBT < 200 ms.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._machine import machine  # noqa: E402

AUDITS = ("uses-text-compression", "uses-long-cache-ttl", "bf-cache")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(data_dir: Path, port: int) -> tuple[subprocess.Popen, str]:
    """`rogaine-poker serve` on `port`; returns the process and the first personal link."""
    env = {
        **os.environ,
        "DATA_DIR": str(data_dir),
        "DATABASE_URL": f"sqlite:///{data_dir / 'rogaine.db'}",
        "HOST": "127.0.0.1",
        "PORT": str(port),
    }
    env.pop("ADMIN_TOKEN", None)
    env.pop("BASE_URL", None)
    bin_dir = Path(sys.executable).parent
    subprocess.run([bin_dir / "alembic", "upgrade", "head"], cwd=ROOT, env=env, check=True,
                   capture_output=True)  # fmt: skip
    log = (data_dir / "serve.log").open("w")
    server = subprocess.Popen(
        [bin_dir / "rogaine-poker", "serve"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    for _ in range(600):  # 60 s at most: the demo's history is played before the start
        text = (data_dir / "serve.log").read_text()
        link = re.search(rf"http://127\.0\.0\.1:{port}/p/\S+", text)
        if link and "Uvicorn running" in text:
            return server, link.group(0)
        if server.poll() is not None:
            break
        time.sleep(0.1)
    server.terminate()
    raise SystemExit(f"the server did not start:\n{(data_dir / 'serve.log').read_text()}")


def participant_cookie(link: str) -> str:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(link).read()
    return "; ".join(f"{c.name}={c.value}" for c in jar)


def lighthouse(url: str, cookie: str, version: str, chrome: str, out: Path) -> dict:
    """One Lighthouse run; the JSON report."""
    env = {**os.environ, "CHROME_PATH": chrome}
    subprocess.run(
        ["npx", "--yes", f"lighthouse@{version}", url, "--quiet",
         "--chrome-flags=--headless=new --no-sandbox", "--form-factor=mobile",
         "--only-categories=performance", f"--extra-headers={json.dumps({'Cookie': cookie})}",
         "--output=json", f"--output-path={out}"],
        env=env, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return json.loads(out.read_text())


def summary(report: dict) -> dict:
    audits = report["audits"]
    return {
        "performance": round(report["categories"]["performance"]["score"] * 100),
        "tbt_ms": audits["total-blocking-time"]["numericValue"],
        "fcp_ms": audits["first-contentful-paint"]["numericValue"],
        "passed": [name for name in AUDITS if audits.get(name, {}).get("score") == 1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lighthouse", default="12.2.3")
    parser.add_argument("--chrome", default="/usr/bin/chromium")
    args = parser.parse_args()
    if not shutil.which("npx") or not Path(args.chrome).exists():
        print(f"lighthouse: needs npx (Node) and Chromium at {args.chrome}; not measured")
        return
    with tempfile.TemporaryDirectory(prefix="rp-lighthouse-") as tmp:
        port = free_port()
        server, link = start_server(Path(tmp), port)
        try:
            cookie = participant_cookie(link)
            base = f"http://127.0.0.1:{port}"
            results: dict[str, list[dict]] = {"/me": [], "/ (landing, baseline)": []}
            for i in range(args.runs):
                for path, key in (("/me", "/me"), ("/", "/ (landing, baseline)")):
                    sent = cookie if path == "/me" else ""
                    out = Path(tmp) / f"r{i}.json"
                    report = lighthouse(base + path, sent, args.lighthouse, args.chrome, out)
                    results[key].append(summary(report))
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    print(machine())
    print(f"Lighthouse {args.lighthouse}, mobile, {args.runs} runs each; load {os.getloadavg()}")
    for key, runs in results.items():
        scores = [r["performance"] for r in runs]
        tbt = [r["tbt_ms"] for r in runs]
        print(f"{key:24} performance {scores} (median {median(scores)}), "
              f"TBT {[round(t) for t in tbt]} ms (median {median(tbt):.0f}), "
              f"FCP median {median(r['fcp_ms'] for r in runs):.0f} ms")  # fmt: skip
        print(f"{'':24} audits passed in every run: "
              f"{sorted(set.intersection(*(set(r['passed']) for r in runs)))}")  # fmt: skip
    me = results["/me"]
    print(f"\n/me: performance median {median(r['performance'] for r in me)} (target >= 95), "
          f"TBT median {median(r['tbt_ms'] for r in me):.0f} ms (target < 200)")  # fmt: skip


if __name__ == "__main__":
    main()
