"""Pages of the table games: poker dice (a shared score sheet) and Locus Poker (a grid).

Both are hot-seat pages for one device: the page creates the game through the games
API (`POST /api/v1/games`), keeps the returned player tokens in the browser
(localStorage) and sends each action with the token of the seat to act
(`POST /api/v1/games/{id}/actions`). The server renders only the shell; a small
script (`/static/dice.js`, `/static/locus.js`) draws the state it reads from
`GET /api/v1/games/{id}`. Without the tokens (another device) the page shows the
public view read-only.

- `GET /games/poker-dice` new game; `GET /games/poker-dice/{game_id}` the sheet;
- `GET /games/locus-poker` new game; `GET /games/locus-poker/{game_id}` the grid.

A token link `/g/{token}` of one of these games (`app.web.tables.liars_table`) redirects to
`page_link(...)`: the page with the token in the fragment `#p=...`, which the
script stores on the device and removes from the address bar.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request, Response

from app.core.types import PathId
from app.games.locus_poker import GRID_SIZES
from app.games.poker_dice import COLUMNS
from app.web import i18n
from app.web.common import render

router = APIRouter(include_in_schema=False)

# key -> (Russian, English); merged into the shared catalogue without overriding it.
MESSAGES: dict[str, tuple[str, str]] = {
    "games.players": ("Игроки", "Players"),
    "games.player_n": ("Игрок {n}", "Player {n}"),
    "games.start": ("Начать игру", "Start the game"),
    "games.options": ("Настройки", "Options"),
    "games.no_tokens": (
        "Это окно только показывает игру: ходить можно с устройства, на котором её начали.",
        "This window only shows the game: moves are made on the device that started it.",
    ),
    "games.loading": ("Загрузка…", "Loading…"),
    "games.over": ("Игра окончена", "Game over"),
    "games.place": ("Место", "Place"),
    "games.total": ("Итог", "Total"),
    "games.new": ("Новая игра", "New game"),
    "games.to_move": ("Ходит: {name}", "To move: {name}"),
    "games.winner": ("Победитель: {name}", "Winner: {name}"),
    "games.draw": ("Ничья", "Draw"),
    "games.error": ("Ошибка", "Error"),
    "link.not_found": ("Ссылка не найдена", "Link not found"),
    "link.not_found_lead": (
        "Такой ссылки на игру нет. Проверьте, что она скопирована целиком.",
        "There is no game with this link. Check that it was copied in full.",
    ),
    # poker dice
    "dice.title": ("Покер в кости", "Poker dice"),
    "dice.lead": (
        "Общая таблица для одного стола: телефон передаётся по кругу. Пять костей, до трёх "
        "бросков за ход, 17 граф.",
        "One shared score sheet for a table: pass the phone round. Five dice, up to three "
        "rolls a turn, 17 columns.",
    ),
    "dice.names_help": (
        "По одному имени в строке, в порядке рассадки.",
        "One name a line, in seating order.",
    ),
    "dice.mode": ("Кости", "Dice"),
    "dice.mode.digital": ("Бросает сервис", "The service rolls"),
    "dice.mode.physical": (
        "Настоящие кости: вводим выпавшие значения",
        "Real dice: enter the values",
    ),
    "dice.excess": ("Больше трёх костей в первой серии", "More than three dice in series 1"),
    "dice.excess.seed": ("+3 × номинал (как в правилах)", "+3 × face (as the rules say)"),
    "dice.excess.per_extra_die": ("+ номинал за каждую лишнюю кость", "+ face per extra die"),
    "dice.roll_off": ("Жребий: кто начинает", "Roll-off: who starts"),
    "dice.roll_off_help": (
        "Каждый бросает пять костей; начинает сумма побольше, при равенстве перебрасывают.",
        "Everyone rolls five dice; the highest total starts, a tie rolls again.",
    ),
    "dice.roll": ("Бросить", "Roll"),
    "dice.roll_n": ("Бросок {n} из 3", "Roll {n} of 3"),
    "dice.keep_help": (
        "Нажмите на кости, которые оставить, и бросьте остальные — или впишите результат в "
        "таблицу.",
        "Tap the dice to keep and roll the rest — or write the dice into the sheet.",
    ),
    "dice.enter_values": ("Выпавшие значения", "Values rolled"),
    "dice.kept": ("оставлена", "kept"),
    "dice.write": ("Вписать", "Write"),
    "dice.sheet": ("Таблица", "Score sheet"),
    "dice.starts": ("Начинает {name}", "{name} starts"),
    "dice.first_roll": ("с первого броска ×2", "first roll ×2"),
    "dice.col.ones": ("Единицы", "Ones"),
    "dice.col.twos": ("Двойки", "Twos"),
    "dice.col.threes": ("Тройки", "Threes"),
    "dice.col.fours": ("Четвёрки", "Fours"),
    "dice.col.fives": ("Пятёрки", "Fives"),
    "dice.col.sixes": ("Шестёрки", "Sixes"),
    "dice.col.subtotal": ("Промежуточный итог (+50 при ≥ 0)", "Subtotal (+50 when ≥ 0)"),
    "dice.col.pair": ("Пара", "Pair"),
    "dice.col.two_pairs": ("Две пары", "Two pairs"),
    "dice.col.three_of_a_kind": ("Тройка", "Three of a kind"),
    "dice.col.small_straight": ("Малый стрит 1–5", "Small straight 1–5"),
    "dice.col.large_straight": ("Большой стрит 2–6", "Large straight 2–6"),
    "dice.col.full_house": ("Фул", "Full house"),
    "dice.col.four_of_a_kind": ("Каре", "Four of a kind"),
    "dice.col.poker": ("Покер", "Poker"),
    "dice.col.chance": ("Шанс", "Chance"),
    "dice.col.total": ("Итог", "Total"),
    # Locus Poker
    "locus.title": ("Локус-покер", "Locus Poker"),
    "locus.lead": (
        "Двое за одним экраном или против компьютера. Ставьте фишку на карту открытой или "
        "закрытой (джокер на этот ход); очки — лучшая комбинация вокруг карты и бонус за "
        "соседние фишки.",
        "Two people on one screen or against the computer. Put a chip on a card face up or "
        "face down (a joker for this turn); you score the best combination around the card "
        "and a bonus for neighbouring chips.",
    ),
    "locus.size": ("Размер сетки (столбцы × строки)", "Grid size (columns × rows)"),
    "locus.opponent": ("Соперник", "Opponent"),
    "locus.opponent.human": ("Второй человек на этом устройстве", "A second person on this device"),
    "locus.opponent.greedy": ("Компьютер", "The computer"),
    "locus.computer": ("Компьютер", "Computer"),
    "locus.chips_left": ("фишек: {n}", "chips: {n}"),
    "locus.pick": ("Выберите карту.", "Pick a card."),
    "locus.face_up": ("Открыто: {score}", "Face up: {score}"),
    "locus.face_down": ("Закрыто (джокер): {score}", "Face down (joker): {score}"),
    "locus.turns": ("Ходы", "Turns"),
    "locus.hand": ("рука", "hand"),
    "locus.bonus": ("бонус", "bonus"),
    "locus.cat.nothing": ("ничего", "nothing"),
    "locus.cat.one_pair": ("пара", "pair"),
    "locus.cat.two_pair": ("две пары", "two pair"),
    "locus.cat.three_of_a_kind": ("тройка", "three of a kind"),
    "locus.cat.straight": ("стрит", "straight"),
    "locus.cat.flush": ("флеш", "flush"),
    "locus.cat.full_house": ("фул", "full house"),
    "locus.cat.four_of_a_kind": ("каре", "four of a kind"),
    "locus.cat.straight_flush": ("стрит-флеш", "straight flush"),
}
for _key, _pair in MESSAGES.items():
    i18n.MESSAGES.setdefault(_key, _pair)

# module -> the path of its page (the game id appended); the pages `/g/{token}` hands over to.
PAGES: dict[str, str] = {"poker-dice": "/games/poker-dice/", "locus-poker": "/games/locus-poker/"}

DICE_JS_KEYS = [k for k in MESSAGES if k.startswith(("games.", "dice."))]
LOCUS_JS_KEYS = [k for k in MESSAGES if k.startswith(("games.", "locus."))]


def page_link(module: str, game_id: int, token: str, seat: int | None) -> str | None:
    """The page of game `game_id` opened with `token`, or None when `module` has no page here.

    The token travels in the fragment as `/static/table_games.js` reads it:
    `#p=<table token>,<seat 0 token>,<seat 1 token>,...` (empty parts allowed). A table
    token (`seat` None) fills the first part; a player token of `seat` stands at its seat
    with the other parts empty. The fragment never reaches a server or its logs.
    """
    path = PAGES.get(module)
    if path is None:
        return None
    parts = [token] if seat is None else [""] * (seat + 1) + [token]
    return f"{path}{game_id}#p={quote(','.join(parts), safe=',')}"


def _strings(request: Request, keys: list[str]) -> dict[str, str]:
    lang = i18n.negotiate(request)
    return {key: i18n.translate(lang, key) for key in keys}


@router.get("/games/poker-dice")
def dice_new(request: Request) -> Response:
    """The form that starts a poker dice game for a table."""
    return render(request, "tables/dice_new.html", {"strings": _strings(request, DICE_JS_KEYS)})


@router.get("/games/poker-dice/{game_id}")
def dice_sheet(game_id: PathId, request: Request) -> Response:
    """The shared score sheet of poker dice game `game_id` (drawn by /static/dice.js)."""
    return render(
        request,
        "tables/dice_sheet.html",
        {
            "game_id": game_id,
            "columns": list(COLUMNS),
            "strings": _strings(request, DICE_JS_KEYS),
        },
    )


@router.get("/games/locus-poker")
def locus_new(request: Request) -> Response:
    """The form that starts a Locus Poker game (two people or one against the computer)."""
    return render(
        request,
        "tables/locus_new.html",
        {"sizes": list(GRID_SIZES), "strings": _strings(request, LOCUS_JS_KEYS)},
    )


@router.get("/games/locus-poker/{game_id}")
def locus_grid(game_id: PathId, request: Request) -> Response:
    """The grid of Locus Poker game `game_id` (drawn by /static/locus.js)."""
    return render(
        request,
        "tables/locus_grid.html",
        {"game_id": game_id, "strings": _strings(request, LOCUS_JS_KEYS)},
    )
