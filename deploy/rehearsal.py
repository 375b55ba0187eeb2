"""The production topology on this machine, without Docker (issue 27).

Debian's Caddy (`/usr/bin/caddy`, `apt-get install caddy`) terminates TLS with its own
internal CA (`tls internal`) on `https://localhost:PORT` and balances two app "hosts": two
`uvicorn app.main:app` processes on their own ports, started exactly as the Dockerfile
starts them (`--proxy-headers --forwarded-allow-ips 127.0.0.1`, the proxy's address), on
one PostgreSQL database (`DATABASE_URL`, migrated first).

A person runs it and plays with it:

    .venv/bin/python deploy/rehearsal.py --database-url postgresql://postgres@127.0.0.1/rp

It prints the links, the organiser token, the root certificate to trust and each host's
pid, then reads commands: `kill N` (kill -9 host N), `start N`, `status`, `quit`.

Tests and `benchmarks/rehearsal.py` use `Rehearsal` (a context manager): `kill(i)`,
`start_host(i)`, `client()` (httpx over HTTPS trusting the CA) and `trust_in_nss(home)`
(adds the root to the NSS database Chromium reads in `home`, with `certutil` from
`libnss3-tools`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from subprocess import Popen
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
CADDY = shutil.which("caddy") or "/usr/bin/caddy"
CERTUTIL = shutil.which("certutil") or "/usr/bin/certutil"
START_DEADLINE = 120.0  # seconds: generous, a loaded CI machine starts slowly

CADDYFILE = """\
{{
	admin off
	skip_install_trust
	http_port {http_port}
	https_port {https_port}
	auto_https disable_redirects
	grace_period 2s
	storage file_system {storage}
}}

localhost:{https_port} {{
	tls internal
	reverse_proxy {upstreams} {{
		lb_policy round_robin
		# A host that died: the request is retried on the other host for up to 10 s.
		lb_try_duration 10s
		lb_try_interval 250ms
		# Active checks only: with passive ones (fail_duration), Caddy 2.6 answered 503
		# "no upstreams available" to every POST for 10 s after a host died (rehearsal).
		health_uri /readyz
		health_interval 2s
		flush_interval -1
		# Which host answered (the rehearsal's tests and benchmark read it).
		header_down X-Served-By {{http.reverse_proxy.upstream.hostport}}
	}}
	log {{
		output file {access_log}
	}}
}}
"""


def free_port() -> int:
    """A TCP port nobody listens on now (127.0.0.1)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(check: Any, what: str, deadline: float = START_DEADLINE) -> None:
    """Call `check()` until it returns true; AssertionError naming `what` after
    `deadline` seconds."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            if check():
                return
        except (httpx.HTTPError, OSError):
            pass
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {deadline:.0f} s")


@dataclass
class Host:
    """One app "host": a uvicorn process on its own port."""

    index: int
    port: int
    process: Popen | None = None
    log: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def address(self) -> str:
        """How the proxy names it (`X-Served-By`)."""
        return f"127.0.0.1:{self.port}"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class Rehearsal:
    """Caddy (TLS, `tls internal`) in front of `hosts` uvicorn processes on one PostgreSQL.

    `database_url`: the PostgreSQL URL; `env`: extra settings of the app processes
    (e.g. `AUTH_FAILURES_PER_WINDOW`); `workers`: uvicorn workers per host. Use as a
    context manager: everything it started is stopped at the end.
    """

    database_url: str
    hosts: int = 2
    workers: int = 1
    env: dict[str, str] = field(default_factory=dict)
    admin_token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    https_port: int = field(default_factory=free_port)
    workdir: Path | None = None
    app_hosts: list[Host] = field(default_factory=list)
    caddy: Popen | None = None

    def __post_init__(self) -> None:
        if self.workdir is None:
            self.workdir = Path(tempfile.mkdtemp(prefix="rehearsal-"))
        self.app_hosts = [Host(i, free_port()) for i in range(self.hosts)]

    # -- addresses -----------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The public address: `https://localhost:PORT` (the proxy)."""
        return f"https://localhost:{self.https_port}"

    @property
    def root_certificate(self) -> Path:
        """Caddy's internal root CA (PEM), created when Caddy starts."""
        assert self.workdir is not None
        return self.workdir / "caddy" / "pki" / "authorities" / "local" / "root.crt"

    def ssl_context(self) -> ssl.SSLContext:
        """Verifies the proxy's certificate against Caddy's root (nothing else trusted)."""
        return ssl.create_default_context(cafile=str(self.root_certificate))

    def client(self, **kwargs: Any) -> httpx.Client:
        """An httpx client of the proxy over HTTPS (certificate verified)."""
        kwargs.setdefault("timeout", 60)
        return httpx.Client(base_url=self.url, verify=self.ssl_context(), **kwargs)

    def app_env(self) -> dict[str, str]:
        """The environment of the app processes (what docker-compose.yml sets)."""
        return {
            **os.environ,
            "ENVIRONMENT": "production",
            "DATABASE_URL": self.database_url,
            "ADMIN_TOKEN": self.admin_token,
            "BASE_URL": self.url,
            "FORWARDED_ALLOW_IPS": "127.0.0.1",
            "APP_HOSTS": str(self.hosts),
            "WORKERS": str(self.workers),
            "LOG_LEVEL": "WARNING",
            **self.env,
        }

    # -- life ----------------------------------------------------------------------------

    def __enter__(self) -> Rehearsal:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Migrate, start the hosts and Caddy; return when the proxy answers over HTTPS."""
        self.migrate()
        for host in self.app_hosts:
            self.start_host(host.index, wait=False)
        self.start_proxy()
        for host in self.app_hosts:
            self.wait_ready(host.index)
        wait_for(self._proxy_ready, "the proxy's https://localhost")

    def migrate(self) -> None:
        """`alembic upgrade head` on the database (once, before the hosts: as compose)."""
        subprocess.run(
            [sys.executable, "-m", "alembic", "upgrade", "head"],
            cwd=ROOT,
            env=self.app_env(),
            check=True,
            capture_output=True,
        )

    def start_host(self, index: int, *, wait: bool = True) -> Host:
        """Start host `index` (again, after a kill); wait until its /readyz says ready."""
        host = self.app_hosts[index]
        assert not host.alive, f"host {index} is running"
        assert self.workdir is not None
        host.log = self.workdir / f"host{index}.log"
        command = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1"]
        command += ["--port", str(host.port), "--workers", str(self.workers)]
        command += ["--proxy-headers", "--forwarded-allow-ips", "127.0.0.1", "--no-access-log"]
        with host.log.open("ab") as log:
            host.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.app_env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: kill() reaches the workers
            )
        if wait:
            self.wait_ready(index)
        return host

    def wait_ready(self, index: int) -> None:
        host = self.app_hosts[index]
        wait_for(
            lambda: host.alive and httpx.get(f"{host.url}/readyz", timeout=5).status_code == 200,
            f"host {index} ready ({host.log})",
        )

    def kill(self, index: int) -> None:
        """`kill -9` host `index` (and its workers' group): it ends mid-request."""
        host = self.app_hosts[index]
        assert host.process is not None
        os.killpg(host.process.pid, signal.SIGKILL)
        host.process.wait()

    def start_proxy(self) -> None:
        assert self.workdir is not None
        upstreams = " ".join(host.address for host in self.app_hosts)
        caddyfile = self.workdir / "Caddyfile"
        caddyfile.write_text(
            CADDYFILE.format(
                http_port=free_port(),
                https_port=self.https_port,
                storage=self.workdir / "caddy",
                upstreams=upstreams,
                access_log=self.workdir / "access.log",
            )
        )
        env = {**os.environ, "HOME": str(self.workdir), "XDG_DATA_HOME": str(self.workdir)}
        log = (self.workdir / "caddy.log").open("ab")
        self.caddy = subprocess.Popen(
            [CADDY, "run", "--config", str(caddyfile), "--adapter", "caddyfile"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        wait_for(self.root_certificate.exists, "Caddy's root certificate")
        wait_for(self._port_open, "the proxy's port")

    def stop_proxy(self) -> None:
        """Stop Caddy (the network is gone for every client); `start_proxy` brings it back
        on the same port with the same CA."""
        assert self.caddy is not None
        self.caddy.kill()  # at once, open connections with it
        self.caddy.wait()
        wait_for(lambda: not self._port_open(), "the proxy's port closed")

    def _port_open(self) -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", self.https_port)) == 0

    def _proxy_ready(self) -> bool:
        assert self.caddy is not None and self.caddy.poll() is None, "caddy exited"
        with self.client(timeout=5) as client:
            return client.get("/readyz").status_code == 200

    def stop(self) -> None:
        """Stop Caddy and every host still running."""
        for process in [self.caddy, *(host.process for host in self.app_hosts)]:
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()

    # -- browsers ------------------------------------------------------------------------

    def trust_in_nss(self, home: Path) -> Path:
        """Trust Caddy's root in the NSS database of `home` (what Chromium reads as
        `$HOME/.pki/nssdb` on Linux); launch the browser with `HOME=home`."""
        nssdb = home / ".pki" / "nssdb"
        nssdb.mkdir(parents=True, exist_ok=True)
        database = f"sql:{nssdb}"
        if not (nssdb / "cert9.db").exists():
            subprocess.run(
                [CERTUTIL, "-N", "-d", database, "--empty-password"],
                check=True,
                capture_output=True,
            )
        name, root = "rehearsal-caddy-root", str(self.root_certificate)
        subprocess.run(
            [CERTUTIL, "-A", "-d", database, "-t", "C,,", "-n", name, "-i", root],
            check=True,
            capture_output=True,
        )
        return nssdb


def describe(rehearsal: Rehearsal) -> str:
    """What a person needs: links, token, the root to trust, the hosts' pids."""
    lines = [
        f"  Rehearsal on {rehearsal.url} (Caddy, tls internal) -> "
        + ", ".join(f"host {h.index} {h.url}" for h in rehearsal.app_hosts),
        f"  Organiser pages: {rehearsal.url}/admin/login",
        f"  Organiser token: {rehearsal.admin_token}",
        f"  Root certificate: {rehearsal.root_certificate}",
        f"    curl --cacert {rehearsal.root_certificate} {rehearsal.url}/readyz",
        "    Chromium/Firefox (NSS): certutil -A -d sql:$HOME/.pki/nssdb -t C,, "
        f"-n rehearsal -i {rehearsal.root_certificate}",
        f"  Logs: {rehearsal.workdir}",
    ]
    return "\n".join(lines)


def status(rehearsal: Rehearsal) -> str:
    return "\n".join(
        f"  host {h.index}: pid {h.process.pid if h.process else '-'}, "
        f"{'running' if h.alive else 'stopped'}"
        for h in rehearsal.app_hosts
    )


def console(rehearsal: Rehearsal) -> None:
    """Read `kill N`, `start N`, `status`, `quit` from stdin until `quit` or EOF."""
    print(status(rehearsal))
    print("  commands: kill N (kill -9 host N), start N, status, quit", flush=True)
    for line in sys.stdin:
        verb, _, arg = line.strip().partition(" ")
        try:
            if verb == "kill":
                rehearsal.kill(int(arg))
            elif verb == "start":
                rehearsal.start_host(int(arg))
            elif verb == "quit":
                return
            print(status(rehearsal), flush=True)
        except (ValueError, IndexError, AssertionError) as exc:
            print(f"  {exc or 'usage: kill N | start N | status | quit'}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL") or os.environ.get("TEST_DATABASE_URL"),
        help="PostgreSQL URL (default: DATABASE_URL, else TEST_DATABASE_URL)",
    )
    parser.add_argument("--port", type=int, default=8443, help="HTTPS port of the proxy")
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1, help="uvicorn workers per host")
    args = parser.parse_args(argv)
    if not args.database_url or not args.database_url.startswith("postgres"):
        parser.error("a PostgreSQL --database-url is needed (one database, several hosts)")
    if not Path(CADDY).exists():
        parser.error("caddy is missing: apt-get install caddy")
    rehearsal = Rehearsal(
        args.database_url, hosts=args.hosts, workers=args.workers, https_port=args.port
    )
    with rehearsal:
        print(describe(rehearsal), flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            console(rehearsal)
    return 0


if __name__ == "__main__":
    sys.exit(main())
