/* Sending the queue and fetching the bundle: the queue goes to the server in batches
 * (POST /me/offline/sync), the server's outcomes replace the local ones and `ctx.changes`
 * lists what changed; `refresh` takes the server's latest bundle when nothing waits.
 * After each the page is drawn again through the function given to `onUpdate`. */
import * as Store from "./store.js";
import { ctx, model, openCodes, allCodes } from "./device.js";
import { classify, normalizeCode } from "./rules.js";
import { t, cardText } from "./ui.js";

var BATCH = 500; // takes per sync request (the server takes at most 1000)

/* The last sync's status line (empty before the first) and the running sync. */
export var syncState = { status: "", running: null };
var redraw = function () {};

/* The function that draws the page again after a sync or a refresh (app.js). */
export function onUpdate(fn) {
  redraw = fn;
}

/* How a change names a take: a CP by its number, a discard or save code by its kind
 * (and the card, when the participant has seen it); never the code itself (it is secret
 * and 24 characters do not fit a phone). */
function label(m, takeId, code) {
  var o = m.byId[takeId], entry = ctx.opened[normalizeCode(code)];
  var card = o ? o.card : null; // the view's take: shown only once seen (view.js)
  if (entry) return t("take.cp", { number: entry.n }) + (card ? " (" + cardText(card) + ")" : "");
  var c = classify(m.course, code), kind = c[0] === "discard" || c[0] === "save" ? c[0] : "unknown";
  return t("kind." + kind) + (card ? " " + cardText(card) : "");
}
function words(outcome, reason) {
  return outcome === "counted" ? t("outcome.counted") : t("outcome.rejected") + " (" + t("reason." + reason) + ")";
}

/* The texts of what the server decided otherwise than the device (its answer `data` to
 * `batch`), and the source ids it took. */
function changesOf(before, batch, data) {
  var done = [], changes = [], oldTakes = {};
  ctx.bundle.state.takes.forEach(function (x) { oldTakes[x.take_id] = x; });
  data.results.forEach(function (res, i) {
    var q = batch[i];
    done.push(q.source_id);
    if (res.status === "error") {
      changes.push(label(before, before.queuedIds[q.source_id], q.code) + ": " + t("offline.not_recorded") + " " + res.error.detail);
      return;
    }
    ctx.synced[q.source_id] = res.take_id;
    var local = before.byId[before.queuedIds[q.source_id]];
    if (local && (local.outcome !== res.outcome || local.reason !== res.reason)) {
      changes.push(label(before, local.take_id, q.code) + ": " + words(local.outcome, local.reason) + " \u2192 " + words(res.outcome, res.reason));
    }
  });
  data.state.takes.forEach(function (x) {  // confirmed takes the server changed since
    var old = oldTakes[x.take_id];
    if (old && (old.outcome !== x.outcome || old.reason !== x.reason)) {
      changes.push(label(before, x.take_id, x.code) + ": " + words(old.outcome, old.reason) + " \u2192 " + words(x.outcome, x.reason));
    }
  });
  return { done: done, changes: changes };
}

/* Send the queue's first batch (then the next ones); the running sync's promise. */
export function sync() {
  if (syncState.running || !ctx.bundle || !ctx.queue.length) return syncState.running || Promise.resolve();
  var batch = ctx.queue.slice(0, BATCH), before = model(), sent = false;
  var body = {
    source: ctx.device, sent_at: new Date().toISOString(),
    takes: batch.map(function (q) { return { code: q.code, taken_at: q.taken_at, source_id: q.source_id }; })
  };
  syncState.running = fetch("/me/offline/sync", {
    method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body)
  }).then(function (response) {
    if (response.status === 401) syncState.status = t("offline.signed_out");
    if (!response.ok) throw new Error(String(response.status));
    return response.json();
  }).then(function (data) {
    var result = changesOf(before, batch, data);
    ctx.bundle.state = data.state;
    ctx.queue = ctx.queue.filter(function (q) { return result.done.indexOf(q.source_id) < 0; });
    ctx.changes = result.changes;
    syncState.status = t("offline.sent", { count: result.done.length });
    sent = true;
    return Promise.all([Store.put("bundle", ctx.bundle), Store.put("synced", ctx.synced),
      Store.put("changes", result.changes), Store.dequeue(result.done)]);
  }).then(function () {
    return openCodes(allCodes());
  }, function () {
    if (syncState.status !== t("offline.signed_out")) syncState.status = t("offline.send_failed");
  }).then(function () {
    syncState.running = null;
    if (sent && ctx.queue.length) setTimeout(sync, 0); // more than one batch waited
    redraw();
  });
  return syncState.running;
}

/* The bundle's address with this device's id and clock (a contact: the server keeps
 * what it learns of the device's clock, RULES.md I-22). */
export function bundleUrl() {
  return "/me/offline.json?device=" + ctx.device + "&at=" + encodeURIComponent(new Date().toISOString());
}

/* Online with nothing queued: take the server's latest bundle, then draw again. */
export function refresh() {
  return fetch(bundleUrl(), { credentials: "same-origin", cache: "no-store" }).then(function (r) {
    if (!r.ok) return;
    return r.json().then(function (bundle) {
      if (syncState.running || ctx.queue.length) return;
      if (!bundle.state.takes.length) ctx.opened = {};
      ctx.bundle = bundle;
      return Store.put("bundle", bundle).then(function () { return openCodes(allCodes()); })
        .then(function () { redraw(); });
    });
  }).catch(function () {});
}
