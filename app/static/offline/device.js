/* The offline shell's data on the device (IndexedDB through store.js) and the model the
 * pages draw: the bundle (/me/offline.json), the queue of takes waiting to be sent, the
 * deck entries opened so far (deck.js), the source ids the server stored, the last
 * changes and this device's id; `model()` runs the rules engine over the confirmed takes
 * plus the queued ones and gives the participant's view (view.js). */
import * as Store from "./store.js";
import { openEntry } from "./deck.js";
import { normalizeCode } from "./rules.js";
import { participantView, shownCard } from "./view.js";

/* What the shell holds in memory: `bundle`, `queue` (oldest first, this participant's
 * and event's only), `opened` (code -> {n, c, d} or null), `synced` (source id -> take
 * id), `changes` (texts of the last sync), `device` (`phone-<hex>`). */
export var ctx = { bundle: null, queue: [], opened: {}, synced: {}, changes: [], device: null };

/* µs since the epoch of an ISO datetime with up to 6 fractional digits. */
export function micros(iso) {
  var frac = /\.(\d+)/.exec(iso);
  var whole = Date.parse(iso.replace(/\.\d+/, ""));
  return whole * 1000 + (frac ? parseInt((frac[1] + "000000").slice(0, 6), 10) : 0);
}

/* `bytes` random bytes as lowercase hex. */
export function hex(bytes) {
  var a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return Array.prototype.map.call(a, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
}

/* Read the device's data into `ctx` (made by the service worker into the page, or read
 * from IndexedDB); a first start makes the device's id. */
export function load() {
  var reading = Store.preloaded || Store.getMany(Store.KEYS);
  return reading.then(function (kv) {
    ctx.bundle = kv.bundle;
    ctx.opened = kv.opened || {};
    ctx.synced = kv.synced || {};
    ctx.changes = kv.changes || [];
    ctx.device = kv.device;
    if (!ctx.device) {
      ctx.device = "phone-" + hex(8);
      Store.put("device", ctx.device);
    }
    var me = ctx.bundle && ctx.bundle.participant.external_id;
    ctx.queue = kv.queue.filter(function (q) {
      return ctx.bundle && q.participant === me && q.event === ctx.bundle.event.id;
    });
  });
}

/* Open (once) the deck entries of every code the engine will see. */
export function openCodes(codes) {
  var todo = [];
  codes.forEach(function (code) {
    var n = normalizeCode(code);
    if (n && !Object.prototype.hasOwnProperty.call(ctx.opened, n) && todo.indexOf(n) < 0) todo.push(n);
  });
  if (!todo.length) return Promise.resolve();
  return Promise.all(todo.map(function (n) {
    return openEntry(ctx.bundle.deck, n).then(function (entry) { ctx.opened[n] = entry; },
      function () { ctx.opened[n] = null; });
  })).then(function () {
    Store.put("opened", ctx.opened).catch(function () {}); // a cache: not waited for
  });
}

/* The codes of the confirmed and queued takes (and `extra`). */
export function allCodes(extra) {
  var codes = ctx.bundle.state.takes.map(function (x) { return x.code; });
  ctx.queue.forEach(function (q) { codes.push(q.code); });
  if (extra) codes.push(extra);
  return codes;
}

/* The rules engine's course from the opened entries (a CP's number is its id here),
 * with `entryOf` (card -> its opened entry {n, c, d}). */
function course() {
  var b = ctx.bundle, checkpoints = {}, discards = {}, entryOf = {};
  Object.keys(ctx.opened).forEach(function (code) {
    var e = ctx.opened[code];
    if (!e) return;
    var ref = { checkpoint_id: e.n, number: e.n, card: e.c };
    checkpoints[code] = ref;
    discards[e.d] = ref;
    entryOf[e.c] = e;
  });
  return {
    opens_at: micros(b.event.opens_at), closes_at: micros(b.event.closes_at),
    checkpoints: checkpoints, discards: discards, save_codes: b.save_codes, entryOf: entryOf
  };
}

/* The game as the pages draw it: the participant's view (view.js) of the confirmed takes
 * (not voided) plus the queued ones (ids after the server's, in queue order), with
 * `byId` (take id -> the view's take), `queuedIds` (source id -> local take id),
 * `closed` (the course is over, RULES.md I-3: no next step, no scanner, no code form),
 * `seen` as a set and `entryOf` (card -> its opened deck entry). */
export function model() {
  var c = course(), takes = [], maxId = 0, queuedIds = {}, byId = {}, seen = {};
  ctx.bundle.state.takes.forEach(function (x) {
    maxId = Math.max(maxId, x.take_id);
    if (!x.voided) takes.push({ take_id: x.take_id, code: x.code, taken_at: micros(x.taken_at) });
  });
  ctx.queue.forEach(function (q, i) {
    queuedIds[q.source_id] = maxId + 1 + i;
    takes.push({ take_id: maxId + 1 + i, code: q.code, taken_at: micros(q.taken_at) });
  });
  var view = participantView(takes, c);
  view.takes.forEach(function (x) { byId[x.take_id] = x; });
  view.seen.forEach(function (card) { seen[card] = true; });
  return {
    view: view, course: c, state: view.state, byId: byId, queuedIds: queuedIds, seen: seen,
    entryOf: c.entryOf, closed: Date.now() * 1000 >= c.closes_at
  };
}

/* The card of a take the server confirmed, as its participant sees it (RULES.md I-1). */
export function serverCard(m, take) {
  return shownCard(take.card, take.reason, m.seen);
}

/* Put a take of `code` at the end of the queue (IndexedDB first); the queued item. */
export function enqueue(code) {
  var last = ctx.queue.length ? ctx.queue[ctx.queue.length - 1].seq : 0;
  var item = {
    source_id: "pwa-" + hex(16), code: code, taken_at: new Date().toISOString(),
    seq: Math.max(Date.now(), last + 1), participant: ctx.bundle.participant.external_id,
    event: ctx.bundle.event.id
  };
  ctx.queue.push(item);
  return Store.enqueue(item).then(function () { return item; });
}
