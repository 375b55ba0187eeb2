"""Pure helpers of the simulation runner."""

import random
import string
from datetime import UTC, datetime

from app.events.codes import normalize_code
from app.simulation.runner import Simulation, SimulationConfig, local_iso


def test_a_mistyped_code_differs_in_one_character_and_matches_no_code() -> None:
    simulation = Simulation(api=None, config=SimulationConfig())  # type: ignore[arg-type]
    # every one-character variant of "AB" in the first position is a code of the event
    simulation.known_codes = {normalize_code(c + "B") for c in string.ascii_uppercase}
    simulation.known_codes |= {normalize_code(c + "B") for c in "0123456789"}
    rng = random.Random(1)
    for _ in range(50):
        typo = simulation.mistype("AB", rng)
        assert typo[0] == "A" and typo[1] != "B"  # only the second character can change
        assert normalize_code(typo) not in simulation.known_codes


def test_field_time_is_sent_in_local_time_with_its_offset() -> None:
    assert local_iso(datetime(2026, 6, 13, 9, 0, 5, tzinfo=UTC)) == "2026-06-13T12:00:05+03:00"
