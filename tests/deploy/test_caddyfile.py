"""deploy/Caddyfile (docker-compose.yml's proxy) as Caddy itself reads it (`caddy adapt`)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from deploy.rehearsal import CADDY
from tests.conftest import ROOT


def adapt(**env: str) -> dict:
    if not Path(CADDY).exists():
        pytest.skip("caddy is missing: apt-get install caddy (.ci/run does)")
    done = subprocess.run(
        [CADDY, "adapt", "--config", str(ROOT / "deploy" / "Caddyfile"), "--adapter", "caddyfile"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_a_public_name_gets_certificates_from_acme() -> None:
    config = adapt(DOMAIN="poker.example.org", TLS="orgs@example.org")
    (policy,) = config["apps"]["tls"]["automation"]["policies"]
    assert policy["subjects"] == ["poker.example.org"]
    assert {issuer["module"] for issuer in policy["issuers"]} == {"acme", "zerossl"}
    assert {issuer["email"] for issuer in policy["issuers"]} == {"orgs@example.org"}


def test_by_default_a_rehearsal_on_localhost_with_the_internal_ca() -> None:
    config = adapt()
    (policy,) = config["apps"]["tls"]["automation"]["policies"]
    assert (policy["subjects"], policy["issuers"]) == (["localhost"], [{"module": "internal"}])
    text = json.dumps(config)
    assert '"dial": "app1:8000"' in text and '"dial": "app2:8000"' in text
    assert "trusted_proxies" not in text  # a client's X-Forwarded-For is replaced
    assert '"uri": "/readyz"' in text  # active health checks
    # No passive checks: Caddy 2.6 then refused every POST for fail_duration after a
    # host died ("no upstreams available"), though the other host was up.
    assert "fail_duration" not in text and "max_fails" not in text
    assert '"flush_interval": -1' in text  # server-sent events flushed at once
