"""The simulated event, driven through the HTTP API from the first scan to the podium.

`Simulation(api, config).run()` creates the event of the seed rules, registers
the participants, plays the night as a discrete-event simulation in field time
(every take goes through `POST .../takes` exactly as a field app sends it, in
the order the simulated world produces them), runs the three auctions and
returns a `SimulationResult`. Same seed, same result: every random choice comes
from a `random.Random` derived from `config.seed`; the codes the service draws
(CP, discard and save codes) are only ever used as opaque strings, and a
mistyped code is re-drawn until it matches no code of the event.
"""

from __future__ import annotations

import heapq
import random
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from app.events.codes import normalize_code
from app.simulation.agent import Agent, Decision
from app.simulation.cards import CATEGORIES, strength
from app.simulation.client import ApiClient, ApiError
from app.simulation.course import (
    DEFAULT_DATE,
    START_LAT,
    START_LON,
    TIMEZONE,
    PublicCP,
    build_course,
    course_window,
    distance_km,
    walking_minutes,
)
from app.simulation.devices import DevicePlan, plan_device, sync_batches
from app.simulation.strategies import (
    BIDDING_STYLES,
    PLAY_STRATEGIES,
    OwnCombination,
    choose_bid,
    tie_break_bid,
)

FIRST_NAMES = (
    "Anna", "Boris", "Daria", "Egor", "Fedor", "Galina", "Igor", "Katya", "Lev", "Maria",
    "Nikita", "Olga", "Pavel", "Roman", "Sofia", "Timur", "Ulyana", "Vera", "Yuri", "Zoya",
)  # fmt: skip
LAST_NAMES = (
    "Belova", "Volkov", "Gromova", "Denisov", "Zorina", "Ivanov", "Kovaleva", "Lebedev",
    "Morozova", "Novikov", "Orlova", "Petrov", "Rybakova", "Sokolov", "Titova", "Frolov",
)  # fmt: skip

# Chances of the field's accidents, per occasion.
P_TYPO = 0.03  # a code typed with one wrong character (unknown_code), then retyped
P_REPEAT_SCAN = 0.03  # the same QR scanned twice (duplicate)
P_FORGET_DECISION = 0.06  # walks on with 5 cards and scans a 6th (hand_full)
P_DOUBLE_DISCARD = 0.03  # the same discard code entered twice (card_not_in_hand)
P_THIRD_DISCARD = 0.15  # tries to discard in round 3 (no_discards_left)
P_REUSE_SAVE = 0.03  # enters an already used save code (code_already_used)
P_SHORT_SAVE = 0.1  # at the finish, tries to save a short hand (hand_not_full)
P_SAVE_CODE_TYPO = 0.02  # a save code nobody has (unknown_code)
ENDGAME = timedelta(minutes=60)  # this close to their finish, a full hand is saved


@dataclass
class SimulationConfig:
    """Size and seed of a run. `date` is the local date the course opens (12:00)."""

    participants: int = 30
    seed: int = 1
    date: str = DEFAULT_DATE
    name: str | None = None
    places: tuple[int, ...] = (3, 2, 1)


@dataclass
class Device:
    plan: DevicePlan
    seq: int = 0
    backlog: list[dict[str, Any]] = field(default_factory=list)
    sync_at: datetime | None = None


@dataclass
class SimulationResult:
    """What a run produced; `report()` renders it as text (deterministic per seed)."""

    event_id: int
    participants: list[dict[str, Any]]  # external_id, name, strategy, bidding, access_token
    states: dict[str, dict[str, Any]]  # final organiser state per external_id
    auctions: list[dict[str, Any]]  # close responses, in ceremony order
    deliveries: Counter[str]  # sent items by status, batches, late items
    podium: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rejected_by_reason(self) -> Counter[str]:
        return Counter(
            take["reason"]
            for state in self.states.values()
            for take in state["takes"]
            if take["outcome"] == "rejected"
        )

    @property
    def category_distribution(self) -> Counter[str]:
        return Counter(
            combination["category"]
            for state in self.states.values()
            for combination in state["combinations"]
        )

    @property
    def combinations_per_participant(self) -> dict[str, int]:
        return {ext: len(state["combinations"]) for ext, state in self.states.items()}

    @property
    def unsaved_hands(self) -> dict[str, int]:
        return {ext: len(s["hand"]) for ext, s in self.states.items() if s["hand"]}


def local_iso(moment: datetime) -> str:
    """Field time as a field app sends it: local time with its UTC offset."""
    return moment.astimezone(ZoneInfo(TIMEZONE)).isoformat(timespec="seconds")


class Simulation:
    """One simulated event against an `ApiClient` (see the module docstring)."""

    def __init__(
        self,
        api: ApiClient,
        config: SimulationConfig,
        *,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.api = api
        self.config = config
        self.log = log or (lambda _message: None)
        self.rng = random.Random(config.seed)
        self.opens_at, self.closes_at = course_window(config.date)
        self.event_id = 0
        self.agents: list[Agent] = []
        self.devices: dict[str, Device] = {}
        self.code_of_cp: dict[int, str] = {}
        self.discard_code_of_card: dict[str, str] = {}
        self.number_of_code: dict[str, int] = {}
        self.known_codes: set[str] = set()
        self.public: dict[int, PublicCP] = {}
        self.start_position = (START_LAT, START_LON)
        self.deliveries: Counter[str] = Counter()
        self._queue: list[tuple[datetime, int, str, int, int]] = []
        self._seq = 0

    # --- setup ------------------------------------------------------------------

    def setup(self) -> None:
        """Create the event, its 54 CPs and the participants through the API."""
        course = build_course(random.Random(self.rng.getrandbits(64)))
        name = self.config.name or f"Simulated rogaine (seed {self.config.seed})"
        event = self.api.create_event(
            {
                "name": name,
                "opens_at": self.opens_at.isoformat(),
                "closes_at": self.closes_at.isoformat(),
                "timezone": TIMEZONE,
                "hand_ranking": "seed",
                "save_codes_per_participant": 10,
            }
        )
        self.event_id = event["id"]
        self.api.put_checkpoints(
            self.event_id,
            [
                {
                    "number": cp.number,
                    "card": cp.card,
                    "lat": cp.lat,
                    "lon": cp.lon,
                    "hint": cp.hint,
                }
                for cp in course  # the service draws the secret codes
            ],
        )
        self._try_status("course_open")
        self.load_world()
        public = self.load_public()
        for index in range(self.config.participants):
            rng = random.Random(self.rng.getrandbits(64))
            external_id = str(101 + index)
            name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
            created = self.api.add_participant(
                self.event_id,
                {
                    "name": name,
                    "external_id": external_id,
                    "category": rng.choice(("solo", "team")),
                },
            )
            self.add_agent(rng, external_id, name, created["save_codes"], created["access_token"])
        self.log(f"event {self.event_id}: {len(public)} CPs, {len(self.agents)} participants")

    def attach(
        self,
        event_id: int,
        opens_at: datetime,
        closes_at: datetime,
        participants: list[dict[str, Any]],
    ) -> None:
        """Play an existing event instead of creating one (the demo event of `make run`).

        `participants`: dicts with `external_id`, `name`, `save_codes` and, when
        known, `access_token` (otherwise the phone's view is read with the
        organiser's state endpoint).
        """
        self.event_id = event_id
        self.opens_at, self.closes_at = opens_at, closes_at
        self.load_world()
        self.load_public()
        for participant in participants:
            rng = random.Random(self.rng.getrandbits(64))
            self.add_agent(
                rng,
                participant["external_id"],
                participant["name"],
                participant["save_codes"],
                participant.get("access_token") or "",
            )

    def load_public(self) -> dict[int, PublicCP]:
        """The public CP list (no token): what every participant knows before the start."""
        self.public = {
            int(cp["number"]): PublicCP(
                int(cp["number"]),
                cp["lat"] if cp.get("lat") is not None else 0.0,
                cp["lon"] if cp.get("lon") is not None else 0.0,
                cp.get("hint") or "",
            )
            for cp in self.api.checkpoints(self.event_id, public=True)
        }
        points = list(self.public.values())
        self.start_position = (
            (sum(p.lat for p in points) / len(points), sum(p.lon for p in points) / len(points))
            if points
            else (START_LAT, START_LON)
        )
        return self.public

    def load_world(self) -> None:
        """The organiser's CP list: what is physically printed at each CP."""
        for cp in self.api.checkpoints(self.event_id):
            number = int(cp["number"])
            self.code_of_cp[number] = cp["code"]
            self.discard_code_of_card[cp["card"]] = cp["discard_code"]
            self.number_of_code[normalize_code(cp["code"])] = number
            self.known_codes.add(normalize_code(cp["code"]))
            self.known_codes.add(normalize_code(cp["discard_code"]))

    def _try_status(self, status: str) -> None:
        try:
            self.api.set_status(self.event_id, status)
        except ApiError as error:  # an event already past that status, or no such step
            self.log(f"status {status}: {error}")

    def add_agent(
        self,
        rng: random.Random,
        external_id: str,
        name: str,
        save_codes: list[str],
        access_token: str,
    ) -> Agent:
        """A simulated participant with a random strategy, pace, start, finish and device."""
        strategy = rng.choice(sorted(PLAY_STRATEGIES))
        start = self.opens_at + timedelta(minutes=rng.uniform(0, 150))
        if rng.random() < 0.05:  # came too early and scans before the opening
            start = self.opens_at - timedelta(minutes=rng.uniform(20, 45))
        roll = rng.random()
        if roll < 0.2:  # gives up in the night
            finish = self.opens_at + timedelta(hours=rng.uniform(8, 14))
        elif roll < 0.25:  # keeps going after the close
            finish = self.closes_at + timedelta(minutes=rng.uniform(5, 25))
        else:
            finish = self.closes_at - timedelta(minutes=rng.uniform(5, 180))
        agent = Agent(
            external_id=external_id,
            name=name,
            strategy=PLAY_STRATEGIES[strategy](),
            bidding=rng.choice(BIDDING_STYLES[:3]) if rng.random() > 0.05 else "absent",
            uses_hints=strategy != "casual" and rng.random() < 0.7,
            speed_kmh=rng.uniform(3.5, 6.5),
            start_at=start,
            finish_at=finish,
            rng=rng,
            public=self.public,
            save_codes=list(save_codes),
            access_token=access_token,
            forgets_last_save=rng.random() < 0.1,
            position=self.start_position,
            index=len(self.agents),
        )
        for code in agent.save_codes:
            self.known_codes.add(normalize_code(code))
        source = f"{rng.choice(('app', 'fixpoint'))}-{external_id}"
        self.devices[external_id] = Device(plan_device(rng, source, self.opens_at, self.closes_at))
        self.agents.append(agent)
        return agent

    def phone_state(self, agent: Agent) -> dict[str, Any]:
        """The participant's own state, as their phone shows it."""
        if agent.access_token:
            return self.api.my_state(agent.access_token)
        return self.api.state(self.event_id, agent.external_id)

    # --- the night ----------------------------------------------------------------

    def _push(self, at: datetime, kind: str, agent: int, cp: int = 0) -> None:
        self._seq += 1
        heapq.heappush(self._queue, (at, self._seq, kind, agent, cp))

    def play(self, until: datetime | None = None) -> None:
        """Run the night: every participant's walk, takes, decisions and syncs, in field time.

        With `until`, stop before the first thing that happens after it (a history
        up to now for the demo event); takes still on offline devices stay unsent.
        """
        for index, agent in enumerate(self.agents):
            self._push(agent.start_at, "walk", index)
        while self._queue:
            if until is not None and self._queue[0][0] > until:
                break
            at, _, kind, index, cp = heapq.heappop(self._queue)
            agent = self.agents[index]
            if kind == "walk":
                self._walk_on(agent, index, at)
            elif kind == "arrive":
                self._arrive(agent, index, cp, at)
            elif kind == "finish":
                self._finish(agent, at)
            elif kind == "sync":
                self._sync(agent, at)

    def _walk_on(self, agent: Agent, index: int, at: datetime, exclude: set[int] | None = None):
        if agent.finished:
            return
        if agent.next_save_code() is None and not agent.hand:
            self._push(at, "finish", index)
            return
        number = agent.choose_next_cp(exclude)
        if number is None:
            self._push(at, "finish", index)
            return
        cp = agent.public[number]
        local_hour = at.astimezone(ZoneInfo(TIMEZONE)).hour
        minutes = walking_minutes(
            distance_km(agent.position, (cp.lat, cp.lon)), agent.speed_kmh, local_hour, agent.rng
        )
        arrival = at + timedelta(minutes=minutes)
        if arrival > agent.finish_at:
            self._push(agent.finish_at, "finish", index)
        else:
            self._push(arrival, "arrive", index, number)

    def _arrive(self, agent: Agent, index: int, number: int, at: datetime) -> None:
        if agent.finished:
            return
        cp = agent.public[number]
        agent.position = (cp.lat, cp.lon)
        code = self.code_of_cp[number]
        items = []
        if agent.rng.random() < P_TYPO:
            items.append(self._item(agent, self.mistype(code, agent.rng), at))
            at += timedelta(seconds=20)
        items.append(self._item(agent, code, at))
        results = self._deliver(agent, items, at)
        if results is None:
            agent.record_offline_take(number)
        else:
            agent.observe_card_take(number, results[-1])
        if agent.rng.random() < P_REPEAT_SCAN:
            at += timedelta(seconds=40)
            again = self._deliver(agent, [self._item(agent, code, at)], at)
            if again is not None:
                agent.observe_card_take(number, again[0])
        if agent.at_decision_point():
            if agent.forgot_decision or agent.rng.random() >= P_FORGET_DECISION:
                agent.forgot_decision = False
                self._decide(agent, at + timedelta(minutes=1))
            else:
                agent.forgot_decision = True  # the next take will be a 6th card
        self._walk_on(agent, index, at + timedelta(minutes=1))

    def _decide(self, agent: Agent, at: datetime) -> None:
        """A decision point: refresh the phone's view when online, then discard or save."""
        device = self.devices[agent.external_id]
        online = device.plan.online(at) and not device.backlog
        if online:
            agent.sync(self.phone_state(agent), self.number_of_code)
            self.deliveries["state_refreshes"] += 1
        if not agent.at_decision_point():
            return
        if agent.hand_known and agent.finish_at - at < ENDGAME:
            decision = Decision(save=True)  # no time left to redraw: keep what is in hand
        else:
            decision = agent.decide() if agent.hand_known else agent.decide_blind()
        if not decision.save and not decision.discards:
            return  # offline and unsure: carries on (a 6th take may follow)
        items: list[dict[str, Any]] = []
        step = timedelta(seconds=15)
        if decision.discards:
            for card in decision.discards:
                code = agent.discard_codes[card]
                if agent.rng.random() < P_TYPO:
                    items.append(self._item(agent, self.mistype(code, agent.rng), at))
                    at += step
                items.append(self._item(agent, code, at))
                at += step
                if agent.rng.random() < P_DOUBLE_DISCARD:
                    items.append(self._item(agent, code, at))
                    at += step
            self._deliver(agent, items, at)
            agent.applied(decision)
            return
        if agent.round >= 3 and agent.hand_cards and agent.rng.random() < P_THIRD_DISCARD:
            card = agent.hand_cards[0]
            if card in agent.discard_codes:
                items.append(self._item(agent, agent.discard_codes[card], at))
                at += step
        save_code = self._save_items(agent, items, at)
        if save_code is None:
            return
        self._deliver(agent, items, at)
        agent.applied(decision, save_code)

    def _save_items(self, agent: Agent, items: list[dict[str, Any]], at: datetime) -> str | None:
        """Append the takes of entering a save code (with the field's slips) to `items`."""
        save_code = agent.next_save_code()
        if save_code is None:
            return None
        step = timedelta(seconds=15)
        if agent.used_save_codes and agent.rng.random() < P_REUSE_SAVE:
            items.append(self._item(agent, sorted(agent.used_save_codes)[0], at))
            at += step
        if agent.rng.random() < P_SAVE_CODE_TYPO:
            items.append(self._item(agent, self.mistype(save_code, agent.rng), at))
            at += step
        items.append(self._item(agent, save_code, at))
        return save_code

    def _finish(self, agent: Agent, at: datetime) -> None:
        """Back at the finish: save a full hand (unless this one forgets), then stop."""
        if agent.finished:
            return
        agent.finished = True
        if agent.forgets_last_save:
            return
        device = self.devices[agent.external_id]
        if device.plan.online(at) and not device.backlog:
            agent.sync(self.phone_state(agent), self.number_of_code)
        if len(agent.hand) >= 5:
            items: list[dict[str, Any]] = []
            code = self._save_items(agent, items, at)
            if code is not None:
                self._deliver(agent, items, at)
                agent.applied(Decision(save=True), code)
        elif agent.hand and agent.rng.random() < P_SHORT_SAVE:
            code = agent.next_save_code()  # tries to save a short hand: hand_not_full
            if code is not None:
                self._deliver(agent, [self._item(agent, code, at)], at)

    def _sync(self, agent: Agent, at: datetime) -> None:
        """The device is back: send the backlog in out-of-order batches, then refresh."""
        device = self.devices[agent.external_id]
        backlog, device.backlog, device.sync_at = device.backlog, [], None
        batches = sync_batches(backlog, agent.rng)
        for batch in batches:
            results = self.api.post_takes(self.event_id, batch)
            self.deliveries["batches"] += 1
            self.deliveries["late_items"] += len(batch)
            for item, result in zip(batch, results, strict=True):
                self.deliveries[result["status"]] += 1
                result["_code"] = normalize_code(item["code"])
            agent.learn_results(self.number_of_code, results)
        if at < self.closes_at and not agent.finished:
            agent.sync(self.phone_state(agent), self.number_of_code)
            if agent.at_decision_point() and agent.hand_known:
                self._decide(agent, at)

    def _item(self, agent: Agent, code: str, at: datetime) -> dict[str, Any]:
        device = self.devices[agent.external_id]
        device.seq += 1
        return {
            "participant": agent.external_id,
            "code": code,
            "taken_at": local_iso(at),
            "source": device.plan.source,
            "source_id": f"{device.seq}",
        }

    def _deliver(
        self, agent: Agent, items: list[dict[str, Any]], at: datetime
    ) -> list[dict[str, Any]] | None:
        """Send takes now (online) and return the feed's results, or keep them (offline)."""
        device = self.devices[agent.external_id]
        if device.plan.online(at) and not device.backlog:
            results = self.api.post_takes(self.event_id, items)
            self.deliveries["batches"] += 1
            for result in results:
                self.deliveries[result["status"]] += 1
            return results
        device.backlog.extend(items)
        if device.sync_at is None:
            device.sync_at = device.plan.reconnects_at(at)
            self._push(device.sync_at, "sync", agent.index)
        return None

    def mistype(self, code: str, rng: random.Random) -> str:
        """`code` with one character replaced, guaranteed to match no code of the event."""
        alphabet = string.ascii_uppercase + string.digits
        while True:
            chars = list(code)
            position = rng.randrange(len(chars))
            chars[position] = rng.choice(alphabet.replace(chars[position].upper(), ""))
            typo = "".join(chars)
            if normalize_code(typo) not in self.known_codes and normalize_code(typo):
                return typo

    # --- the ceremony -------------------------------------------------------------------

    def ceremony(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The auctions from the lowest place to the highest (RULES.md §1.4).

        Returns (close responses, podium rows)."""
        self._try_status("course_closed")
        self._try_status("ceremony")
        used: dict[str, set[int]] = {agent.external_id: set() for agent in self.agents}
        winners: set[str] = set()
        previous = None
        closes, podium = [], []
        by_id = {agent.external_id: agent for agent in self.agents}
        for place in self.config.places:
            self.api.open_auction(self.event_id, place)
            for agent in self.agents:
                if agent.external_id in winners:
                    continue
                unused = self._unused(agent, used)
                choice = choose_bid(agent.bidding, unused, place, previous)
                if choice is not None:
                    self.api.bid(
                        self.event_id, place, agent.external_id, choice.id, agent.access_token
                    )
                    used[agent.external_id].add(choice.id)
            closed = self.api.close_auction(self.event_id, place)
            self.api.reveal_all(self.event_id, place)  # a close decides, a reveal publishes
            for _ in range(10):  # tie-break rounds (RULES.md I-9): the auction stays open
                if closed.get("status") != "open":
                    break
                for external_id in self._tied(closed):
                    choice = tie_break_bid(self._unused(by_id[external_id], used))
                    if choice is not None:
                        token = by_id[external_id].access_token
                        self.api.bid(self.event_id, place, external_id, choice.id, token)
                        used[external_id].add(choice.id)
                closed = self.api.close_auction(self.event_id, place)
                self.api.reveal_all(self.event_id, place)
            closes.append(closed)
            winner = closed.get("winner")
            row = {"place": place, "winner": winner, "name": None, "cards": None, "category": None}
            if winner is not None:
                winners.add(winner)
                row["name"] = by_id[winner].name
                own_bids = [b for b in closed.get("bids", []) if b["participant"] == winner]
                if own_bids:  # the winner's bid of the deciding (last) round
                    bid = max(own_bids, key=lambda b: b.get("round", 1))
                    row["cards"] = bid["combination"]["cards"]
                    row["category"] = bid["combination"]["category"]
                if row["cards"]:
                    previous = strength(row["cards"])
            podium.append(row)
        self._try_status("finished")
        return closes, podium

    def _unused(self, agent: Agent, used: dict[str, set[int]]) -> list[OwnCombination]:
        state = self.phone_state(agent)
        return [
            OwnCombination(int(c["id"]), tuple(c["cards"]))
            for c in state["combinations"]
            if int(c["id"]) not in used[agent.external_id]
        ]

    @staticmethod
    def _tied(closed: dict[str, Any]) -> list[str]:
        return sorted(
            {bid["participant"] for bid in closed.get("bids", []) if bid.get("rank") == 1}
        )

    # --- the whole run ------------------------------------------------------------------

    def run(self) -> SimulationResult:
        """Setup, the night, the ceremony; then read every participant's final state."""
        self.setup()
        self.play()
        closes, podium = self.ceremony()
        states = {
            agent.external_id: self.api.state(self.event_id, agent.external_id)
            for agent in self.agents
        }
        participants = [
            {
                "external_id": agent.external_id,
                "name": agent.name,
                "strategy": agent.strategy.name,
                "bidding": agent.bidding,
                "uses_hints": agent.uses_hints,
                "access_token": agent.access_token,
            }
            for agent in self.agents
        ]
        return SimulationResult(
            event_id=self.event_id,
            participants=participants,
            states=states,
            auctions=closes,
            deliveries=self.deliveries,
            podium=podium,
        )


def category_order() -> list[str]:
    """Categories highest first (seed order), for reports."""
    return list(CATEGORIES)
