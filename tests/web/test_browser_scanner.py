"""The in-app QR scanner (issue 26 point 1) in Debian's Chromium at 360 px, with a fake
camera: `--use-file-for-fake-video-capture` plays a Y4M video made here of a CP tile's
QR code (the `qrcode` library with PIL, as printed: `{BASE_URL}/t/{code}`). Headless
Chromium on Linux has no BarcodeDetector, so the vendored jsQR decodes the frames.

The scan goes the way the camera app's link goes (`/t/{code}`): online and offline the
service worker answers it with the shell, which records the take on the phone first and
sends it; the server stores it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import qrcode
from PIL import Image
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.feed.models import Take
from app.web.i18n import LANG_COOKIE
from tests.factories import make_event, make_participant
from tests.offline.test_offline_api import random_codes
from tests.web.conftest import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    WAIT_MS,
    csp_watch,
    new_context,
    screenshot,
)
from tests.web.test_browser_offline import Server, hand_shown

pytestmark = pytest.mark.browser
WIDTH, HEIGHT, FRAMES = 640, 480, 10


def write_y4m(path: Path, text: str) -> Path:
    """A 1-second Y4M video (10 frames, 640×480, 4:2:0) of `text` as a QR code on white,
    as a phone held 30 cm from a tile would see it."""
    qr = qrcode.QRCode(border=4, box_size=6)
    qr.add_data(text)
    qr.make(fit=True)
    image = qr.make_image(fill_color="black", back_color="white").convert("L")
    side = min(360, HEIGHT - 40)
    image = image.resize((side, side), Image.Resampling.NEAREST)
    frame = Image.new("L", (WIDTH, HEIGHT), 255)
    frame.paste(image, ((WIDTH - side) // 2, (HEIGHT - side) // 2))
    luma = frame.tobytes()
    chroma = bytes([128]) * (WIDTH // 2 * HEIGHT // 2)
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(FRAMES):
            out.write(b"FRAME\n" + luma + chroma + chroma)
    return path


@pytest.fixture
def server(engine):
    server = Server(engine)
    server.start()
    yield server
    if server.server is not None and not server.server.should_exit:
        server.stop()


def camera_phone(browser, video: Path):
    """A second Chromium whose camera plays `video`; a 360 px phone context in it."""
    fake = browser.browser_type.launch(
        executable_path=str(CHROMIUM),
        args=[*CHROMIUM_ARGS, "--use-fake-ui-for-media-stream",
              "--use-fake-device-for-media-stream", f"--use-file-for-fake-video-capture={video}"],
    )  # fmt: skip
    context = new_context(fake, viewport={"width": 360, "height": 780}, device_scale_factor=1)
    context.grant_permissions(["camera"])
    return fake, context


def participant_with_codes(engine, external_id: str):
    with Session(engine) as db:
        event = make_event(db, name="Лесной рогейн")
        codes = random_codes(db, event)
        anna = make_participant(db, event, external_id, name="Анна")
        db.commit()
    return anna, codes


def stored_codes(engine) -> list[str]:
    with Session(engine) as db:
        return list(db.scalars(select(Take.code)))


@pytest.mark.parametrize("network", ["online", "offline"])
def test_the_in_app_scanner_records_the_take_of_a_tiles_qr(browser, server, tmp_path, network):
    anna, codes = participant_with_codes(server.engine, "81" if network == "online" else "82")
    video = write_y4m(tmp_path / "tile.y4m", f"{server.url}/t/{codes['QH'][0]}")
    fake, context = camera_phone(browser, video)
    try:
        with csp_watch(context):
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{server.url}/p/{anna.access_token}")
            page.wait_for_selector("html[data-offline=ready]", timeout=WAIT_MS)
            if network == "offline":
                server.stop()
                page.goto(f"{server.url}/me/offline")  # the shell, from the service worker
            page.click("#scan-button")
            page.wait_for_selector("#big-card", timeout=WAIT_MS)  # decoded, /t/{code} opened
            assert page.locator("#big-card").inner_text() == "Q♥"
            assert page.locator("#discard-code").inner_text() == codes["QH"][1]
            assert page.evaluate("document.documentElement.dataset.scanner") in (None, "jsqr")
            if network == "offline":
                assert page.locator("#take-status").get_attribute("data-pending") == "true"
                assert stored_codes(server.engine) == []
                server.start()
                page.click("#send-now")
            page.wait_for_selector("#queue-count[data-count='0']", timeout=WAIT_MS)
            assert stored_codes(server.engine) == [codes["QH"][0]]
            assert hand_shown(page) == ["Q♥"]
            screenshot(page, f"scanner-360-{network}-result")
            assert errors == []
    finally:
        context.close()
        fake.close()


def test_the_scanner_says_when_a_qr_is_not_a_cps(browser, server, tmp_path):
    """A QR that is not a CP's (a shop's link): the scanner says so and keeps scanning;
    Close turns the camera off. Screenshot of the scanner at 360 px."""
    anna, _ = participant_with_codes(server.engine, "83")
    video = write_y4m(tmp_path / "other.y4m", "https://shop.example.org/offer")
    fake, context = camera_phone(browser, video)
    try:
        with csp_watch(context):
            page = context.new_page()
            page.goto(f"{server.url}/p/{anna.access_token}")
            page.click("#scan-button")
            page.wait_for_selector("#scan-status:has-text('Это не QR-код КП')", timeout=WAIT_MS)
            assert page.url == f"{server.url}/me"
            ARTIFACTS.mkdir(exist_ok=True)  # the scanner fills the screen: the viewport
            page.screenshot(path=ARTIFACTS / "scanner-360-not-a-cp.png")
            page.click("#scan-close")
            assert page.locator("#scanner").count() == 0
            assert stored_codes(server.engine) == []
    finally:
        context.close()
        fake.close()


@pytest.mark.parametrize(
    ("agent", "warning"),
    [
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A; wv) AppleWebKit/537.36 "
         "(KHTML, like Gecko) Version/4.0 Chrome/126.0 Mobile Safari/537.36 [FBAN/EMA;FBAV/4]",
         "scan.in_app"),
        (None, None),
    ],
)  # fmt: skip
def test_an_in_app_browser_is_told_what_to_do(browser, server, agent, warning):
    """A messenger's built-in browser loses takes without network: /me says so plainly;
    Chromium itself gets no warning."""
    anna, _ = participant_with_codes(server.engine, "84")
    options = {"user_agent": agent} if agent else {}
    context = new_context(browser, viewport={"width": 360, "height": 780}, **options)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/p/{anna.access_token}")
        box = page.locator("[data-env-warning]")
        if warning is None:
            assert box.is_hidden()
        else:
            assert box.get_attribute("data-warning") == warning
            assert "встроенном браузере" in box.inner_text()
            screenshot(page, "scanner-360-in-app-warning")
    finally:
        context.close()


def test_a_home_screen_app_without_its_queue_is_told_what_to_do(browser, server):
    """An app added to the home screen (display-mode standalone) with nothing stored: the
    offline page says to open the personal link in it while online."""
    context = new_context(browser, viewport={"width": 360, "height": 780})
    try:
        page = context.new_page()
        page.add_init_script(
            "window.matchMedia = (q) => ({matches: q.includes('standalone'), media: q,"
            " addEventListener() {}, removeEventListener() {}});"
        )
        page.goto(f"{server.url}/me/offline")
        notice = page.locator("#standalone-not-ready")
        assert "личную ссылку" in notice.inner_text()
    finally:
        context.close()


REJECT_CAMERA = """
navigator.mediaDevices.getUserMedia = () =>
  Promise.reject(new DOMException("Requested device not found", "%s"));
"""


@pytest.mark.parametrize(
    ("error", "says", "lang"),
    [
        ("NotFoundError", "На этом устройстве нет камеры. Введите код", "ru"),
        ("OverconstrainedError", "На этом устройстве нет камеры.", "ru"),
        ("NotAllowedError", "Доступ к камере запрещён. Чтобы сканировать, разрешите", "ru"),
        ("NotReadableError", "Камера занята другим приложением.", "ru"),
        ("AbortError", "Камера не включилась.", "ru"),
        ("NotFoundError", "This device has no camera. Type the code", "en"),
    ],
)
def test_a_phone_without_a_camera_is_told_plainly_and_given_the_code_field(
    browser, server, error, says, lang
):
    """A phone whose camera does not start (getUserMedia rejects, as Chromium does with no
    camera device): the overlay closes, a plain notice (never the error's name) stands
    above the code field, which has the focus and is on screen at 360 px."""
    anna, _ = participant_with_codes(server.engine, "85")
    context = new_context(browser, viewport={"width": 360, "height": 780}, device_scale_factor=1)
    context.add_cookies([{"name": LANG_COOKIE, "value": lang, "url": server.url}])
    try:
        with csp_watch(context):
            context.add_init_script(REJECT_CAMERA % error)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{server.url}/p/{anna.access_token}")
            page.click("#scan-button")
            notice = page.locator("#scan-error")
            notice.wait_for()
            text = notice.inner_text()
            assert text.startswith(says)
            assert error not in text
            assert page.locator("#scanner").count() == 0
            field = page.locator("#code")
            assert field.is_visible()
            assert field.evaluate("f => document.activeElement === f")
            box, view = field.bounding_box(), page.viewport_size
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= view["height"]
            note = notice.bounding_box()
            assert note is not None and note["y"] > -1 and note["y"] + note["height"] <= box["y"]
            if error == "NotFoundError":  # what the participant sees: the viewport
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=ARTIFACTS / f"scanner-360-no-camera-{lang}.png")
            assert errors == []
    finally:
        context.close()


def test_the_offline_page_without_a_camera_gives_the_code_field(browser, server):
    """The same in the offline shell (server stopped): the notice above its code field."""
    anna, _ = participant_with_codes(server.engine, "86")
    context = new_context(browser, viewport={"width": 360, "height": 780}, device_scale_factor=1)
    try:
        context.add_init_script(REJECT_CAMERA % "NotFoundError")
        page = context.new_page()
        page.goto(f"{server.url}/p/{anna.access_token}")
        page.wait_for_selector("html[data-offline=ready]", timeout=WAIT_MS)
        server.stop()
        page.goto(f"{server.url}/me/offline")
        page.click("#scan-button")
        notice = page.locator("#code-form").locator("xpath=preceding-sibling::p[@id='scan-error']")
        notice.wait_for()
        assert notice.inner_text() == (
            "На этом устройстве нет камеры. Введите код, напечатанный под QR-кодом КП, в поле ниже."
        )
        assert page.locator("#scanner").count() == 0
        assert page.locator("#code").evaluate("f => document.activeElement === f")
    finally:
        context.close()
