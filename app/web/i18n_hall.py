"""The hall screen's messages (Russian, English), merged into `app.web.i18n.MESSAGES`.

Kept apart so the hall screen's words are in one place (issue 29 item 2)."""

from __future__ import annotations

HALL_MESSAGES: dict[str, tuple[str, str]] = {
    "hall.title": ("Экран зала", "Hall screen"),
    "hall.closes_in": ("До закрытия дистанции", "Time to the close"),
    "hall.opens_in": ("До открытия дистанции", "Time to the opening"),
    "hall.closed": ("Дистанция закрыта", "The course is closed"),
    "hall.closes_at": ("закрытие {when}", "closes {when}"),
    "hall.on_course": ("На дистанции", "Out on the course"),
    "hall.finished": ("Финишировали", "Finished"),
    "hall.participants": ("Участников", "Participants"),
    "hall.combinations": ("Сохранено комбинаций", "Combinations saved"),
    "hall.takes_chart": ("Взятия за 10 минут", "Takes per 10 minutes"),
    "hall.chart_label": (
        "Взятия за 10 минут, последние два часа",
        "Takes per 10 minutes, the last two hours",
    ),
    "hall.no_takes_yet": ("Взятий пока нет", "No takes yet"),
    "hall.cps": ("КП по числу взятий", "CPs by how often they were taken"),
    "hall.cp": ("КП {number}", "CP {number}"),
    "hall.taken": ("взяли: {count}", "taken: {count}"),
    "hall.no_cps": ("КП ещё не заданы", "No CPs yet"),
    "hall.ceremony": ("Церемония", "Ceremony"),
    "hall.place": ("{place} место", "Place {place}"),
    "hall.step.pending": ("ещё не открыт", "not opened yet"),
    "hall.step.open": ("идёт приём заявок", "taking sealed bids"),
    "hall.step.revealing": (
        "закрыт, вскрывается: шагов {count}",
        "closed, being revealed: {count} steps",
    ),
    "hall.step.closed": ("разыгран", "decided"),
    "hall.podium": ("Пьедестал", "Podium"),
    "hall.podium_empty": ("Результаты появятся после вскрытия", "Results appear once revealed"),
    "hall.live_lost": (
        "Нет связи с сервером: данные обновляются реже",
        "No live connection: updates are slower",
    ),
    "hall.not_public": ("Экран зала закрыт", "The hall screen is not public"),
    "hall.not_public_lead": (
        "Организатор не открыл экран зала этого мероприятия для всех. Войдите как "
        "организатор или попросите организатора включить «Экран зала доступен всем» в "
        "настройках мероприятия.",
        "The organiser has not made this event's hall screen public. Sign in as the "
        "organiser, or ask the organiser to tick “Hall screen open to everyone” in the "
        "event's settings.",
    ),
    "hall.setting": ("Экран зала", "Hall screen"),
    "hall.public_label": ("Экран зала доступен всем", "Hall screen open to everyone"),
    "hall.public_help": (
        "Без галочки экран {url} видит только организатор. На экране нет ни карт, ни "
        "кодов, ни заявок до вскрытия.",
        "Unticked, only the organiser sees {url}. The screen shows no card, no code and "
        "no bid before its reveal.",
    ),
    "hall.open_link": ("Открыть экран зала", "Open the hall screen"),
    "admin.done.hall_saved": ("Настройка экрана зала сохранена", "Hall screen setting saved"),
}
