/* The offline phone's app shell (/me/offline; the service worker also answers /t/{code}
 * with it): the entry module, which routes and records. Everything is read from the
 * device (device.js over store.js, IndexedDB):
 *
 * - a CP's QR page `/t/{code}` records the scan on the device first (queue: code, device
 *   time, a fresh source id) and shows the result at once: the card opened from the
 *   encrypted deck (deck.js) with its discard code, or why it did not count, the hand,
 *   deal and round, what to do next, and how many scans wait to be sent;
 * - discard and save codes (scanned or typed) ask for the same confirmation first;
 * - the device applies the rules itself (rules.js, a port of app/feed/rules.py) to the
 *   takes the server confirmed plus the queued ones, and shows the participant's view of
 *   them (view.js: seen cards only, RULES.md I-1, and the next step);
 * - the queue goes to the server in one batch (sync.js, POST /me/offline/sync) on the
 *   `online` event, every few seconds while it is not empty, and with the "send now"
 *   button; the server's outcomes replace the local ones and the page lists what changed.
 * Screens: render.js. No innerHTML: every text goes through textContent (ui.js).
 */
import { ctx, load, model, openCodes, allCodes, enqueue } from "./device.js";
import { renderConfirm, renderGame, renderHints, renderNotReady, renderResult, redrawSyncPanel, setActions, SHELL } from "./render.js";
import { classify } from "./rules.js";
import * as Store from "./store.js";
import { bundleUrl, onUpdate, refresh, sync } from "./sync.js";
import { mark } from "./ui.js";

var RETRY_MS = 4000;
var route = null;

function render() {
  if (route.name === "hints") return renderHints();
  var m = model();
  if (route.name === "result") renderResult(m, route.sourceId);
  else if (route.name === "confirm") renderConfirm(m, route.code, route.kind, route.card);
  else renderGame(m);
}

/* What a code would do now (nothing recorded): discard of a card in the hand, own save
 * code, or anything else. */
function classifyNow(code) {
  return openCodes(allCodes(code)).then(function () {
    var m = model(), c = classify(m.course, code);
    var inHand = c[0] === "discard" && c[1].card && m.state.hand.indexOf(c[1].card) >= 0;
    return { kind: c[0] === "save" ? "save" : inHand ? "discard" : "other", card: inHand ? c[1].card : null };
  });
}

/* A scanned or typed code: a discard or save code (or any typed code) asks first. */
function confirmCode(code, typed) {
  return classifyNow(code).then(function (what) {
    if (what.kind === "other" && !typed) return record(code);
    route = { name: "confirm", code: code, kind: what.kind, card: what.card };
    render();
  });
}

/* Record a take of `code` on the device, show its result, send it when online. */
function record(code) {
  var queued = enqueue(code);
  mark("rogaine-classified");
  return Promise.all([queued, openCodes([code])]).then(function (done) {
    var item = done[0];
    mark("rogaine-recorded");
    route = { name: "result", sourceId: item.source_id };
    history.replaceState(null, "", SHELL + "?take=" + encodeURIComponent(item.source_id));
    render();
    if (navigator.onLine) sync();
  });
}

setActions({ confirmCode: confirmCode, record: record });
onUpdate(function () {
  if (route && route.name !== "confirm") render();
  else if (route) redrawSyncPanel();
});

/* Signed in and online, but the bundle was never kept: fetch it now. */
function fetchBundle() {
  return fetch(bundleUrl(), { credentials: "same-origin", cache: "no-store" })
    .then(function (r) { return r.ok ? r.json() : null; })
    .then(function (bundle) {
      if (!bundle) return;
      ctx.bundle = bundle;
      return Store.put("bundle", bundle).then(function () { return Store.put("ready", true); });
    }).catch(function () {});
}

/* The route of this address: hints, a CP's QR page, a take's result or my game. */
function start() {
  if (!ctx.bundle) {
    route = { name: "not-ready" };
    return renderNotReady();
  }
  var path = location.pathname, params = new URLSearchParams(location.search);
  window.addEventListener("online", function () { sync(); });
  setInterval(function () { if (ctx.queue.length) sync(); }, RETRY_MS);
  if (path === "/me/hints") {  // offline: the service worker served the shell here
    route = { name: "hints" };
    return renderHints();
  }
  if (path.indexOf("/t/") === 0) {
    return confirmCode(decodeURIComponent(path.slice(3).replace(/\/$/, "")), false);
  }
  return openCodes(allCodes()).then(function () {
    route = params.get("take") ? { name: "result", sourceId: params.get("take") } : { name: "game" };
    render();
    if (ctx.queue.length) { if (navigator.onLine) sync(); } else if (navigator.onLine) refresh();
  });
}

mark("rogaine-start");
load().then(function () {
  mark("rogaine-loaded");
  if (!ctx.bundle) return fetchBundle();
}).then(start).catch(function (error) {
  document.getElementById("offline-app").textContent = String(error);
});
