"""Browser test: the organiser's IOF XML page at 1280 and 360 px: a CourseData upload
through the form shows its report; a refused file says why; the participants' add form
with name parts. Screenshots in test-artifacts/ (iof-*)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from tests.conftest import ADMIN_TOKEN
from tests.factories import make_event
from tests.web.conftest import LiveServer, check_page, screenshot

pytestmark = pytest.mark.browser

CORPUS = Path(__file__).resolve().parent.parent / "data" / "iof" / "corpus"


@pytest.fixture
def event_url(live_server: LiveServer) -> str:
    with Session(live_server.engine) as db:
        event = make_event(db, name="Ночной рогейн с длинным названием для проверки вёрстки")
        db.commit()
        return f"{live_server.url}/admin/events/{event.id}"


def _sign_in(page, url: str) -> None:
    page.goto(url)
    page.fill("#token", ADMIN_TOKEN)
    page.get_by_role("button", name="Войти").click()
    assert page.url == url


def test_the_iof_page_uploads_and_reports(live_server, desk, event_url):
    page = desk.new_page()
    _sign_in(page, f"{event_url}/iof")
    check_page(page, "iof-page")
    page.set_input_files("#f-iof-file", str(CORPUS / "course_untyped_start_finish.xml"))
    page.get_by_role("button", name="Загрузить").click()
    assert page.locator("#report-placed").inner_text() == "КП размещено по координатам файла: 3"
    rows = page.locator("#report-not-cps tbody tr")
    assert rows.count() == 3
    assert rows.nth(0).inner_text().split("\t")[:2] == ["S1", "15"]
    check_page(page, "iof-report")

    page.goto(f"{event_url}/iof")
    page.set_input_files("#f-iof-file", str(CORPUS / "competitor_list.xml"))
    page.get_by_role("button", name="Загрузить").click()
    assert "Файл CourseData не прочитан" in page.locator("[role=alert]").inner_text()
    assert "В файле CompetitorList, а нужен CourseData." in page.locator(".row-errors").inner_text()
    check_page(page, "iof-refused")


def test_the_add_form_with_name_parts_at_phone_width(live_server, phone, event_url):
    page = phone.new_page()
    _sign_in(page, f"{event_url}/participants")
    page.fill("#f-p-given", "Hans Peter")
    page.fill("#f-p-family", "von Bülow")
    page.fill("#f-p-club", "OK Linné")
    page.fill("#f-p-card", "8123456")
    page.get_by_role("button", name="Добавить").click()
    assert "Участник добавлен." in page.locator("[role=status]").first.inner_text()
    row = page.locator("tbody tr").first.inner_text()
    assert "Hans Peter von Bülow" in row and "OK Linné" in row and "8123456" in row
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "iof-participants-add-360")


def test_entry_list_errors_by_entry_and_an_unmarked_control(live_server, desk, event_url):
    """The participants page names an EntryList's errors by entry and file line; the IOF
    page's report says an untyped "STA1" is no number without claiming MeOS's naming.
    Both at 1280 and 360 px."""
    page = desk.new_page()
    _sign_in(page, f"{event_url}/participants")
    entries = str(CORPUS / "entries_persons_sportorg.xml")
    for _ in range(2):  # the second import: every id is taken
        page.set_input_files("#f-p-file", entries)
        page.locator("form[action$='/participants/import'] button[type=submit]").click()
    cells = page.locator(".row-errors tbody tr td:first-child").all_inner_texts()
    assert cells == [
        "запись 1 (строка файла 8)",
        "запись 2 (строка файла 28)",
        "запись 3 (строка файла 46)",
    ]
    assert page.locator(".row-errors th").first.inner_text() == "Запись"
    check_page(page, "iof-entry-errors")

    page.goto(f"{event_url}/iof")
    page.set_input_files(
        "#f-iof-file",
        [
            {
                "name": "sta1.xml",
                "mimeType": "application/xml",
                "buffer": (
                    b'<CourseData xmlns="http://www.orienteering.org/datastandard/3.0" '
                    b'iofVersion="3.0"><Event><Name>x</Name></Event><RaceCourseData>'
                    b"<Control><Id>STA1</Id></Control>"
                    b'<Control><Id>3</Id><Position lng="37.3" lat="55.3"/></Control>'
                    b"</RaceCourseData></CourseData>"
                ),
            }
        ],
    )
    page.get_by_role("button", name="Загрузить").click()
    why = page.locator("#report-not-cps tbody tr td").nth(2).inner_text()
    assert why == (
        "номер не число · ни тип, ни дистанция не говорят, что это, и это не S…/F… как у MeOS"
    )
    check_page(page, "iof-report-unmarked")
