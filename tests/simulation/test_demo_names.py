"""The simulated participants of the demo have names of one gender (no "Egor Orlova")."""

from __future__ import annotations

import random

import pytest

from app.simulation.history import FEMALE_FIRST, MALE_FIRST, SURNAMES, simulated_name


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_first_name_and_surname_agree_in_gender(lang: str):
    rng = random.Random(5)
    male_surnames = {male for male, _ in SURNAMES[lang]}
    female_surnames = {female for _, female in SURNAMES[lang]}
    seen = set()
    for _ in range(300):
        first, surname = simulated_name(rng, lang).split(" ")
        if first in FEMALE_FIRST[lang]:
            assert surname in female_surnames, (first, surname)
            seen.add("f")
        else:
            assert first in MALE_FIRST[lang] and surname in male_surnames, (first, surname)
            seen.add("m")
    assert seen == {"f", "m"}


def test_russian_names_are_written_in_russian():
    name = simulated_name(random.Random(1), "ru")
    assert all("а" <= ch.lower() <= "я" or ch in "ё " for ch in name), name


def test_simulated_participants_read_the_russian_demo_hints():
    from app.simulation.course import possible_cards

    assert possible_cards("Валун; красная масть") == {
        c for c in possible_cards("") if c[-1:] in ("H", "D") and not c.startswith("JK")
    }
    assert len(possible_cards("Яма; картинка (валет, дама или король)")) == 12
    assert len(possible_cards("Яма; не картинка")) == 54 - 12
