/* The in-app QR scanner (issue 26 point 1), on /me and in the offline shell.
 *
 * A button `[data-scan]` opens the camera (getUserMedia, the back camera) full screen.
 * Frames are decoded by the browser's BarcodeDetector where it reads QR codes, else by
 * the vendored jsQR (app/static/vendor/jsqr/, loaded on first use, precached by the
 * service worker). A CP's QR holds `{BASE_URL}/t/{code}`: the scanner then opens
 * `/t/{code}` on this site — exactly what the phone's camera app does, so the service
 * worker answers it with the offline shell (the take is recorded on the device first),
 * or the server records it. A torch toggle appears where the camera has one.
 *
 * `[data-env-warning]` is filled with what to do in a browser that would lose takes: an
 * app's built-in browser, a browser without service workers, or a home-screen app (its
 * storage is not the browser's, where the camera app opens links).
 * When the camera does not start, the overlay closes and a notice says why in plain words
 * (no camera, access refused and how to allow it, camera busy: getUserMedia's error name
 * is never shown) just above the code field, which gets the focus (`#scan-error`).
 * Texts: the attribute `data-scanner-strings` (JSON, server pages) or the shell's
 * #offline-strings, keys `scan.*`. No innerHTML. An ES module: a page loads it with
 * `<script type="module">`, the offline shell imports it (`setUp` after each render).
 */
// jsQR under its content-hashed name (the one the service worker precaches), from the
// page's `data-jsqr` attribute (read when first needed); the plain name as a fallback.
function jsqrUrl() {
  var tag = document.querySelector("[data-jsqr]");
  return (tag && tag.getAttribute("data-jsqr")) || "/static/vendor/jsqr/jsQR.js";
}
var CP_URL = /\/t\/([^/?#\s]+)\/?(?:[?#].*)?$/i;
var EVERY_MS = 150; // one decode per 150 ms: enough for a hand-held phone, light on CPU
var S = null, open = null;
// getUserMedia's error names (DOMException.name; the older Chrome names too) -> the text.
var CAMERA_ERRORS = {
  NotFoundError: "scan.error.no_camera", DevicesNotFoundError: "scan.error.no_camera",
  OverconstrainedError: "scan.error.no_camera", NotAllowedError: "scan.error.denied",
  PermissionDeniedError: "scan.error.denied", SecurityError: "scan.error.denied",
  NotReadableError: "scan.error.busy", TrackStartError: "scan.error.busy"
};

function strings() {
  if (S) return S;
  var panel = document.querySelector("[data-scanner-strings]"), block = document.getElementById("offline-strings");
  S = panel ? JSON.parse(panel.getAttribute("data-scanner-strings")) : block ? JSON.parse(block.textContent) : {};
  return S;
}
function t(key, values) {
  var text = strings()[key] || key;
  return values ? text.replace(/\{(\w+)\}/g, function (m, k) { return values[k] === undefined ? m : String(values[k]); }) : text;
}
function el(tag, attrs, text) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  if (text) node.textContent = text;
  return node;
}

/* The code of a CP's QR (`…/t/{code}`), or null for any other QR. */
function cpCode(text) {
  var match = CP_URL.exec(String(text || "").trim());
  return match ? decodeURIComponent(match[1]) : null;
}

function loadJsQR() {
  if (window.jsQR) return Promise.resolve(window.jsQR);
  return new Promise(function (resolve, reject) {
    var script = el("script", { src: jsqrUrl() });
    script.onload = function () { resolve(window.jsQR); };
    script.onerror = function () { reject(new Error("jsQR")); };
    document.head.appendChild(script);
  });
}

/* A decoder: a function(video) -> Promise of the text of a QR in the frame, or null. */
function decoder() {
  var native = window.BarcodeDetector && BarcodeDetector.getSupportedFormats
    ? BarcodeDetector.getSupportedFormats().then(function (formats) {
      return formats.indexOf("qr_code") >= 0 ? new BarcodeDetector({ formats: ["qr_code"] }) : null;
    }, function () { return null; })
    : Promise.resolve(null);
  return native.then(function (detector) {
    if (detector) {
      document.documentElement.setAttribute("data-scanner", "native");
      return function (video) {
        return detector.detect(video).then(function (codes) { return codes.length ? codes[0].rawValue : null; });
      };
    }
    return loadJsQR().then(function (jsQR) {
      document.documentElement.setAttribute("data-scanner", "jsqr");
      var canvas = document.createElement("canvas"), ctx = canvas.getContext("2d", { willReadFrequently: true });
      return function (video) {
        var w = video.videoWidth, h = video.videoHeight;
        if (!w || !h) return Promise.resolve(null);
        var scale = Math.min(1, 640 / Math.max(w, h));
        canvas.width = Math.round(w * scale);
        canvas.height = Math.round(h * scale);
        ctx.drawImage(video, 0, 0, canvas.width, canvas.height);
        var image = ctx.getImageData(0, 0, canvas.width, canvas.height);
        var found = jsQR(image.data, image.width, image.height, { inversionAttempts: "attemptBoth" });
        return Promise.resolve(found ? found.data : null);
      };
    });
  });
}

function close() {
  if (!open) return;
  open.stopped = true;
  if (open.stream) open.stream.getTracks().forEach(function (track) { track.stop(); });
  open.overlay.remove();
  document.documentElement.removeAttribute("data-scanning");
  open = null;
}

/* The key of the text for a failed getUserMedia (an error, or null without the API). */
function errorKey(error) {
  if (error === null) return "scan.error.unsupported";
  var name = error && error.name;
  return Object.prototype.hasOwnProperty.call(CAMERA_ERRORS, name) ? CAMERA_ERRORS[name] : "scan.error.other";
}

/* The camera did not start: close the overlay and say why next to the code field, focused
 * (on a page without one, in the scan panel of the button pressed). */
function failed(origin, key) {
  close();
  document.querySelectorAll("#scan-error").forEach(function (node) { node.remove(); });
  var field = document.getElementById("code"), form = field && field.form;
  var notice = el("p", { class: "notice bad", role: "alert", id: "scan-error", "data-error": key },
    t(key) + " " + t(form ? "scan.type_code" : "scan.type_code_game"));
  if (form) {
    form.parentNode.insertBefore(notice, form);
    (form.closest(".panel") || notice).scrollIntoView({ block: "start" });
    field.focus({ preventScroll: true });
    return;
  }
  var panel = origin && origin.closest ? origin.closest(".scan-panel") : null;
  (panel || document.querySelector("main") || document.body).appendChild(notice);
  notice.scrollIntoView({ block: "nearest" });
}

function torchButton(track, bar) {
  var caps = track.getCapabilities ? track.getCapabilities() : {};
  if (!caps.torch) return;
  var on = false, button = el("button", { type: "button", class: "secondary", id: "scan-torch", "aria-pressed": "false" }, t("scan.torch"));
  button.addEventListener("click", function () {
    on = !on;
    track.applyConstraints({ advanced: [{ torch: on }] }).then(function () {
      button.setAttribute("aria-pressed", String(on));
    }, function () { on = !on; });
  });
  bar.insertBefore(button, bar.firstChild);
}

function start(origin) {
  if (open) return;
  document.querySelectorAll("#scan-error").forEach(function (node) { node.remove(); });
  var video = el("video", { id: "scan-video", autoplay: "", muted: "", playsinline: "" });
  video.muted = true;
  var status = el("p", { id: "scan-status", class: "scan-status", "aria-live": "polite" }, t("scan.hint"));
  var bar = el("div", { class: "scan-bar" });
  var shut = el("button", { type: "button", id: "scan-close" }, t("scan.close"));
  shut.addEventListener("click", close);
  bar.appendChild(shut);
  var overlay = el("div", { class: "scanner", id: "scanner", role: "dialog", "aria-modal": "true", "aria-label": t("scan.button") });
  overlay.appendChild(video);
  overlay.appendChild(status);
  overlay.appendChild(bar);
  document.body.appendChild(overlay);
  document.documentElement.setAttribute("data-scanning", "starting");
  open = { overlay: overlay, stream: null, stopped: false };
  var session = open;
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    failed(origin, errorKey(null));
    return;
  }
  navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" } }, audio: false })
    .then(function (stream) {
      session.stream = stream;
      if (session.stopped) { stream.getTracks().forEach(function (x) { x.stop(); }); return null; }
      video.srcObject = stream;
      torchButton(stream.getVideoTracks()[0], bar);
      return Promise.all([video.play(), decoder()]);
    })
    .then(function (both) {
      if (!both || session.stopped) return;
      document.documentElement.setAttribute("data-scanning", "on");
      loop(session, video, status, both[1]);
    })
    .catch(function (error) {
      if (!session.stopped) failed(origin, errorKey(error));
    });
}

function loop(session, video, status, decode) {
  if (session.stopped) return;
  decode(video).then(function (text) {
    if (session.stopped) return;
    var code = text ? cpCode(text) : null;
    if (code) {
      close();
      // The same path as the camera app opening the QR's link: /t/{code} on this site.
      location.assign("/t/" + encodeURIComponent(code));
      return;
    }
    if (text) status.textContent = t("scan.not_cp");
    setTimeout(function () { loop(session, video, status, decode); }, EVERY_MS);
  }, function () {
    setTimeout(function () { loop(session, video, status, decode); }, EVERY_MS);
  });
}

/* What to tell a participant whose browser would lose takes (issue 26 point 1). */
function environmentWarning() {
  var ua = navigator.userAgent || "";
  if (/FBAN|FBAV|Instagram|Line\/|MicroMessenger|VKClient|Telegram|; wv\)/.test(ua)) return "scan.in_app";
  if (!("serviceWorker" in navigator)) return "scan.no_offline";
  var standalone = navigator.standalone === true ||
    (window.matchMedia && window.matchMedia("(display-mode: standalone)").matches);
  if (standalone) return "scan.standalone";
  return null;
}

function setUp() {
  var key = environmentWarning();
  document.querySelectorAll("[data-env-warning]").forEach(function (node) {
    if (!key) { node.hidden = true; return; }
    node.hidden = false;
    node.setAttribute("data-warning", key);
    node.textContent = t(key);
  });
}

document.addEventListener("click", function (event) {
  var target = event.target && event.target.closest ? event.target.closest("[data-scan]") : null;
  if (!target) return;
  event.preventDefault();
  start(target);
});
document.addEventListener("keydown", function (event) { if (event.key === "Escape") close(); });
window.addEventListener("pagehide", close);
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
else setUp();
export { setUp, cpCode, close };
