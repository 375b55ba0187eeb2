"""The whole simulated event through the HTTP API, checked against the service's own records.

Nothing here is a copied output: the simulation's report is compared with the
state endpoints, the take log in the database and the auction close responses.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import func, select

from app.cli import main
from app.feed.models import Take, TakeOutcome
from app.simulation.client import ApiClient
from app.simulation.report import render
from app.simulation.runner import Simulation, SimulationConfig, SimulationResult
from tests.conftest import ADMIN_TOKEN


def test_simulated_event_agrees_with_the_service(client, session) -> None:
    api = ApiClient(client, ADMIN_TOKEN)
    result = Simulation(api, SimulationConfig(participants=6, seed=11)).run()
    check_states(api, result)
    check_log(session, result)
    check_podium(result)


def check_states(api: ApiClient, result: SimulationResult) -> None:
    """Every combination the report counts is in the participant's state endpoint."""
    assert len(result.states) == 6
    for external_id, state in result.states.items():
        again = api.state(result.event_id, external_id)
        assert again["combinations"] == state["combinations"]
        assert again["hand"] == state["hand"]
        for combination in state["combinations"]:
            assert len(combination["cards"]) == 5
    distribution = result.category_distribution
    assert sum(distribution.values()) == sum(result.combinations_per_participant.values()) > 0


def check_log(session, result: SimulationResult) -> None:
    """Rejections by reason equal the log's outcomes; redeliveries stored nothing."""
    rows = session.execute(
        select(TakeOutcome.reason, func.count())
        .join(Take, Take.id == TakeOutcome.take_id)
        .where(Take.event_id == result.event_id, TakeOutcome.outcome == "rejected")
        .group_by(TakeOutcome.reason)
    ).all()
    assert Counter(dict(rows)) == result.rejected_by_reason
    stored = session.scalar(
        select(func.count()).select_from(Take).where(Take.event_id == result.event_id)
    )
    assert stored == result.deliveries["accepted"]
    assert stored == sum(len(state["takes"]) for state in result.states.values())


def check_podium(result: SimulationResult) -> None:
    """The podium is what the close responses say, and each winner's bid was their own."""
    assert [row["place"] for row in result.podium] == [3, 2, 1]
    assert [close["place"] for close in result.auctions] == [3, 2, 1]
    winners = []
    for row, close in zip(result.podium, result.auctions, strict=True):
        assert row["winner"] == close["winner"]
        if row["winner"] is None:
            continue
        winners.append(row["winner"])
        own = [c["cards"] for c in result.states[row["winner"]]["combinations"]]
        assert row["cards"] in own
        last_round = [bid for bid in close["bids"] if bid["round"] == close["round"]]
        winning = [bid for bid in last_round if bid["participant"] == row["winner"]]
        assert winning and winning[0]["combination"]["cards"] == row["cards"]
        if close["resolution"] != "lots":  # otherwise the draw decided among the tied
            assert winning[0]["rank"] == 1
    assert len(winners) == len(set(winners))  # RULES.md I-8: one place per participant


def test_same_seed_same_report(client) -> None:
    api = ApiClient(client, ADMIN_TOKEN)
    first = Simulation(api, SimulationConfig(participants=2, seed=3)).run()
    second = Simulation(api, SimulationConfig(participants=2, seed=3)).run()
    assert first.event_id != second.event_id
    assert render(first) == render(second)
    other = Simulation(api, SimulationConfig(participants=2, seed=4)).run()
    assert render(other) != render(first)


def test_cli_simulate_in_process_is_repeatable(capsys) -> None:
    assert main(["simulate", "--participants", "2", "--seed", "7"]) == 0
    first = capsys.readouterr().out
    assert main(["simulate", "--participants", "2", "--seed", "7"]) == 0
    assert capsys.readouterr().out == first
    assert first.startswith("Podium")


class _Borrowed:
    """Stands in for `httpx.Client(base_url=…)`: hands out the test client as is."""

    def __init__(self, client, calls: list[dict]) -> None:
        self.client, self.calls = client, calls

    def __call__(self, **kwargs):
        self.calls.append(kwargs)
        return self

    def __enter__(self):
        return self.client

    def __exit__(self, *exc) -> None:
        return None


def test_cli_simulate_url_uses_the_token_make_run_kept(client, monkeypatch, tmp_path, capsys):
    """After `make run` the token is in DATA_DIR/admin_token, not in the environment."""
    import httpx

    from app.core.config import get_settings

    (tmp_path / "admin_token").write_text(ADMIN_TOKEN + "\n")
    monkeypatch.delenv("ADMIN_TOKEN", raising=False)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    calls: list[dict] = []
    monkeypatch.setattr(httpx, "Client", _Borrowed(client, calls))
    get_settings.cache_clear()
    try:
        url = "http://127.0.0.1:8000"
        assert main(["simulate", "--url", url, "--participants", "2", "--seed", "5"]) == 0
    finally:
        get_settings.cache_clear()
    assert calls == [{"base_url": "http://127.0.0.1:8000", "timeout": 60}]
    assert capsys.readouterr().out.startswith("Podium")


def test_cli_simulate_url_without_any_token_says_where_to_put_one(monkeypatch, tmp_path, capsys):
    from app.core.config import get_settings

    monkeypatch.delenv("ADMIN_TOKEN", raising=False)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        assert main(["simulate", "--url", "http://127.0.0.1:8000"]) == 2
    finally:
        get_settings.cache_clear()
    error = capsys.readouterr().err
    assert "--token" in error and "ADMIN_TOKEN" in error
    assert str(tmp_path / "admin_token") in error
    assert not (tmp_path / "admin_token").exists()  # never generated by a client command
