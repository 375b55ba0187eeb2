"""The pages' message catalogue: Russian by default, English on request (cookie `lang`).

A small dictionary is enough for a few dozen pages; `translate(lang, key, **values)`
formats a message with `str.format`. A key missing from the catalogue is shown as is,
so a forgotten message is visible on the page instead of breaking it.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import Request

LANGUAGES = ("ru", "en")
DEFAULT_LANGUAGE = "ru"
LANG_COOKIE = "lang"

# key -> (Russian, English)
MESSAGES: dict[str, tuple[str, str]] = {
    # layout
    "app.title": ("Рогейн-покер", "Rogaine Poker"),
    "lang.switch": ("EN", "RU"),
    "lang.switch.label": ("Switch to English", "Переключить на русский"),
    "nav.my_game": ("Моя игра", "My game"),
    "nav.ceremony": ("Церемония", "Ceremony"),
    "common.back": ("Назад", "Back"),
    "page.not_found": ("Страница не найдена", "Page not found"),
    "page.not_found_lead": (
        "Такой страницы нет. Проверьте адрес или начните с главной.",
        "There is no such page. Check the address or start from the home page.",
    ),
    "page.home": ("На главную", "Home page"),
    "common.cancel": ("Отмена", "Cancel"),
    "common.yes": ("да", "yes"),
    "common.no": ("нет", "no"),
    "common.none": ("нет", "none"),
    "common.error": ("Ошибка", "Error"),
    "common.save": ("Сохранить", "Save"),
    # participant: sign in
    "signin.title": ("Как войти", "How to sign in"),
    "landing.participant": (
        "Участник: отсканируйте свой личный QR-код",
        "Participant: scan your personal QR code",
    ),
    "landing.organiser": ("Организатор", "Organiser"),
    "landing.organiser_signin": ("Вход для организатора", "Organiser sign-in"),
    "signin.lead": (
        "Откройте свою личную ссылку: она напечатана QR-кодом на вашей карточке участника "
        "и пришла от организаторов. Телефон запомнит вас, и дальше достаточно сканировать "
        "QR-коды на КП камерой.",
        "Open your personal link: it is printed as a QR code on your participant card and "
        "was sent to you by the organisers. The phone remembers you; after that, just scan "
        "the QR codes at the CPs with the camera.",
    ),
    "signin.scan_again": (
        "После входа отсканируйте этот КП ещё раз — взятие не записано.",
        "After signing in, scan this CP again — the take was not recorded.",
    ),
    "throttled.title": ("Слишком много неудачных попыток", "Too many failed attempts"),
    "throttled.lead": (
        "С этого адреса пришло слишком много неверных ссылок или токенов. "
        "Попробуйте снова через {seconds} с.",
        "Too many wrong links or tokens came from this address. Try again in {seconds} s.",
    ),
    "signin.bad_link": (
        "Эта личная ссылка не работает. Проверьте ссылку или спросите организаторов.",
        "This personal link does not work. Check the link or ask the organisers.",
    ),
    "signin.cookies": (
        "Для входа браузер должен принимать cookies.",
        "Your browser must accept cookies to sign in.",
    ),
    "signout": ("Выйти", "Sign out"),
    # participant: my game
    "game.title": ("Моя игра", "My game"),
    "game.hello": ("Участник: {name}", "Participant: {name}"),
    "game.deal_round": ("Сдача {deal}, раунд {round}", "Deal {deal}, round {round}"),
    "game.hand": ("Рука ({count} из 5)", "Hand ({count} of 5)"),
    "game.hand_empty": ("В руке пока нет карт.", "No cards in hand yet."),
    "game.discard_code": ("код сброса", "discard code"),
    "game.enter_code": ("Ввести код", "Enter a code"),
    "game.code_label": ("Код", "Code"),
    "game.code_help": (
        "Код сброса карты, ваш код сохранения или код КП, напечатанный под QR-кодом "
        "(регистр, пробелы и дефисы не важны). Перед записью мы попросим подтверждение.",
        "A card's discard code, one of your save codes, or a CP's code printed under its QR "
        "(case, spaces and dashes do not matter). We will ask you to confirm first.",
    ),
    "game.check_code": ("Проверить код", "Check the code"),
    "game.takes": ("Мои взятия", "My takes"),
    "game.combinations": ("Мои комбинации", "My combinations"),
    "game.no_combinations": ("Сохранённых комбинаций пока нет.", "No saved combinations yet."),
    "game.save_codes_left": (
        "Неиспользованных кодов сохранения: {count}",
        "Unused save codes: {count}",
    ),
    "game.course": ("Дистанция: {opens} — {closes}", "Course: {opens} — {closes}"),
    "game.course_before": (
        "Дистанция ещё не открыта: взятия до открытия не засчитываются.",
        "The course is not open yet: takes before the opening do not count.",
    ),
    "game.course_closed": ("Дистанция закрыта.", "The course is closed."),
    "game.course_closed_codes": (
        "Коды больше не принимаются: взятия после закрытия не засчитываются.",
        "Codes are no longer taken: takes after the close do not count.",
    ),
    "game.value": ("Значение руки: {value}", "Hand value: {value}"),
    "game.discards_left": ("Сбросов осталось: {count} из 2", "Discards left: {count} of 2"),
    "theme.switch.label": (
        "Тема оформления: {theme}. Переключить",
        "Colour theme: {theme}. Switch",
    ),
    "theme.auto": ("как в системе", "as the system"),
    "theme.dark": ("тёмная", "dark"),
    "theme.light": ("светлая", "light"),
    "ceremony.copy": ("Копировать", "Copy"),
    "ceremony.copied": ("Скопировано", "Copied"),
    "game.ceremony_link": ("Церемония награждения", "Award ceremony"),
    "game.scan_hint": (
        "Сканируйте QR-код на КП кнопкой «Сканировать» (или камерой телефона): взятие "
        "запишется само. QR-код не читается — введите код, напечатанный под ним.",
        "Scan a CP's QR code with the Scan button (or the phone's camera): the take is "
        "recorded by itself. If the QR cannot be read, type the code printed under it.",
    ),
    "game.no_takes": ("Взятий пока нет.", "No takes yet."),
    "game.unsaved_after_close": (
        "Дистанция закрыта, а в руке {count} несохранённых карт: это не комбинация, в "
        "аукционе она не участвует (сохранять после закрытия нельзя).",
        "The course is closed with {count} unsaved cards in your hand: that is not a "
        "combination and cannot be bid (nothing can be saved after the close).",
    ),
    "game.msg.empty": ("Введите код.", "Enter a code."),
    "error.too_many_unknown_codes": (
        "Слишком много неверных кодов за минуту. Подождите минуту и попробуйте снова.",
        "Too many wrong codes in a minute. Wait a minute and try again.",
    ),
    # next step
    "next.collect": (
        "Собирайте карты: нужно ещё {count}.",
        "Keep collecting: {count} more card(s) needed.",
    ),
    "next.decide": (
        "В руке 5 карт. Решите: сбросить карты (введите их коды сброса) или сохранить руку "
        "(введите код сохранения).",
        "Your hand holds 5 cards. Decide: discard cards (enter their discard codes) or save "
        "the hand (enter a save code).",
    ),
    "next.must_save": (
        "Сбросов больше нет: сохраните эту руку кодом сохранения.",
        "No discards left: save this hand with a save code.",
    ),
    "next.discarding": (
        "Идёт сброс: можно ввести ещё коды сброса, затем возьмите новые карты.",
        "Discarding: you may enter more discard codes, then take new cards.",
    ),
    "next.draw": (
        "Берите новые карты: нужно ещё {count}.",
        "Draw new cards: {count} more card(s) needed.",
    ),
    "next.no_save_codes": (
        "Коды сохранения закончились.",
        "You have no save codes left.",
    ),
    # offline phone (app/static/offline/app.js)
    # deck and participant CSV errors (app.web.forms.ROW_MESSAGES)
    "rows.required": ("обязательное поле", "is required"),
    "rows.not_a_card": ("«{card}» — не карта колоды", "{card!r} is not a card of the deck"),
    "rows.cp_twice": ("КП {number} указан дважды", "CP {number} appears twice"),
    "rows.card_twice": ("{card} дважды в колоде", "{card} appears twice in the deck"),
    "rows.value_twice": ("«{value}» указан дважды", "{value!r} appears twice"),
    "rows.taken": ("«{value}» уже занят", "{value!r} is already taken"),
    "rows.code_twice": ("уже другой код этого события", "is already another code of this event"),
    "rows.code_elsewhere": (
        "уже используется в другом событии",
        "is already used by another event",
    ),
    "rows.code_short": (
        "не короче {minimum} букв или цифр (A–Z, 0–9)",
        "must be at least {minimum} letters or digits (A–Z, 0–9)",
    ),
    "rows.code_weak": (
        "слишком слабый код: около {bits} бит, нужно не меньше 80 (например, 16 случайных "
        "букв и цифр, не серия); оставьте пустым — код будет создан",
        "is too weak: about {bits} bits, at least 80 needed (e.g. 16 random letters and "
        "digits, not a series); leave it empty to have one generated",
    ),
    "rows.no_column": ("в заголовке нет столбца «{column}»", "the header has no column {column!r}"),
    "rows.no_checkpoints": ("в файле нет строк с КП", "the file has no checkpoint rows"),
    "rows.no_participants": ("в файле нет строк с участниками", "the file has no participant rows"),
    "rows.lat_lon": ("широта и долгота указываются вместе", "lat and lon must be given together"),
    "rows.number": ("целое число от 1 до {maximum}", "must be a whole number from 1 to {maximum}"),
    # the CPs' hints on the phone (issue 26 point 6)
    "hints.title": ("Подсказки и координаты КП", "CP hints and coordinates"),
    "hints.link": ("Подсказки и координаты КП", "CP hints and coordinates"),
    "hints.lead": (
        "Номера, координаты и подсказки всех КП (они известны всем до старта). Карт и кодов "
        "здесь нет. Страница работает и без сети.",
        "The numbers, coordinates and hints of every CP (known to all before the start). No "
        "cards and no codes here. The page also works without network.",
    ),
    "hints.number": ("КП", "CP"),
    "hints.coordinates": ("Координаты", "Coordinates"),
    "hints.hint": ("Подсказка", "Hint"),
    "hints.gpx": ("Скачать GPX (для навигатора)", "Download GPX (for a GPS device)"),
    "hints.none": ("Список КП пока пуст.", "No CPs yet."),
    "hints.not_ready": (
        "Подсказки ещё не сохранены на телефоне: откройте «Мою игру» один раз при связи.",
        "The hints are not on this phone yet: open My game once online.",
    ),
    # the in-app QR scanner (issue 26 point 1)
    "scan.button": ("Сканировать QR-код КП", "Scan a CP's QR code"),
    "scan.hint": ("Наведите камеру на QR-код КП.", "Point the camera at the CP's QR code."),
    "scan.torch": ("Фонарик", "Torch"),
    "scan.close": ("Закрыть", "Close"),
    # why the camera did not start (getUserMedia's error, never shown raw) and what to do
    "scan.error.no_camera": (
        "На этом устройстве нет камеры.",
        "This device has no camera.",
    ),
    "scan.error.denied": (
        "Доступ к камере запрещён. Чтобы сканировать, разрешите его: значок слева от адреса "
        "страницы → «Камера» → «Разрешить», затем снова нажмите «Сканировать».",
        "Camera access is blocked. To scan, allow it: the icon left of the page's address → "
        "Camera → Allow, then press Scan again.",
    ),
    "scan.error.busy": (
        "Камера занята другим приложением. Закройте его и снова нажмите «Сканировать».",
        "Another app is using the camera. Close it and press Scan again.",
    ),
    "scan.error.unsupported": (
        "Этот браузер не даёт странице доступа к камере. Можно сканировать QR-код камерой "
        "телефона.",
        "This browser gives the page no camera access. You can scan the QR code with the "
        "phone's camera app.",
    ),
    "scan.error.other": (
        "Камера не включилась.",
        "The camera did not start.",
    ),
    "scan.type_code": (
        "Введите код, напечатанный под QR-кодом КП, в поле ниже.",
        "Type the code printed under the CP's QR code in the field below.",
    ),
    "scan.type_code_game": (
        "Код, напечатанный под QR-кодом КП, можно ввести на странице «Моя игра».",
        "The code printed under the CP's QR code can be typed on the My game page.",
    ),
    "scan.not_cp": (
        "Это не QR-код КП. Наведите камеру на QR-код на табличке КП.",
        "This is not a CP's QR code. Point the camera at the QR code on the CP's tile.",
    ),
    "scan.in_app": (
        "Страница открыта во встроенном браузере другого приложения: без сети взятия здесь "
        "потеряются. Откройте её в Chrome или Safari (меню → «Открыть в браузере») и "
        "сканируйте КП кнопкой «Сканировать» там.",
        "This page is open in another app's built-in browser: without network, takes made "
        "here are lost. Open it in Chrome or Safari (menu → Open in browser) and scan CPs "
        "with the Scan button there.",
    ),
    "scan.standalone": (
        "Сканируйте КП кнопкой «Сканировать» в этом приложении, а не камерой телефона: "
        "камера открывает ссылки в браузере, где нет ваших данных для игры без сети.",
        "Scan CPs with the Scan button in this app, not with the phone's camera: the camera "
        "opens links in the browser, which does not hold your offline data.",
    ),
    "scan.standalone_not_ready": (
        "Это приложение на главном экране хранит данные отдельно от браузера, и игры без "
        "сети в нём ещё нет: при связи откройте в нём свою личную ссылку (QR-код на вашей "
        "карточке участника) и сканируйте КП кнопкой «Сканировать» здесь.",
        "This home-screen app keeps its data apart from the browser and cannot play "
        "offline yet: while online, open your personal link in it (the QR code on your "
        "participant card), then scan CPs with its Scan button.",
    ),
    "scan.no_offline": (
        "Этот браузер не умеет работать без сети: откройте страницу в Chrome или Safari.",
        "This browser cannot play offline: open this page in Chrome or Safari.",
    ),
    "offline.title": ("Без связи", "Offline"),
    "offline.loading": ("Загрузка…", "Loading…"),
    "offline.no_script": (
        "Без JavaScript офлайн-режим не работает.",
        "The offline mode needs JavaScript.",
    ),
    "offline.not_ready": (
        "Офлайн-режим ещё не готов на этом телефоне: один раз откройте свою личную ссылку, "
        "когда есть связь.",
        "The offline mode is not ready on this phone yet: open your personal link once while "
        "you have network.",
    ),
    "offline.ready": (
        "Офлайн-режим готов: на этом телефоне КП можно сканировать и без связи.",
        "Offline mode ready: this phone can scan CPs without network.",
    ),
    "offline.queued": ("Ждут отправки на сервер: {count}", "Waiting to be sent: {count}"),
    "offline.all_sent": ("Все взятия отправлены на сервер.", "Every take has been sent."),
    "offline.send_now": ("Отправить сейчас", "Send now"),
    "offline.sent": ("Отправлено: {count}.", "Sent: {count}."),
    "offline.send_failed": (
        "Нет связи с сервером: взятия сохранены на телефоне и уйдут сами, когда связь появится.",
        "No connection to the server: the takes are kept on this phone and will be sent by "
        "themselves once there is network.",
    ),
    "offline.on_device": (
        "Записано на телефоне; результат посчитан телефоном и будет подтверждён сервером.",
        "Recorded on this phone; the phone worked out the result, the server will confirm it.",
    ),
    "offline.signed_out": (
        "Сервер не узнал этот телефон: откройте свою личную ссылку ещё раз, взятия сохранены "
        "на телефоне и уйдут после этого.",
        "The server did not recognise this phone: open your personal link again; the takes "
        "are kept on the phone and will be sent after that.",
    ),
    "offline.pending": ("ждёт отправки", "waiting to be sent"),
    "offline.confirmed": ("Подтверждено сервером.", "Confirmed by the server."),
    "offline.changed": ("Сервер изменил результаты:", "The server changed these results:"),
    "offline.not_recorded": ("не записано:", "not recorded:"),
    # take result
    "take.title": ("Взятие", "Take"),
    "take.counted": ("Взятие засчитано", "The take counted"),
    "take.not_counted": ("Взятие не засчитано", "The take did not count"),
    "take.your_card": ("Ваша карта", "Your card"),
    "take.write_down": (
        "Запишите код сброса: {code}",
        "Write down the discard code: {code}",
    ),
    "take.discarded": ("Карта сброшена: {card}", "Card discarded: {card}"),
    "take.saved": ("Комбинация сохранена", "Combination saved"),
    "take.unknown_take": ("Такого взятия нет.", "There is no such take."),
    "take.cp": ("КП {number}", "CP {number}"),
    "take.to_game": ("К моей игре", "To my game"),
    # reasons in plain words (RULES.md §1.2)
    "reason.outside_course_hours": (
        "Дистанция сейчас закрыта: взятия засчитываются только пока она открыта.",
        "The course is not open now: takes count only while the course is open.",
    ),
    "reason.hand_full": (
        "В руке уже 5 карт, поэтому эта карта не взята. КП не израсходован: сначала сбросьте "
        "карты или сохраните руку, потом возвращайтесь сюда.",
        "Your hand already holds 5 cards, so this card was not taken. The CP is not used up: "
        "discard or save first, then come back here.",
    ),
    "reason.duplicate": (
        "Вы уже брали этот КП: каждый КП засчитывается один раз.",
        "You have already taken this CP: each CP counts once.",
    ),
    "reason.hand_not_full": (
        "Сбросить или сохранить можно только когда в руке 5 карт.",
        "You can discard or save only when your hand holds 5 cards.",
    ),
    "reason.no_discards_left": (
        "В этой сдаче сбросов больше нет: сохраните руку.",
        "No discards are left in this deal: save the hand.",
    ),
    "reason.card_not_in_hand": (
        "Этой карты нет у вас в руке.",
        "That card is not in your hand.",
    ),
    "reason.code_already_used": (
        "Этот код сохранения уже использован.",
        "This save code has already been used.",
    ),
    "reason.voided": (
        "Организаторы отменили это взятие.",
        "The organisers voided this take.",
    ),
    "reason.unknown_qr": (
        "Такой код не найден: этот QR-код — не код КП этого события. Сканируйте QR-код на "
        "табличке КП.",
        "No such code: this QR code is not a CP code of this event. Scan the QR code on the "
        "CP's tile.",
    ),
    "reason.unknown_code": (
        "Такой код не найден. Проверьте, что ввели его без ошибок.",
        "No such code. Check that you typed it correctly.",
    ),
    # outcomes and kinds
    "outcome.counted": ("засчитано", "counted"),
    "outcome.rejected": ("не засчитано", "rejected"),
    "outcome.voided": ("отменено", "voided"),
    "kind.card": ("карта", "card"),
    "kind.discard": ("сброс", "discard"),
    "kind.save": ("сохранение", "save"),
    "kind.unknown": ("неизвестный код", "unknown code"),
    # confirmation
    # form errors by kind (app.web.forms.error_text): pydantic's types and InputProblem codes
    "input.window_order": (
        "Конец дистанции должен быть позже её начала.",
        "The course must close after it opens.",
    ),
    "input.unknown_timezone": (
        "Неизвестный часовой пояс «{zone}»: укажите имя IANA, например Europe/Moscow.",
        "Unknown time zone “{zone}”: use an IANA name like Europe/Moscow.",
    ),
    "input.missing": ("Заполните это поле.", "This field is required."),
    "input.string_too_short": (
        "Слишком коротко: не меньше {min_length} знаков.",
        "Too short: at least {min_length} characters.",
    ),
    "input.string_too_long": (
        "Слишком длинно: не больше {max_length} знаков.",
        "Too long: at most {max_length} characters.",
    ),
    "input.greater_than_equal": ("Не меньше {ge}.", "At least {ge}."),
    "input.less_than_equal": ("Не больше {le}.", "At most {le}."),
    "input.int_parsing": ("Нужно целое число.", "A whole number is needed."),
    "input.literal_error": ("Допустимо: {expected}.", "Allowed: {expected}."),
    "confirm.title": ("Подтвердите", "Confirm"),
    "confirm.discard": (
        "Сбросить карту {card}? Это необратимо.",
        "Discard {card}? This cannot be undone.",
    ),
    "confirm.save": (
        "Сохранить руку как комбинацию? Это необратимо, код сохранения будет израсходован.",
        "Save the hand as a combination? This cannot be undone; the save code is used up.",
    ),
    "confirm.other": (
        "Код {code} — не код сброса карты из вашей руки и не ваш код сохранения. "
        "Записать его всё равно? Код КП будет засчитан как взятие; неизвестный код не "
        "засчитывается и учитывается в лимите неверных кодов. Записанный код нельзя отменить.",
        "The code {code} is neither the discard code of a card in your hand nor one of your "
        "save codes. Record it anyway? A CP code counts as a take; an unknown code does not "
        "count and counts towards the wrong-code limit. A recorded code cannot be undone.",
    ),
    "confirm.cp_shaped": (
        "Код {code} набран как код КП. Записать взятие? Если в коде ошибка, он не будет "
        "засчитан и учтётся в лимите неверных кодов. Записанный код нельзя отменить.",
        "The code {code} is typed as a CP code. Record the take? If the code has a mistake "
        "it does not count and counts towards the wrong-code limit. A recorded code cannot "
        "be undone.",
    ),
    "confirm.discard_code": (
        "Код {code} — код сброса этой карты из вашей руки.",
        "The code {code} is the discard code of this card in your hand.",
    ),
    "confirm.save_code": (
        "Код {code} — ваш код сохранения.",
        "The code {code} is one of your save codes.",
    ),
    "confirm.not_recorded": (
        "Код не записан, ничего не изменилось.",
        "The code was not recorded; nothing has changed.",
    ),
    "confirm.yes_discard": ("Да, сбросить", "Yes, discard"),
    "confirm.yes_save": ("Да, сохранить", "Yes, save"),
    "confirm.yes_record": ("Да, записать", "Yes, record"),
    "confirm.empty": ("Введите код.", "Enter a code."),
    # categories
    "category.five_of_a_kind": ("покер (пять одинаковых)", "five of a kind"),
    "category.royal_flush": ("флеш-рояль", "royal flush"),
    "category.four_of_a_kind": ("каре", "four of a kind"),
    "category.straight_flush": ("стрит-флеш", "straight flush"),
    "category.full_house": ("фулл-хаус", "full house"),
    "category.flush": ("флеш", "flush"),
    "category.straight": ("стрит", "straight"),
    "category.three_of_a_kind": ("сет (тройка)", "three of a kind"),
    "category.two_pair": ("две пары", "two pair"),
    "category.one_pair": ("пара", "one pair"),
    "category.high_card": ("старшая карта", "high card"),
    # ceremony (participant)
    "ceremony.title": ("Церемония награждения", "Award ceremony"),
    "ceremony.place": ("{place} место", "Place {place}"),
    "ceremony.not_started": (
        "Аукционы ещё не начались. Страница обновляется сама.",
        "The auctions have not started yet. This page refreshes itself.",
    ),
    "ceremony.open": ("Аукцион открыт", "The auction is open"),
    "ceremony.sealed": (
        "Ставки закрытые: до закрытия аукциона их никто не видит. Ставку можно заменить "
        "или отозвать. Поставленная комбинация расходуется, даже если не выиграет.",
        "Bids are sealed: nobody sees them until the auction closes. You may replace or "
        "withdraw your bid. A combination you bid is used up, even if it does not win.",
    ),
    "ceremony.choose": ("Выберите комбинацию", "Choose a combination"),
    "ceremony.bid": ("Сделать ставку", "Place the bid"),
    "ceremony.replace": ("Заменить ставку", "Replace the bid"),
    "ceremony.withdraw": ("Отозвать ставку", "Withdraw the bid"),
    "ceremony.my_bid": ("Ваша ставка", "Your bid"),
    "ceremony.receipt": ("Квитанция", "Receipt"),
    "ceremony.receipt_help": (
        "Сохраните квитанцию: после закрытия аукциона по ней можно проверить, что ставка "
        "не была подменена.",
        "Keep the receipt: after the close it proves your bid was not changed.",
    ),
    "ceremony.no_combinations": (
        "У вас нет неиспользованных комбинаций для ставки.",
        "You have no unused combinations to bid.",
    ),
    "ceremony.not_eligible": (
        "Вы уже выиграли место и не участвуете в следующих аукционах.",
        "You have already won a place and take no part in later auctions.",
    ),
    "ceremony.closed": ("Аукцион закрыт", "The auction is closed"),
    "ceremony.winner": ("Победитель: {name}", "Winner: {name}"),
    "ceremony.no_winner": ("Место не присуждено (нет ставок).", "Place not awarded (no bids)."),
    "ceremony.tie": ("Ничья — переторжка", "Tie — tie-break round"),
    "ceremony.results": ("Результаты", "Results"),
    "card.joker": ("Джокер", "Joker"),
    "ceremony.round": ("Раунд {number}", "Round {number}"),
    "ceremony.place_col": ("Место", "Place"),
    "ceremony.rank": ("Место в аукционе", "Rank"),
    "ceremony.bidder": ("Участник", "Participant"),
    "ceremony.combination": ("Комбинация", "Combination"),
    "ceremony.bids_in": ("Ставок: {count}", "Bids in: {count}"),
    "ceremony.podium": ("Пьедестал", "Podium"),
    "log.head": ("Контрольный хеш журналов", "Log head"),
    "log.head_counts": (
        "(записей отметок: {takes}, ставок: {bids})",
        "({takes} take rows, {bids} bid rows)",
    ),
    "ceremony.bid_placed": ("Ставка принята.", "Your bid is in."),
    "ceremony.bid_withdrawn": ("Ставка отозвана.", "Your bid was withdrawn."),
    "ceremony.pending": ("ещё не разыграно", "not yet auctioned"),
    "ceremony.revealing": (
        "Аукцион закрыт, идёт вскрытие ставок",
        "The auction is closed; the bids are being revealed",
    ),
    "ceremony.revealing_help": (
        "Ставки вскрываются на проекторе по одной, от слабой к сильной; затем объявят "
        "итог. Страница обновляется сама.",
        "The bids are revealed on the projector one by one, from the weakest to the "
        "strongest, then the outcome. This page refreshes itself.",
    ),
    "ceremony.sealed_left": ("Ещё не вскрыто: {count}", "Still sealed: {count}"),
    "ceremony.reveal_progress": (
        "Вскрыто шагов: {shown} из {steps}",
        "Reveal steps taken: {shown} of {steps}",
    ),
    "ceremony.reveal_on_projector": ("Вскрывать на проекторе", "Reveal on the projector"),
    "ceremony.tie_break_round": (
        "Переторжка: раунд {number}, только для участников ничьей",
        "Tie-break: round {number}, for the tied bidders only",
    ),
    "ceremony.close_confirm.title": (
        "Закрыть аукцион за {place} место?",
        "Close the auction for place {place}?",
    ),
    "ceremony.close_confirm.bids": (
        "Ставок в раунде {number}: {count}.",
        "Bids in round {number}: {count}.",
    ),
    "ceremony.close_confirm.stop": (
        "Приём ставок прекратится, и аукцион будет решён (при ничьей — переторжка или жребий).",
        "Bidding stops and the auction is decided (a tie: a tie-break round or lots).",
    ),
    "ceremony.close_confirm.reveal": (
        "Решение увидите только вы: участники и зал увидят его, когда вы вскроете ставки на "
        "проекторе.",
        "Only you see the decision: the participants and the hall see it as you reveal the "
        "bids on the projector.",
    ),
    "ceremony.close_confirm.undo": (
        "Отменить закрытие можно, только пока не вскрыта первая ставка.",
        "The close can be undone only until the first bid is revealed.",
    ),
    "ceremony.confirm_what": ("Что произойдёт", "What will happen"),
    "ceremony.close_confirm.button": ("Да, закрыть аукцион", "Yes, close the auction"),
    "ceremony.undo_confirm.title": (
        "Отменить закрытие аукциона за {place} место?",
        "Undo the close of the auction for place {place}?",
    ),
    "ceremony.undo_confirm.reopen": (
        "Раунд {number} снова откроется: участники смогут сделать, заменить или отозвать "
        "ставку, и его нужно будет закрыть заново.",
        "Round {number} opens again: participants may place, replace or withdraw a bid, "
        "and it must be closed again.",
    ),
    "ceremony.undo_confirm.tie_break": (
        "Переторжка (раунд {number}) будет удалена.",
        "The tie-break round {number} is removed.",
    ),
    "ceremony.undo_confirm.kept": (
        "Отменённое решение останется в журнале действий. Ничего не вскрыто, поэтому "
        "никто не видел ставок.",
        "The undone decision stays in the audit trail. Nothing was revealed, so nobody "
        "has seen a bid.",
    ),
    "ceremony.undo_confirm.button": ("Да, отменить закрытие", "Yes, undo the close"),
    # the course page and the ceremony's organiser steps (issue 16, app/web/admin/course.py)
    "admin.course": ("Дистанция", "Course"),
    "course.phase.before": ("ещё не открыта", "not open yet"),
    "course.phase.open": ("открыта", "open"),
    "course.phase.closed": ("закрыта", "closed"),
    "course.close_now": ("Закрыть дистанцию сейчас", "Close the course now"),
    "course.close_now.help": (
        "Время закрытия станет текущим временем сервера; взятия после него перестанут "
        "засчитываться. Сначала вы увидите, что изменится.",
        "The closing time becomes the server's time now; takes after it stop counting. "
        "You will see what changes first.",
    ),
    "course.close_confirm.title": ("Закрыть дистанцию сейчас?", "Close the course now?"),
    "course.close_confirm.button": ("Да, закрыть дистанцию", "Yes, close the course"),
    "course.close_confirm.when": (
        "Закрытие — в момент подтверждения (сейчас {time}).",
        "The course closes when you confirm (now {time}).",
    ),
    "course.cancel": ("Отмена", "Cancel"),
    "course.status_move": ("Статус события", "Event status"),
    "course.status_button": ("Сменить статус", "Change the status"),
    "course.status_confirm.title": (
        "Сменить статус и закрыть дистанцию сейчас?",
        "Change the status and close the course now?",
    ),
    "course.status_confirm.button": ("Да, сменить статус", "Yes, change the status"),
    "admin.done.status_changed": ("Статус изменён.", "The status was changed."),
    "error.status_not_forward": (
        "Статус меняется только вперёд.",
        "The status only moves forward.",
    ),
    "error.deck_missing": ("Сначала задайте колоду КП.", "Set the deck of checkpoints first."),
    "course.window_edit": ("Изменить окно дистанции", "Change the course window"),
    "course.opens_at": ("Открытие", "Opens"),
    "course.closes_at": ("Закрытие", "Closes"),
    "course.zone_note": ("Время события: {zone}.", "Event time: {zone}."),
    "course.preview_button": ("Показать, что изменится", "Preview the change"),
    "course.window_confirm.title": ("Изменить окно дистанции?", "Change the course window?"),
    "course.window_confirm.button": ("Да, изменить окно", "Yes, change the window"),
    "course.new_window": ("Новое окно: {opens} — {closes}", "New window: {opens} — {closes}"),
    "course.nothing_stored": (
        "Пока вы не подтвердите, ничего не сохранено.",
        "Nothing is stored until you confirm.",
    ),
    "course.frozen": (
        "Церемония началась: окно дистанции больше не меняется.",
        "The ceremony has begun: the course window no longer changes.",
    ),
    "course.replay.stop": (
        "Перестанут засчитываться: {takes} {participants}.",
        "{takes} of {participants} would stop counting.",
    ),
    "course.replay.start": ("Начнут засчитываться: {takes}.", "{takes} would start counting."),
    "course.replay.reason": (
        "Сменится причина отказа: {takes}.",
        "{takes} would be rejected for another reason.",
    ),
    "course.replay.none": (
        "Ни одно взятие не изменится (проверено: {takes} {participants}).",
        "No take would change ({takes} of {participants} checked).",
    ),
    "course.replayed.stop": (
        "Перестали засчитываться: {takes} {participants}.",
        "{takes} of {participants} stopped counting.",
    ),
    "course.replayed.start": ("Начали засчитываться: {takes}.", "{takes} started counting."),
    "course.replayed.reason": (
        "Сменилась причина отказа: {takes}.",
        "{takes} are now rejected for another reason.",
    ),
    "course.replayed.none": (
        "Ни одно взятие не изменилось ({takes} {participants}).",
        "No take changed ({takes} of {participants}).",
    ),
    "noun.take": ("взятие|взятия|взятий", "take|takes"),
    "noun.of_participant": ("участника|участников|участников", "participant|participants"),
    "admin.done.course_closed": ("Дистанция закрыта.", "The course is closed."),
    "admin.done.window_changed": ("Окно дистанции изменено.", "The course window was changed."),
    "admin.done.auction_undo": (
        "Закрытие отменено: раунд снова принимает ставки.",
        "The close was undone: the round takes bids again.",
    ),
    "admin.done.bid_placed": ("Ставка за участника принята.", "The bid on their behalf is in."),
    "error.course_already_closed": ("Дистанция уже закрыта.", "The course is already closed."),
    "error.course_not_opened": (
        "Дистанция ещё не открылась: измените окно дистанции.",
        "The course has not opened yet: change the course window instead.",
    ),
    "error.feed_closed": (
        "Церемония началась: окно дистанции и взятия больше не меняются.",
        "The ceremony has begun: the course window and the takes no longer change.",
    ),
    "error.window_invalid": (
        "Закрытие должно быть позже открытия.",
        "The course must close after it opens.",
    ),
    "error.undo_too_late": (
        "Следующий аукцион уже открыт: закрытие не отменить.",
        "The next auction has opened: the close can no longer be undone.",
    ),
    "error.nothing_to_undo": ("Нечего отменять.", "Nothing to undo."),
    "error.auction_not_closed": ("Аукцион не закрыт.", "The auction is not closed."),
    "error.participant_not_found": ("Участник не найден.", "Participant not found."),
    "error.participant_required": ("Выберите участника.", "Choose a participant."),
    "ceremony.course_open_refusal": (
        "Дистанция открыта до {time}: аукционы начинаются после её закрытия.",
        "The course is open until {time}: the auctions start after it closes.",
    ),
    "ceremony.waits": (
        "Откроется после аукциона за {place} место.",
        "Opens after the auction for place {place}.",
    ),
    "ceremony.on_behalf": ("Ставка за участника", "Bid on behalf of a participant"),
    "ceremony.choose_participant": ("Участник", "Participant"),
    "ceremony.show_combinations": ("Показать комбинации", "Show the combinations"),
    "ceremony.no_usable": (
        "У этого участника нет комбинаций для ставки.",
        "This participant has no combination left to bid.",
    ),
    "ceremony.bid_for": ("Поставить за: {name}", "Bid for {name}"),
    "ceremony.lots_seed": ("Зерно жребия (необязательно)", "Lots seed (optional)"),
    "ceremony.undo": ("Отменить последнее закрытие…", "Undo the last close…"),
    "ceremony.tied_top": ("ничья", "tie"),
    # admin
    "admin.title": ("Организатор", "Organiser"),
    "admin.signin": ("Вход организатора", "Organiser sign-in"),
    "admin.token": ("Токен организатора", "Organiser token"),
    "admin.signin.button": ("Войти", "Sign in"),
    "admin.signin.wrong": ("Неверный токен.", "Wrong token."),
    "admin.signout": ("Выйти", "Sign out"),
    "admin.events": ("События", "Events"),
    "admin.no_events": ("Событий пока нет.", "No events yet."),
    "admin.dashboard": ("Сводка", "Dashboard"),
    "admin.checkpoints": ("КП и карты", "Checkpoints"),
    "admin.participants": ("Участники", "Participants"),
    "admin.keys": ("Ключи интеграции", "Integration keys"),
    "admin.ceremony": ("Церемония", "Ceremony"),
    "admin.projector": ("Проектор", "Projector"),
    "admin.course_window": ("Окно дистанции", "Course window"),
    "admin.opens_in": ("до открытия", "until opening"),
    "admin.closes_in": ("до закрытия", "until closing"),
    "admin.closed": ("дистанция закрыта", "the course is closed"),
    "admin.participant_count": ("Участников", "Participants"),
    "admin.takes_per_minute": ("Взятий в минуту (за 10 мин)", "Takes per minute (last 10 min)"),
    "admin.takes_total": ("Всего взятий", "Takes in total"),
    "admin.warnings": ("Предупреждения", "Warnings"),
    "admin.unsaved_hands": ("Несохранённые руки", "Unsaved hands"),
    "admin.all_warnings": ("Все предупреждения", "All warnings"),
    "admin.first_rows": (
        "Показаны первые {shown} строк каждого списка.",
        "The first {shown} rows of each list are shown.",
    ),
    "admin.page_of": ("Страница {page} из {pages}", "Page {page} of {pages}"),
    "admin.previous_page": ("← Предыдущая", "← Previous"),
    "admin.next_page": ("Следующая →", "Next →"),
    "admin.unknown_codes": ("Неизвестные коды", "Unknown codes"),
    "admin.hand_full_takes": ("Взятия при полной руке", "Takes with a full hand"),
    "admin.no_warnings": ("Нет", "None"),
    "admin.print_qr": ("Печать QR-кодов КП", "Print the CP QR sheet"),
    "admin.print_cards": ("Печать карточек участников", "Print participant cards"),
    "admin.number": ("№", "No."),
    "admin.card": ("Карта", "Card"),
    "admin.code": ("Код QR", "QR code"),
    "admin.discard_code": ("Код сброса", "Discard code"),
    "admin.hint": ("Подсказка", "Hint"),
    "admin.coords": ("Координаты", "Coordinates"),
    "admin.name": ("Имя", "Name"),
    "admin.external_id": ("Номер", "Number"),
    "admin.category": ("Категория", "Category"),
    "admin.state": ("Состояние", "State"),
    "admin.take_log": ("Журнал взятий", "Take log"),
    "admin.taken_at": ("Время", "Time"),
    "admin.source": ("Источник", "Source"),
    "admin.device_time": ("по часам устройства {time}", "device clock {time}"),
    "admin.device_clocks": ("Часы устройств", "Device clocks"),
    "admin.typed_code": ("Код для ввода вручную", "Code to type by hand"),
    "print.typed_code": ("Код:", "Code:"),
    # the review of phone times (RULES.md I-22)
    "review.title": ("Проверка времени телефонов", "Phone times to review"),
    "review.lead": (
        "Взятия, время которых сервер не может подтвердить. Они засчитаны по правилам, "
        "пока вы не решите: «Принять» ничего не меняет, «Аннулировать» отменяет взятие "
        "(это исправление попадает в журнал).",
        "Takes whose time the server cannot corroborate. They count as the rules say until "
        "you decide: Accept changes nothing, Void cancels the take (a logged correction).",
    ),
    "review.open": ("Ждут решения: {count}", "Waiting for a decision: {count}"),
    "review.total": ("всего в списке: {count}", "listed in all: {count}"),
    "review.received": ("Получено сервером", "Received by the server"),
    "review.why": ("Почему в списке", "Why listed"),
    "review.reason.late_arrival": (
        "пришло после закрытия, а время взятия — до закрытия",
        "arrived after the close, dated before it",
    ),
    "review.reason.offset_jump": (
        "часы телефона скачком сдвинулись: {offset} против {previous} раньше",
        "the phone's clock jumped: {offset} against {previous} before",
    ),
    "review.reason.large_correction": (
        "часы телефона сильно расходятся с сервером: {offset}",
        "the phone's clock is far off the server's: {offset}",
    ),
    "review.accept": ("Принять", "Accept"),
    "review.void": ("Аннулировать", "Void"),
    "review.decision.accepted": ("принято", "accepted"),
    "review.decision.voided": ("аннулировано", "voided"),
    "review.empty": ("Список пуст.", "Nothing to review."),
    "review.pages": ("Страницы", "Pages"),
    "review.deadline": ("Срок синхронизации", "Sync deadline"),
    "review.deadline_help": (
        "Необязательно. Взятия с телефонов, пришедшие на сервер позже этого времени "
        "(после закрытия дистанции), не записываются.",
        "Optional. Phone takes that reach the server after this time (after the close) are "
        "not stored.",
    ),
    "review.deadline_set": ("Срок: {time}", "Deadline: {time}"),
    "review.deadline_none": ("Срок не задан.", "No deadline."),
    "review.deadline_label": (
        "Срок (время события; пусто — без срока)",
        "Deadline (event time; empty: none)",
    ),
    "admin.review_link": ("Проверка времени телефонов: {count}", "Phone times to review: {count}"),
    "admin.done.sync_deadline": ("Срок синхронизации сохранён.", "The sync deadline was saved."),
    "admin.done.review_accepted": ("Взятие принято.", "The take was accepted."),
    "admin.done.review_voided": ("Взятие аннулировано.", "The take was voided."),
    "error.deadline_before_close": (
        "Срок синхронизации должен быть позже закрытия дистанции.",
        "The sync deadline must be after the close of the course.",
    ),
    "error.review_decided": ("По этому взятию уже есть решение.", "This take was already decided."),
    "error.review_not_found": ("Такого пункта проверки нет.", "No such review item."),
    "error.sync_deadline_passed": (
        "Срок отправки взятий истёк: взятие не записано.",
        "The deadline for sending takes has passed: the take was not stored.",
    ),
    "admin.device_clocks.help": (
        "Устройства, чьи часы расходились с часами сервера: время их взятий исправлено "
        "на поправку (PUT …/sources/{source}/clock задаёт поправку источника).",
        "Devices whose clocks were off the server's: their takes' times are corrected by the "
        "offset (PUT …/sources/{source}/clock sets a source's offset).",
    ),
    "admin.device_clocks.corrected": ("Исправлено взятий", "Takes corrected"),
    "admin.device_clocks.offsets": ("Поправки", "Offsets"),
    "admin.device_clocks.organiser": ("Поправка организатора", "Organiser's offset"),
    "admin.seconds": ("с", "s"),
    "admin.clock_offset": ("поправка {offset} с", "offset {offset} s"),
    "admin.void": ("Отменить", "Void"),
    "admin.void_reason": ("Причина", "Reason"),
    "admin.add_take": ("Добавить взятие", "Add a take"),
    "admin.add_take.code": ("Код (КП, сброса или сохранения)", "Code (CP, discard or save)"),
    "admin.add_take.at": ("Время взятия", "Time of the take"),
    "admin.combinations": ("Комбинации", "Combinations"),
    "admin.hand": ("Рука", "Hand"),
    "admin.correction_done": ("Исправление записано.", "Correction recorded."),
    "admin.key_name": ("Название", "Name"),
    "admin.key_create": ("Создать ключ", "Create a key"),
    "admin.key_once": (
        "Ключ показан один раз — скопируйте его сейчас:",
        "The key is shown once — copy it now:",
    ),
    "admin.key_revoke": ("Отозвать", "Revoke"),
    "admin.key_revoked": ("отозван", "revoked"),
    "admin.key_prefix": ("Префикс", "Prefix"),
    "admin.created_at": ("Создан", "Created"),
    "admin.open_auction": ("Открыть аукцион", "Open the auction"),
    "admin.close_auction": ("Закрыть аукцион", "Close the auction"),
    "admin.auction_status": ("Статус", "Status"),
    "admin.status.pending": ("не открыт", "not opened"),
    "admin.status.open": ("открыт", "open"),
    "admin.status.closed": ("закрыт", "closed"),
    "admin.status.tie_break": ("переторжка", "tie-break"),
    "admin.status.awarded": ("присуждено", "awarded"),
    "admin.status.unawarded": ("не присуждено", "not awarded"),
    "admin.reveal_next": ("Показать следующую", "Reveal next"),
    "admin.reveal_all": ("Показать всё", "Reveal all"),
    "admin.close_auction_confirm": ("Закрыть аукцион…", "Close the auction…"),
    "admin.add_take.note": ("Примечание", "Note"),
    "admin.previously": ("раньше", "previously"),
    "admin.key_active": ("действует", "active"),
    "admin.round": ("раунд {round}", "round {round}"),
    "admin.print_cards.help": (
        "Первая печать карточки выдаёт участнику новую личную ссылку (прежняя перестаёт "
        "работать); повторная печать показывает ту же ссылку. Новые ссылки для всех — "
        "только если отметить «Выдать новые ссылки».",
        "The first print of a card issues a new personal link (the earlier one stops "
        "working); a re-print shows the same link. New links for everyone only with "
        "\u201cIssue new links\u201d ticked.",
    ),
    "admin.print_cards.reissue": ("Выдать новые ссылки", "Issue new links"),
    "print.base_url_warning": (
        "Внимание: адрес сервиса (BASE_URL) {url} — {problems}. Телефоны в лесу не откроют "
        "QR-коды, напечатанные с этим адресом. Задайте настоящий https-адрес и перезапустите "
        "сервис перед печатью.",
        "Warning: the service address (BASE_URL) {url} is {problems}. Phones in the forest "
        "will not open QR codes printed with it. Set the real https address and restart the "
        "service before printing.",
    ),
    "print.base_url.loopback": ("адрес этого компьютера", "this computer's own address"),
    "print.base_url.private": ("адрес локальной сети", "a private network address"),
    "print.base_url.http": (
        "без https (камера и офлайн-режим на телефоне требуют https)",
        "plain http (the phone's camera and offline mode need https)",
    ),
    "admin.done.correction": ("Исправление записано.", "Correction recorded."),
    "admin.done.key_revoked": ("Ключ отозван.", "The key was revoked."),
    "admin.done.auction_open": ("Аукцион открыт.", "The auction is open."),
    "admin.done.auction_close": ("Аукцион закрыт.", "The auction is closed."),
    "admin.failed": ("Не выполнено: {code}", "Not done: {code}"),
    "error.bad_time": ("Неверное время.", "Invalid time."),
    "error.empty_code": ("Введите код.", "Enter a code."),
    "error.take_already_voided": ("Это взятие уже отменено.", "That take is already voided."),
    "error.take_not_found": ("Взятие не найдено.", "Take not found."),
    "error.source_not_found": (
        "В этом мероприятии нет взятий с такого источника.",
        "No take of this source in the event.",
    ),
    "error.auction_not_open": ("Аукцион не открыт.", "The auction is not open."),
    "error.auction_closed": ("Аукцион уже закрыт.", "The auction is already closed."),
    "error.auction_out_of_order": (
        "Места разыгрываются по порядку: сначала закройте предыдущий аукцион.",
        "Places are auctioned in order: close the previous auction first.",
    ),
    "error.combination_used": (
        "Эта комбинация уже участвовала в аукционе.",
        "That combination was already bid in an auction.",
    ),
    "error.bidder_already_won": (
        "Вы уже выиграли место и не участвуете в следующих аукционах.",
        "You have already won a place and take no part in later auctions.",
    ),
    "error.course_still_open": (
        "Дистанция ещё открыта: аукционы начинаются после её закрытия.",
        "The course is still open: the auctions start after it closes.",
    ),
    "error.auction_in_progress": (
        "Сейчас идёт другой аукцион: сначала закройте его.",
        "Another auction is in progress: close it first.",
    ),
    "error.auction_already_open": ("Аукцион уже открыт.", "The auction is already open."),
    "error.combination_not_yours": ("Это не ваша комбинация.", "That is not your combination."),
    "error.combination_not_found": ("Комбинация не найдена.", "Combination not found."),
    "error.combination_outside_course_hours": (
        "Эта комбинация сохранена вне времени дистанции.",
        "That combination was saved outside the course hours.",
    ),
    "error.not_in_tie_break": (
        "В переторжке участвуют только участники ничьей.",
        "Only the tied bidders take part in the tie-break.",
    ),
    "error.round_closed": ("Этот раунд уже закрыт.", "That round is already closed."),
    "error.reveal_pending": (
        "Сначала вскройте ставки предыдущего аукциона.",
        "Reveal the previous auction's bids first.",
    ),
    "error.tie_break_not_revealed": (
        "Переторжка начнётся, когда ставки предыдущего раунда будут вскрыты.",
        "The tie-break round starts once the previous round's bids are revealed.",
    ),
    "error.nothing_to_reveal": ("Вскрывать больше нечего.", "Nothing is left to reveal."),
    "error.csrf_failed": (
        "Форма устарела или пришла с другого сайта. Откройте страницу заново и повторите.",
        "The form is out of date or came from another site. Open the page again and retry.",
    ),
    "error.undo_after_reveal": (
        "Ставки этого раунда уже вскрыты (полностью или частично): закрытие нельзя "
        "отменить. Ставку, записанную не тому участнику, снимает исправление с причиной "
        "(API: POST …/auctions/P/rounds/N/correct).",
        "The bids of this round have been revealed (in part or in full): the close cannot "
        "be undone. A bid recorded for the wrong participant is removed by a correction "
        "with a reason (API: POST …/auctions/P/rounds/N/correct).",
    ),
    "error.round_not_found": ("Такого раунда нет.", "No such round."),
    "error.correction_not_possible": (
        "Этот раунд уже нельзя исправить: следующий раунд начался.",
        "This round can no longer be corrected: a later round has started.",
    ),
    "error.correction_too_late": (
        "Исправление невозможно: следующий аукцион уже открыт.",
        "Too late to correct: the next auction has opened.",
    ),
    "error.bid_not_counted": (
        "Эта ставка не учитывается в раунде.",
        "That bid is not counted in the round.",
    ),
    "error.bid_not_revealed": (
        "Эта ставка ещё не вскрыта.",
        "That bid is not revealed yet.",
    ),
    "error.ceremony_not_revealed": (
        "Архив нельзя выгрузить, пока идёт аукцион или не все ставки вскрыты.",
        "No archive while an auction is open or its bids are not all revealed.",
    ),
    "error.bid_not_live": (
        "Эта ставка уже заменена или отозвана.",
        "That bid was already replaced or withdrawn.",
    ),
    "event.status.draft": (
        "подготовка (взятия в окне дистанции засчитываются)",
        "setup (takes in the course window count)",
    ),
    "event.status.course_open": ("дистанция открыта", "course open"),
    "event.status.course_closed": ("дистанция закрыта", "course closed"),
    "event.status.ceremony": ("церемония", "ceremony"),
    "event.status.finished": ("завершено", "finished"),
    "admin.event_status": ("Статус", "Status"),
    "admin.live": ("обновляется автоматически", "updates live"),
    "admin.csrf": (
        "Форма устарела или пришла не с этой страницы. Обновите страницу и повторите.",
        "The form expired or did not come from this page. Reload the page and try again.",
    ),
    "admin.not_ready": (
        "Эта часть сервиса ещё не подключена.",
        "This part of the service is not available yet.",
    ),
}


# Organiser setup pages (app/web/admin/setup.py), error codes of the domains, the form
# fields and CSV columns, take sources: every code a Russian page can show (issue 16).
SETUP_MESSAGES: dict[str, tuple[str, str]] = {
    "setup.new_event": ("Новое событие", "New event"),
    "setup.create_event": ("Создать событие", "Create the event"),
    "setup.event_settings": ("Настройки", "Settings"),
    "setup.event_name": ("Название события", "Event name"),
    "setup.timezone": ("Часовой пояс (IANA)", "Time zone (IANA)"),
    "setup.timezone_help": (
        "Время дистанции вводится и показывается в этом поясе, например Europe/Moscow.",
        "The course times are entered and shown in this zone, e.g. Europe/Moscow.",
    ),
    "setup.opens_at": ("Дистанция открывается", "The course opens"),
    "setup.closes_at": ("Дистанция закрывается", "The course closes"),
    "setup.hand_ranking": ("Порядок комбинаций", "Hand ranking"),
    "ranking.seed": (
        "по правилам события (каре выше стрит-флеша)",
        "the event's rules (four of a kind above straight flush)",
    ),
    "ranking.classic": ("классический покер", "classic poker"),
    "setup.ranking_preview": (
        "Взятия уже записаны: смена порядка пересчитает их; сначала покажем, что изменится.",
        "Takes are recorded: a change replays them; you will see what changes first.",
    ),
    "setup.ranking_confirm": ("Сменить порядок комбинаций?", "Change the hand ranking?"),
    "setup.ranking_apply": ("Да, сменить и пересчитать", "Yes, change and replay"),
    "setup.save_codes": ("Кодов сохранения у участника", "Save codes per participant"),
    "setup.award_places": ("Призовых мест (аукционов)", "Award places (auctions)"),
    "setup.window_elsewhere": (
        "Окно дистанции меняется на странице дистанции: там видно, какие взятия это затронет.",
        "The course window is changed on the course page, which shows the takes it affects:",
    ),
    "setup.deck": ("Колода: карты, подсказки и координаты", "The deck: cards, hints, coordinates"),
    "setup.no_deck": (
        "КП пока нет: перетасуйте колоду или загрузите CSV.",
        "No CPs yet: shuffle a deck or upload a CSV.",
    ),
    "setup.shuffle": ("Перетасовать колоду", "Shuffle the deck"),
    "setup.shuffle_button": ("Перетасовать", "Shuffle"),
    "setup.seed": ("Зерно перетасовки (необязательно)", "Shuffle seed (optional)"),
    "setup.seed_help": (
        "С тем же зерном получится та же раскладка. Пусто — случайное зерно. Подсказки, "
        "координаты и коды КП сохраняются; меняются только карты.",
        "The same seed gives the same deal. Empty: a random seed. Hints, coordinates and "
        "CP codes stay; only the cards change.",
    ),
    "setup.upload_deck": ("Загрузить КП из CSV", "Upload the CPs from a CSV"),
    "setup.deck_csv_help": (
        "Столбцы number, card, lat, lon, hint; первая строка — заголовок. При любой ошибке "
        "ничего не меняется, ошибки показаны по строкам.",
        "Columns number, card, lat, lon, hint; the first row is the header. On any error "
        "nothing changes; the errors are listed by row.",
    ),
    "setup.csv_file": ("Файл CSV (UTF-8)", "CSV file (UTF-8)"),
    "setup.upload": ("Загрузить", "Upload"),
    "setup.csv_or_iof_file": (
        "Файл CSV (UTF-8) или IOF XML 3.0 EntryList (UTF-8, UTF-16 с BOM)",
        "CSV file (UTF-8) or IOF XML 3.0 EntryList (UTF-8, UTF-16 with a BOM)",
    ),
    "setup.edit_help": (
        "Подсказку и координаты можно исправить в строке и сохранить, даже после старта.",
        "Edit a hint or coordinates in its row and save, even after the start.",
    ),
    "setup.deck_locked": (
        "Взятия уже записаны: колода больше не меняется. Подсказки и координаты — можно.",
        "Takes are recorded: the deck can no longer change. Hints and coordinates can.",
    ),
    "setup.public_preview": ("Публичный список КП", "Public CP list"),
    "setup.public_help": (
        "Так список КП видят участники: номер, координаты и подсказка, без карт и кодов.",
        "This is what participants see: number, coordinates and hint, no cards or codes.",
    ),
    "setup.add_participant": ("Добавить участника", "Add a participant"),
    "setup.add": ("Добавить", "Add"),
    "setup.external_id_help": (
        "Номер — как в системе отметки; пусто — следующий свободный.",
        "Number as in the timing system; empty: the next free one.",
    ),
    "setup.import_participants": (
        "Импорт участников из CSV или IOF XML",
        "Import participants from a CSV or IOF XML",
    ),
    "setup.participants_csv_help": (
        "Столбцы name, external_id, category, а также kind (person/team), given_name, "
        "family_name, club, control_card; первая строка — заголовок. При любой ошибке "
        "никто не добавляется, ошибки показаны по строкам (CSV) или записям (XML). "
        "IOF XML EntryList — в UTF-8 или UTF-16 с BOM.",
        "Columns name, external_id, category, and kind (person/team), given_name, "
        "family_name, club, control_card; the first row is the header. On any error "
        "nobody is added; the errors are listed by row (CSV) or entry (XML). An IOF XML "
        "EntryList: UTF-8, or UTF-16 with a BOM.",
    ),
    "setup.actions": ("Действия", "Actions"),
    "setup.print_card": ("Карточка", "Card"),
    "setup.reissue": ("Новая ссылка", "New link"),
    "setup.remove": ("Удалить", "Remove"),
    "setup.no_participants": ("Участников пока нет.", "No participants yet."),
    "setup.link_once": (
        "Личная ссылка участника № {external_id} (показана один раз):",
        "Personal link of participant № {external_id} (shown once):",
    ),
    "setup.errors": ("Ошибки", "Errors"),
    "setup.row": ("Строка", "Row"),
    "setup.row_n": ("строка {row}", "row {row}"),
    "setup.entry": ("Запись", "Entry"),
    "setup.entry_n": ("запись {row}", "entry {row}"),
    "setup.entry_n_line": (
        "запись {row} (строка файла {line})",
        "entry {row} (line {line} of the file)",
    ),
    "setup.control": ("Пункт", "Control"),
    "setup.control_n": ("пункт {row}", "control {row}"),
    "setup.control_n_line": (
        "пункт {row} (строка файла {line})",
        "control {row} (line {line} of the file)",
    ),
    "setup.field": ("Поле", "Field"),
    "setup.problem": ("Что не так", "Problem"),
    "setup.more_errors": ("…и ещё ошибок: {count}", "…and {count} more error(s)"),
    "admin.failed_generic": (
        "Не выполнено: сервис отказал. Проверьте данные и повторите.",
        "Not done: the service refused. Check the data and try again.",
    ),
    "admin.done.event_created": (
        "Событие создано. Теперь колода: перетасуйте её или загрузите CSV.",
        "The event is created. Next, the deck: shuffle it or upload a CSV.",
    ),
    "admin.done.event_saved": ("Настройки сохранены.", "Settings saved."),
    "admin.done.deck_shuffled": ("Колода перетасована.", "The deck is shuffled."),
    "admin.done.deck_imported": ("КП загружены из CSV.", "The CPs were loaded from the CSV."),
    "admin.done.checkpoint_saved": ("КП сохранён.", "The CP is saved."),
    "admin.done.participant_added": ("Участник добавлен.", "The participant is added."),
    "admin.done.participants_imported": (
        "Участники загружены. Напечатайте их карточки: на них личные ссылки.",
        "The participants are loaded. Print their cards: they carry the personal links.",
    ),
    "admin.done.link_reissued": (
        "Выдана новая ссылка; старая больше не работает.",
        "A new link is issued; the old one no longer works.",
    ),
    "admin.done.participant_removed": ("Участник удалён.", "The participant is removed."),
    # form fields and CSV columns (named as the API's JSON fields)
    "field.name": ("имя / название", "name"),
    "field.opens_at": ("открытие дистанции", "course opens"),
    "field.closes_at": ("закрытие дистанции", "course closes"),
    "field.timezone": ("часовой пояс", "time zone"),
    "field.hand_ranking": ("порядок комбинаций", "hand ranking"),
    "field.save_codes_per_participant": ("кодов сохранения", "save codes"),
    "field.award_places": ("призовых мест", "award places"),
    "field.seed": ("зерно", "seed"),
    "field.number": ("номер КП", "CP number"),
    "field.card": ("карта", "card"),
    "field.lat": ("широта", "latitude"),
    "field.lon": ("долгота", "longitude"),
    "field.hint": ("подсказка", "hint"),
    "field.code": ("код", "code"),
    "field.discard_code": ("код сброса", "discard code"),
    "field.external_id": ("номер участника", "participant number"),
    "field.category": ("категория", "category"),
    "field.file": ("файл", "file"),
    "field.header": ("заголовок", "header"),
    # print sheets
    "print.cp_title": ("QR-коды КП", "checkpoint QR codes"),
    "print.cards_title": ("карточки участников", "participant cards"),
    "print.cards_warning": (
        "Эта печать выдала новые личные ссылки (выданные раньше больше не работают) участникам:",
        "This print issued new personal links (links given out earlier no longer work) to:",
    ),
    "print.save_codes": ("Коды сохранения", "Save codes"),
    "print.scan_to_sign_in": (
        "Отсканируйте QR-код телефоном, чтобы войти в игру:",
        "Scan the QR code with your phone to sign in:",
    ),
    # take log reasons, short (the organiser's table; `reason.*` explains them to participants)
    "reason_short.outside_course_hours": ("вне времени дистанции", "outside course hours"),
    "reason_short.hand_full": ("рука полна", "hand full"),
    "reason_short.duplicate": ("повтор КП", "duplicate"),
    "reason_short.hand_not_full": ("рука не полна", "hand not full"),
    "reason_short.no_discards_left": ("сбросов не осталось", "no discards left"),
    "reason_short.card_not_in_hand": ("карты нет в руке", "card not in hand"),
    "reason_short.code_already_used": ("код уже использован", "code already used"),
    "reason_short.unknown_code": ("неизвестный код", "unknown code"),
    "reason_short.voided": ("отменено организатором", "voided by the organiser"),
    # take sources
    "source.phone": ("телефон", "phone"),
    "source.phone_device": (
        "телефон без сети, устройство {device}",
        "offline phone, device {device}",
    ),
    "source.organiser": ("организатор", "organiser"),
    # error codes of the event, feed and auction services
    "error.validation_error": ("Проверьте поля формы.", "Check the form's fields."),
    "error.event_not_found": ("Событие не найдено.", "Event not found."),
    "error.checkpoint_not_found": ("КП не найден.", "CP not found."),
    "error.csv_invalid": (
        "В CSV есть ошибки, ничего не изменено:",
        "The CSV has errors; nothing was changed:",
    ),
    "error.csv_missing": ("Выберите файл CSV.", "Choose a CSV file."),
    "error.not_signed_in": (
        "Сначала откройте свою личную ссылку.",
        "Open your personal link first.",
    ),
    "error.unsupported_media_type": (
        "Этот формат данных не принимается.",
        "This kind of content is not accepted.",
    ),
    "error.cross_origin": (
        "Отправка должна идти со страниц этого сайта.",
        "The batch must come from this site's pages.",
    ),
    "error.csv_missing_file": ("Выберите файл CSV.", "Choose a CSV file."),
    "error.csv_missing_columns": (
        "В CSV нет нужных столбцов.",
        "The CSV lacks required columns.",
    ),
    "error.iof_invalid": (
        "В файле IOF XML есть ошибки, никто не добавлен:",
        "The IOF XML file has errors; nobody was added:",
    ),
    "error.csv_not_utf8": (
        "Файл должен быть в кодировке UTF-8 (или UTF-16 с BOM).",
        "The file must be UTF-8 (or UTF-16 with a BOM).",
    ),
    "error.csv_too_large": ("Файл слишком большой.", "The file is too large."),
    "error.payload_too_large": ("Файл слишком большой.", "The file is too large."),
    "error.deck_invalid": (
        "В колоде есть ошибки, ничего не изменено:",
        "The deck has errors; nothing was changed:",
    ),
    "error.deck_in_play": (
        "Взятия уже записаны: колода больше не меняется.",
        "Takes are recorded: the deck can no longer change.",
    ),
    "error.duplicate_card": ("Карта повторяется.", "A card appears twice."),
    "error.participants_invalid": (
        "Ошибки в участниках, никто не добавлен:",
        "Errors in the participants; nobody was added:",
    ),
    "error.external_id_taken": ("Этот номер уже занят.", "That number is already taken."),
    "error.participant_has_takes": (
        "У участника уже есть взятия: удалить его нельзя.",
        "The participant has takes and cannot be removed.",
    ),
    "error.participants_exist": (
        "Участники уже получили коды сохранения: их число не меняется.",
        "Participants already have their save codes: the number cannot change.",
    ),
    "error.auction_not_found": ("Аукцион не найден.", "Auction not found."),
    "error.auction_already_closed": ("Аукцион уже закрыт.", "The auction is already closed."),
    "error.bid_not_found": ("Ставка не найдена.", "Bid not found."),
    "error.not_your_bid": ("Это не ваша ставка.", "That is not your bid."),
    "error.round_not_closed": ("Раунд ещё не закрыт.", "The round is not closed yet."),
    "error.receipt_not_found": ("Квитанция не найдена.", "Receipt not found."),
    "error.key_not_found": ("Ключ не найден.", "Key not found."),
    "error.key_already_revoked": ("Ключ уже отозван.", "The key is already revoked."),
    "error.not_your_state": ("Это не ваши данные.", "That is not your state."),
    "error.bad_signature": ("Неверная подпись запроса.", "The request signature is wrong."),
    "error.signature_required": ("Нужна подпись запроса.", "The request must be signed."),
    "error.stale_signature": (
        "Подпись запроса устарела.",
        "The request signature is too old.",
    ),
}
# The IOF XML page (app/web/admin/iof.py) and the participants' IOF fields (issue 28).
IOF_MESSAGES: dict[str, tuple[str, str]] = {
    "admin.iof": ("IOF XML", "IOF XML"),
    "iof.title": ("Обмен IOF XML 3.0", "IOF XML 3.0 exchange"),
    "iof.report": ("Что сделала загрузка CourseData", "What the CourseData upload did"),
    "iof.placed": (
        "КП размещено по координатам файла: {count}",
        "CPs placed at the file's positions: {count}",
    ),
    "iof.no_position": (
        "КП в файле без координат (остались на месте): {count}",
        "CPs in the file without a position (left where they were): {count}",
    ),
    "iof.map_only": ("только позиция на карте", "map position only"),
    "iof.not_in_file": (
        "КП колоды, которых нет в файле: {count}",
        "CPs of the deck not in the file: {count}",
    ),
    "iof.without_position": (
        "КП колоды без координат сейчас: {count}",
        "CPs of the deck without a position now: {count}",
    ),
    "iof.not_cps": (
        "Пункты файла, которые не КП: {count}",
        "Controls of the file that are not CPs: {count}",
    ),
    "iof.line": ("Строка файла", "Line"),
    "iof.why": ("Почему", "Why"),
    "iof.reason.start": ("старт", "start"),
    "iof.reason.finish": ("финиш", "finish"),
    "iof.reason.crossing_point": ("пункт перехода", "crossing point"),
    "iof.reason.end_of_marked_route": ("конец маркированного участка", "end of a marked route"),
    "iof.reason.not_a_number": ("номер не число", "its id is not a number"),
    "iof.reason.duplicate": ("номер уже был выше", "the number came earlier in the file"),
    "iof.reason.not_in_deck": ("такого КП нет в колоде", "no such CP in the deck"),
    "iof.by.type": ("так помечен сам пункт (type)", "the control's type says so"),
    "iof.by.course": (
        "так он стоит в дистанции (CourseControl)",
        "a course says so (CourseControl)",
    ),
    "iof.by.id": ("по имени, как пишет MeOS (S…, F…)", "by its id, as MeOS names them (S…, F…)"),
    "iof.by.number": ("по номеру", "by its number"),
    "iof.by.unmarked": (
        "ни тип, ни дистанция не говорят, что это, и это не S…/F… как у MeOS",
        "neither its type nor a course says what it is, and it is not MeOS's S…/F…",
    ),
    "iof.placed_list": ("Размещённые КП", "The CPs placed"),
    "iof.course_data_upload": ("Координаты КП из CourseData", "CP positions from a CourseData"),
    "iof.course_data_file": (
        "Файл IOF XML 3.0 CourseData (UTF-8 или UTF-16 с BOM)",
        "IOF XML 3.0 CourseData file (UTF-8, or UTF-16 with a BOM)",
    ),
    "iof.course_data_help": (
        "Из Purple Pen, OCAD, Condes, MeOS. КП находятся по номеру (Id); старт, финиш и "
        "пункты перехода узнаются по типу пункта или по дистанции. Карты и коды не меняются; "
        "после загрузки здесь будет отчёт.",
        "From Purple Pen, OCAD, Condes, MeOS. CPs are matched by number (Id); start, finish "
        "and crossing points are recognised by the control's type or by the course. Cards "
        "and codes never change; the report shows here after the upload.",
    ),
    "iof.downloads": ("Скачать", "Download"),
    "iof.course_data_download": ("КП с координатами ({count})", "the CPs with positions ({count})"),
    "iof.entry_list_download": (
        "участники с именем и фамилией, клубом и чипом ({count})",
        "participants with given and family names, club and card ({count})",
    ),
    "iof.result_list_download": ("итоги церемонии", "the ceremony's results"),
    "iof.downloads_help": (
        "Читаются MeOS, SportOrg, ooresults и проходят проверку схемой IOF.xsd.",
        "Read by MeOS, SportOrg and ooresults, and valid against IOF.xsd.",
    ),
    "error.course_data_invalid": (
        "Файл CourseData не прочитан, ни один КП не сдвинут:",
        "The CourseData was not read; no CP was moved:",
    ),
    "input.iof_encoding": (
        "Файл в кодировке {encoding}; сохраните его в UTF-8 (или UTF-16 с BOM).",
        "The file is encoded in {encoding}; save it as UTF-8 (or UTF-16 with a BOM).",
    ),
    "input.iof_not_utf8": (
        "Файл не в UTF-8 (байт {byte}); сохраните его в UTF-8.",
        "The file is not UTF-8 (byte {byte}); save it as UTF-8.",
    ),
    "input.iof_dtd": (
        "В файле объявлен DTD или сущности — такие файлы не принимаются.",
        "The file declares a DTD or entities; such files are refused.",
    ),
    "input.iof_not_xml": ("Это не XML: {detail}", "This is not well-formed XML: {detail}"),
    "input.iof_namespace": (
        "Это {expected}, но не IOF XML 3.0 (другое пространство имён — может быть, IOF 2.0).",
        "This is {expected}, but not IOF XML 3.0 (another namespace: IOF 2.0?).",
    ),
    "input.iof_wrong_document": (
        "В файле {found}, а нужен {expected}.",
        "The file is {found}, not {expected}.",
    ),
    "input.iof_no_entries": (
        "В EntryList нет ни одной записи (PersonEntry, TeamEntry).",
        "The EntryList has no entry (PersonEntry, TeamEntry).",
    ),
    "input.iof_no_race": (
        "В CourseData нет RaceCourseData.",
        "The CourseData has no RaceCourseData.",
    ),
    "field.kind": ("участник или команда", "person or team"),
    "field.given_name": ("имя", "given name"),
    "field.family_name": ("фамилия", "family name"),
    "field.club": ("клуб", "club"),
    "field.control_card": ("чип (номер карточки отметки)", "punching card"),
    "setup.whole_name": (
        "Имя и фамилия одной строкой или название команды",
        "Full name in one piece, or the team's name",
    ),
    "setup.given_name": ("Имя", "Given name"),
    "setup.family_name": ("Фамилия", "Family name"),
    "setup.club": ("Клуб", "Club"),
    "setup.control_card": ("Чип (номер карточки отметки)", "Punching card (its number)"),
    "setup.kind_person": ("Участник", "Person"),
    "setup.kind_team": ("Команда", "Team"),
    "setup.parts_help": (
        "Для участника можно указать имя и фамилию вместо общего имени: они сохранятся "
        "раздельно для IOF XML. Чип — номер карточки отметки (только цифры).",
        "For a person, give the given and family name instead of the name: they are kept "
        "apart for IOF XML. The punching card is its number (digits only).",
    ),
}
ROLE_MESSAGES: dict[str, tuple[str, str]] = {
    # The organising team (issue 29: app.web.roles, app.web.admin.members).
    "roles.members": ("Команда", "Team"),
    "roles.members_intro": (
        "Каждому члену команды — своя роль и личная ссылка для входа. Ссылка показывается "
        "один раз; отзыв или новая ссылка сразу завершают его сеансы.",
        "Each team member has a role and a personal sign-in link. The link is shown once; "
        "revoking it or issuing a new one ends the member's sessions at once.",
    ),
    "roles.member_name": ("Имя", "Name"),
    "roles.role": ("Роль", "Role"),
    "roles.member_create": ("Добавить в команду", "Add to the team"),
    "roles.link_once": (
        "Личная ссылка (показана один раз, передайте её лично):",
        "Personal link (shown once; hand it over in person):",
    ),
    "roles.reissue": ("Новая ссылка", "New link"),
    "roles.role.owner": ("владелец", "owner"),
    "roles.role.judge": ("судья", "judge"),
    "roles.role.desk": ("регистрация", "desk"),
    "roles.role.ceremony": ("церемония", "ceremony"),
    "roles.role.screen": ("экран", "screen"),
    "roles.may.owner": ("всё", "everything"),
    "roles.may.judge": (
        "журнал взятий, исправления, часы устройств, проверка",
        "take log, corrections, device clocks, review",
    ),
    "roles.may.desk": (
        "участники, карточки, ссылки, лист QR",
        "participants, cards, links, the QR sheet",
    ),
    "roles.may.ceremony": ("аукционы и проектор", "auctions and the projector"),
    "roles.may.screen": ("только проектор и экран зала", "the projector and hall screen only"),
    "roles.forbidden_title": ("Нет доступа", "Not allowed"),
    "roles.forbidden": (
        "{name}: роль «{role}» не даёт доступа к этой странице или действию. Ничего не изменено.",
        "{name}: the {role} role does not open this page or action. Nothing was changed.",
    ),
    "roles.signed_in_as": ("Вы вошли как {name} ({role})", "Signed in as {name} ({role})"),
    "roles.link.review": ("Проверка времени", "Review"),
    "roles.link.qr_sheet": ("Лист QR-кодов", "QR sheet"),
    "roles.link.projector": ("Проектор: место {place}", "Projector: place {place}"),
    "roles.link.hall": ("Экран зала", "Hall screen"),
    "admin.done.member_revoked": (
        "Член команды отозван, его сеансы завершены.",
        "The member was revoked; their sessions have ended.",
    ),
    "error.member_not_found": ("Член команды не найден.", "Team member not found."),
    "error.member_invalid": (
        "Нужны имя (до 60 символов) и роль.",
        "A name (up to 60 characters) and a role are needed.",
    ),
    "error.role_forbidden": (
        "Ваша роль не даёт доступа к этому действию.",
        "Your role does not allow this action.",
    ),
}


BASE_KEYS = frozenset(MESSAGES)  # a setup message never replaces one of these (tested)
MESSAGES.update(SETUP_MESSAGES)
MESSAGES.update(IOF_MESSAGES)
MESSAGES.update(ROLE_MESSAGES)


def negotiate(request: Request) -> str:
    """The page language: the `lang` cookie when it names a known language, else Russian."""
    lang = request.cookies.get(LANG_COOKIE, "")
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def translate(lang: str, key: str, /, **values: object) -> str:
    """The message `key` in `lang`, formatted with `values`; the key itself when unknown."""
    pair = MESSAGES.get(key)
    if pair is None:
        return key
    text = pair[1] if lang == "en" else pair[0]
    return text.format(**values) if values else text


def count(lang: str, n: int, noun: str) -> str:
    """`n` and the noun `noun` (a key whose texts list the forms with `|`) agreeing with it:
    Russian one|few|many ("1 взятие", "3 взятия", "11 взятий"), English one|other."""
    forms = translate(lang, noun).split("|")
    if lang == "en" or len(forms) < 3:
        return f"{n} {forms[0] if n == 1 else forms[-1]}"
    tens, units = n % 100, n % 10
    if units == 1 and tens != 11:
        form = forms[0]
    elif 2 <= units <= 4 and not 12 <= tens <= 14:
        form = forms[1]
    else:
        form = forms[2]
    return f"{n} {form}"


def label(lang: str, prefix: str, code: str | None) -> str:
    """The message `<prefix>.<code>` (a reason, status, source… in words); a code the
    catalogue does not know (an integration's own source name) is shown as given."""
    if not code:
        return ""
    if prefix == "source" and code.startswith("phone-p"):  # a phone's device (issue 26)
        return translate(lang, "source.phone_device", device=code.rsplit("-", 1)[-1][:6])
    text = translate(lang, f"{prefix}.{code}")
    return code if text == f"{prefix}.{code}" else text


def translator(lang: str) -> Callable[..., str]:
    """`t(key, **values)` bound to one language, for templates."""

    def t(key: str, /, **values: object) -> str:
        return translate(lang, key, **values)

    return t
