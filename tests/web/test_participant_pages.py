"""Participant pages through TestClient: takes, confirmations, PRG, secrecy (no browser)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.events.codes import grouped, typed_form
from app.feed.models import Take
from app.web.templating import display_card
from tests.factories import DECK, discard_code, event_cp_code, make_event, make_participant
from tests.web.test_signin import csrf_of


def signed_in(client: TestClient, token: str) -> None:
    assert client.get(f"/p/{token}", follow_redirects=False).status_code == 303


def takes_of(session: Session, participant_id: int) -> int:
    # A connection of its own, closed at once: the test session must not hold a
    # transaction (on SQLite every transaction takes the write lock).
    with session.get_bind().connect() as connection:
        return connection.scalar(
            select(func.count()).select_from(Take).where(Take.participant_id == participant_id)
        )


def shown_cards(html: str, held: set[str]) -> set[str]:
    """Display forms of cards NOT in `held` that appear in the page text."""
    text = re.sub(r"<[^>]+>", " ", html)
    held_display = {display_card(c) for c in held}
    return {
        display_card(c)
        for c in DECK
        if display_card(c) not in held_display and display_card(c) in text
    }


def setup(session: Session):
    event = make_event(session)
    anna = make_participant(session, event, "21", name="Анна")
    boris = make_participant(session, event, "22", name="Борис")
    session.commit()
    return event, anna, boris


def test_a_cp_page_without_cookie_records_nothing_and_explains(
    client: TestClient, session: Session
):
    event, anna, _ = setup(session)
    response = client.get(f"/t/{event_cp_code(event, 'QH')}")
    assert response.status_code == 200
    assert "ещё раз" in response.text  # "scan this CP again after signing in"
    assert takes_of(session, anna.id) == 0


def test_a_cp_page_records_the_take_once_and_redirects_to_its_result(
    client: TestClient, session: Session
):
    event, anna, _ = setup(session)
    signed_in(client, anna.access_token)

    response = client.get(f"/t/{event_cp_code(event, 'QH')}", follow_redirects=False)

    assert response.status_code == 303
    result_url = response.headers["location"]
    assert re.fullmatch(r"/me/takes/\d+", result_url)
    page = client.get(result_url)
    assert "Q♥" in page.text and "DQH" in page.text  # the card and its discard code
    assert "Сдача 1, раунд 1" in page.text
    assert "нужно ещё 4" in page.text  # 1 of 5 cards: keep collecting
    client.get(result_url)  # a reload of the result
    assert takes_of(session, anna.id) == 1


def test_decision_then_discard_with_confirmation_then_must_save(
    client: TestClient, session: Session
):
    event, anna, _ = setup(session)
    signed_in(client, anna.access_token)
    for card in ("2S", "3S", "4S", "5S", "7H"):
        client.get(f"/t/{event_cp_code(event, card)}")
    assert "Решите" in client.get("/me").text  # 5 cards, two discards left: decide

    token = csrf_of(client.get("/me").text)
    confirm = client.post("/me/code", data={"code": "d7h", "csrf_token": token})
    assert confirm.status_code == 200
    assert "Сбросить карту 7♥?" in confirm.text
    assert takes_of(session, anna.id) == 5  # checking a code records nothing

    source_id = re.search(r'name="source_id" value="([^"]+)"', confirm.text).group(1)
    form = {"code": "d7h", "csrf_token": token, "source_id": source_id}
    response = client.post("/me/code/confirm", data=form, follow_redirects=False)
    assert response.status_code == 303
    assert "Карта сброшена: 7♥" in client.get(response.headers["location"]).text
    # The same confirmation submitted again (a resubmitted form) is one delivery.
    again = client.post("/me/code/confirm", data=form, follow_redirects=False)
    assert again.headers["location"] == response.headers["location"]
    assert takes_of(session, anna.id) == 6
    # One discard made, no card taken since: the step is open (more discard codes may
    # follow, RULES.md §1.2 rule 4), not yet "draw".
    assert "Идёт сброс" in client.get("/me").text

    # Round 2: draw one, discard again (round 3), draw one: now the hand must be saved.
    client.get(f"/t/{event_cp_code(event, '6S')}")
    assert "Решите" in client.get("/me").text  # 5 cards again, one discard step left
    for code in ("D6S",):
        page = client.post("/me/code", data={"code": code, "csrf_token": token})
        sid = re.search(r'name="source_id" value="([^"]+)"', page.text).group(1)
        client.post("/me/code/confirm", data={"code": code, "csrf_token": token, "source_id": sid})
    client.get(f"/t/{event_cp_code(event, '8D')}")
    page = client.get("/me")
    assert "Сдача 1, раунд 3" in page.text
    assert "Сбросов больше нет" in page.text  # must save now (RULES.md §1.2 rule 4)


def test_a_code_the_rules_would_refuse_is_explained_not_offered_for_confirmation(
    client: TestClient, session: Session
):
    """RULES.md §1.2 rules 4 and 6, I-2: a discard or a save needs 5 cards in hand, a save
    code counts once. The confirmation says so at once and offers no button."""
    event, anna, _ = setup(session)
    signed_in(client, anna.access_token)
    for card in ("2S", "3S"):
        client.get(f"/t/{event_cp_code(event, card)}")
    token = csrf_of(client.get("/me").text)
    not_full = "Сбросить или сохранить можно только когда в руке 5 карт."
    for code in ("d3s", anna.save_codes[0]):  # 2 cards in hand: neither may be used yet
        page = client.post("/me/code", data={"code": code, "csrf_token": token})
        assert page.status_code == 200 and not_full in page.text
        assert "/me/code/confirm" not in page.text and "Код не записан" in page.text
    assert "Сбросить карту 3♠?" not in page.text
    assert takes_of(session, anna.id) == 2

    for card in ("4S", "5S", "7H"):  # 5 cards: the save counts
        client.get(f"/t/{event_cp_code(event, card)}")
    page = client.post("/me/code", data={"code": anna.save_codes[0], "csrf_token": token})
    assert "/me/code/confirm" in page.text and not_full not in page.text
    sid = re.search(r'name="source_id" value="([^"]+)"', page.text).group(1)
    form = {"code": anna.save_codes[0], "csrf_token": token, "source_id": sid}
    client.post("/me/code/confirm", data=form)
    for card in ("2H", "3H", "4H", "5H", "7D"):  # deal 2, full again
        client.get(f"/t/{event_cp_code(event, card)}")
    page = client.post("/me/code", data={"code": anna.save_codes[0], "csrf_token": token})
    assert "Этот код сохранения уже использован." in page.text
    assert "/me/code/confirm" not in page.text
    assert takes_of(session, anna.id) == 11


def test_save_code_confirmation_saves_the_hand(client: TestClient, session: Session):
    event, anna, _ = setup(session)
    signed_in(client, anna.access_token)
    for card in ("AH", "KH", "QH", "JH", "TH"):
        client.get(f"/t/{event_cp_code(event, card)}")
    token = csrf_of(client.get("/me").text)
    code = anna.save_codes[3].lower()
    confirm = client.post("/me/code", data={"code": code, "csrf_token": token})
    assert "Сохранить руку как комбинацию?" in confirm.text
    sid = re.search(r'name="source_id" value="([^"]+)"', confirm.text).group(1)
    response = client.post(
        "/me/code/confirm", data={"code": code, "csrf_token": token, "source_id": sid}
    )
    assert "Комбинация сохранена" in response.text
    assert "флеш-рояль" in response.text  # A K Q J 10 of hearts: royal flush
    assert "Сдача 2, раунд 1" in response.text


def test_code_forms_need_the_csrf_token(client: TestClient, session: Session):
    event, anna, _ = setup(session)
    signed_in(client, anna.access_token)
    for card in ("2S", "3S", "4S", "5S", "7H"):
        client.get(f"/t/{event_cp_code(event, card)}")
    form = {"code": "D7H", "csrf_token": "forged", "source_id": "page-x"}
    response = client.post("/me/code/confirm", data=form, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/me"
    assert takes_of(session, anna.id) == 5


def test_why_a_take_did_not_count_in_plain_words(client: TestClient, session: Session):
    event, anna, _ = setup(session)
    signed_in(client, anna.access_token)
    client.get(f"/t/{event_cp_code(event, 'QH')}")
    page = client.get(f"/t/{event_cp_code(event, 'QH')}")
    assert "Взятие не засчитано" in page.text
    assert "Вы уже брали этот КП" in page.text  # duplicate (RULES.md §1.2 rule 2)
    page = client.get("/t/NO-SUCH-CODE")
    assert "Такой код не найден" in page.text  # unknown_code (rule 9)


def test_no_card_of_an_untaken_cp_on_any_participant_page(client: TestClient, session: Session):
    event, anna, boris = setup(session)
    signed_in(client, anna.access_token)
    held = {"2S", "3S", "4S", "5S", "7H"}
    for card in sorted(held):
        client.get(f"/t/{event_cp_code(event, card)}")
    pages = []
    # A 6th card while the hand is full: hand_full, the CP is not consumed (I-1).
    full = client.get(f"/t/{event_cp_code(event, 'KH')}", follow_redirects=False)
    pages.append(client.get(full.headers["location"]).text)
    assert "В руке уже 5 карт" in pages[-1]
    token = csrf_of(client.get("/me").text)
    # A discard code of a card that was never taken (card_not_in_hand).
    confirm = client.post("/me/code", data={"code": discard_code("AS"), "csrf_token": token})
    pages.append(confirm.text)
    sid = re.search(r'name="source_id" value="([^"]+)"', confirm.text).group(1)
    result = client.post(
        "/me/code/confirm",
        data={"code": discard_code("AS"), "csrf_token": token, "source_id": sid},
    )
    pages.append(result.text)
    pages += [client.get("/me").text, client.get("/me/ceremony").text]
    # Boris's take is not Anna's to see.
    client.cookies.clear()
    signed_in(client, boris.access_token)
    boris_take = client.get(f"/t/{event_cp_code(event, 'AD')}", follow_redirects=False)
    client.cookies.clear()
    signed_in(client, anna.access_token)
    other = client.get(boris_take.headers["location"])
    assert other.status_code == 404
    pages.append(other.text)
    for html in pages:
        assert shown_cards(html, held) == set()


def test_pages_are_not_cached_and_english_works(client: TestClient, session: Session):
    event, anna, _ = setup(session)
    signed_in(client, anna.access_token)
    response = client.get("/me")
    assert response.headers["cache-control"] == "private, no-cache"
    client.get("/lang/en?next=/me")
    page = client.get(f"/t/{event_cp_code(event, 'QH')}")
    assert "The take counted" in page.text
    assert '<html lang="en">' in page.text


def test_code_guessing_is_refused_in_plain_words(client: TestClient, session: Session, settings):
    _, anna, _ = setup(session)
    signed_in(client, anna.access_token)
    limit = settings.scan_unknown_codes_per_minute
    for i in range(limit):
        assert client.get(f"/t/GUESS{i}", follow_redirects=False).status_code == 303
    refused = client.get("/t/GUESS-MORE")
    assert refused.status_code == 429
    assert "Слишком много неверных кодов" in refused.text
    assert takes_of(session, anna.id) == limit


def test_a_discard_or_save_code_opened_as_t_url_asks_for_confirmation_first(
    client: TestClient, session: Session
):
    event, anna, _ = setup(session)
    signed_in(client, anna.access_token)
    for card in ("2S", "3S", "4S", "5S", "7H"):
        client.get(f"/t/{event_cp_code(event, card)}")
    assert takes_of(session, anna.id) == 5

    page = client.get(f"/t/{discard_code('7H')}", follow_redirects=False)
    assert page.status_code == 200  # a confirmation page, not a redirect to a result
    assert "Сбросить карту 7♥?" in page.text
    assert "код сброса этой карты" in page.text
    assert takes_of(session, anna.id) == 5  # nothing recorded yet
    save = client.get(f"/t/{anna.save_codes[0]}", follow_redirects=False)
    assert save.status_code == 200
    assert "Сохранить руку как комбинацию?" in save.text
    assert takes_of(session, anna.id) == 5

    # Confirming the /t/ page records the discard once.
    token = csrf_of(page.text)
    sid = re.search(r'name="source_id" value="([^"]+)"', page.text).group(1)
    code = re.search(r'name="code" value="([^"]+)"', page.text).group(1)
    done = client.post(
        "/me/code/confirm", data={"code": code, "csrf_token": token, "source_id": sid}
    )
    assert "Карта сброшена: 7♥" in done.text
    assert takes_of(session, anna.id) == 6


def test_the_confirmation_says_plainly_that_a_code_is_not_one_of_yours(
    client: TestClient, session: Session
):
    event, anna, boris = setup(session)
    signed_in(client, anna.access_token)
    client.get(f"/t/{event_cp_code(event, '2S')}")
    token = csrf_of(client.get("/me").text)
    for code in ("xxx-xxx", boris.save_codes[0], event_cp_code(event, "AS"), discard_code("AS")):
        page = client.post("/me/code", data={"code": code, "csrf_token": token})
        # Unknown, another participant's save code, a CP code and the discard code of a
        # card not held all read the same: no oracle for codes that are not Anna's.
        assert "не код сброса карты из вашей руки и не ваш код сохранения" in page.text
        assert "Сохранить руку" not in page.text and "Сбросить карту" not in page.text
    page = client.post("/me/code", data={"code": "xxx-xxx", "csrf_token": token})
    assert "Код XXXXXX — не код" in page.text  # the normalised code
    # A code with a generated CP code's shape (typed form, 18 characters; or 24 of
    # base32) is offered as a take by its shape alone: an existing CP's typed code and
    # a made-up one of the same shape read the same.
    typed = typed_form(event_cp_code(event, "KD"))
    shaped = {
        "KD typed": grouped(typed).lower().replace(" ", "-"),
        "made up": "ACE-FHJ-KMN-PRT-UWX-Y00",
        "24 base32": "ABCDEFGHIJKLMNOPQRSTUVWX",
    }
    for name, code in shaped.items():
        page = client.post("/me/code", data={"code": code, "csrf_token": token})
        assert "набран как код КП. Записать взятие?" in page.text, name
        assert "не код сброса" not in page.text, name
    assert takes_of(session, anna.id) == 1  # previews record nothing


def test_combination_description_in_the_page_language(client: TestClient, session: Session):
    """The seed's worked example (RULES.md §1.2): Q♥ Q♦ Q♣ A♠ + joker saved is
    four of a kind, queens, with the ace as kicker."""
    event, anna, _ = setup(session)
    signed_in(client, anna.access_token)
    for card in ("QH", "QD", "QC", "AS", "JK1"):
        client.get(f"/t/{event_cp_code(event, card)}")
    token = csrf_of(client.get("/me").text)
    code = anna.save_codes[0]
    confirm = client.post("/me/code", data={"code": code, "csrf_token": token})
    sid = re.search(r'name="source_id" value="([^"]+)"', confirm.text).group(1)
    client.post("/me/code/confirm", data={"code": code, "csrf_token": token, "source_id": sid})
    assert "каре дам, кикер туз" in client.get("/me").text
    client.cookies.set("lang", "en")
    assert "four of a kind, queens, ace kicker" in client.get("/me").text
