/* The offline shell's screens, drawn from `model()` (device.js) with the classes of
 * app.css, as the server's pages draw them: my game, a take's result, a code's
 * confirmation, the CPs' hints, "not ready". Cards come only from the participant's view
 * (view.js, RULES.md I-1). What the buttons do comes from app.js (`setActions`). */
import { ctx, micros, serverCard } from "./device.js";
import { evaluate, handValue, normalizeCode } from "./rules.js";
import { setUp as setUpScanner } from "./scanner.js";
import { sync, syncState } from "./sync.js";
import { t, lang, cardText, colour, el, mark } from "./ui.js";

export var SHELL = "/me/offline";
var root = document.getElementById("offline-app");
var actions = { confirmCode: function () {}, record: function () {} };

/* What the code form and the confirmation button do: {confirmCode(code, typed), record(code)}. */
export function setActions(given) {
  actions = given;
}

function chip(card, small) {
  return el("li", { class: "playing-card " + colour(card) + (small ? " small" : "") },
    el("span", { text: cardText(card) }));
}
// A hand card with its discard code under it, as the server's hand panel draws it
// (participant/_cards.html `hand_card`: one row of five at 360 px, 16 px codes).
function handSlot(card, discardCode) {
  return el("li", { class: "hand-slot" },
    el("span", { class: "playing-card " + colour(card), text: cardText(card) }),
    discardCode ? el("span", { class: "dc mono", "aria-label": t("game.discard_code") + " " + discardCode, text: discardCode }) : null);
}
function nextStepText(v) {
  var text = v.next === "collect" ? t("next.collect", { count: v.missing })
    : v.next === "draw" ? t("next.draw", { count: v.missing }) : t("next." + v.next);
  if (v.save_codes_left === 0) text += " " + t("next.no_save_codes");
  return text;
}
function handPanel(m) {
  var v = m.view, list = null, value = handValue(m.state.hand, lang);
  if (v.hand.length) {
    list = el("ul", { class: "cards hand", id: "hand" });
    v.hand.forEach(function (h) { list.appendChild(handSlot(h.card, h.discard_code)); });
  }
  return el("section", { class: "panel", "aria-labelledby": "hand-title" },
    el("p", { class: "status-line", id: "deal-round", text: t("game.deal_round", { deal: v.deal, round: v.round }) }),
    el("h2", { id: "hand-title", text: t("game.hand", { count: v.hand.length }) }),
    list || el("p", { text: t("game.hand_empty") }),
    value ? el("p", { class: "hand-value", id: "hand-value", text: t("game.value", { value: value }) }) : null,
    m.closed ? null : el("p", { class: "next-step", text: nextStepText(v) }));
}
/* A saved combination's description in the page language (as the server's pages). */
function described(cards) {
  var v = evaluate(cards);
  return lang === "ru" ? v.description_ru : v.description;
}

/* The queue's count, "send now", the last sync's status and changes. */
export function syncPanel() {
  var count = ctx.queue.length;
  var button = el("button", { type: "button", class: "block secondary", id: "send-now", text: t("offline.send_now") });
  button.addEventListener("click", function () { sync(); });
  var panel = el("section", { class: "panel", id: "sync-panel", "aria-live": "polite" },
    el("p", { id: "queue-count", "data-count": String(count),
      text: count ? t("offline.queued", { count: count }) : t("offline.all_sent") }),
    count ? el("div", { class: "actions" }, button) : null,
    syncState.status ? el("p", { class: "help", id: "sync-status", text: syncState.status }) : null);
  if (ctx.changes.length) {
    var list = el("ul", { id: "changes" });
    ctx.changes.forEach(function (c) { list.appendChild(el("li", { text: c })); });
    panel.appendChild(el("div", { class: "notice info", role: "status" },
      el("strong", { text: t("offline.changed") }), list));
  }
  return panel;
}
function show(nodes, view) {
  root.textContent = "";
  nodes.forEach(function (n) { if (n) root.appendChild(n); });
  document.documentElement.setAttribute("data-view", view || "");
}

/* The in-app scanner's button (scanner.js): the same path as the camera app opening
 * /t/{code}; on my game and on each result (the next CP). */
function scanPanel() {
  return el("section", { class: "panel scan-panel", "aria-label": t("scan.button") },
    el("p", { class: "notice bad env-warning", role: "alert", "data-env-warning": "", hidden: "hidden" }),
    el("div", { class: "actions" }, el("button", { type: "button", class: "block scan-button", id: "scan-button",
      "data-scan": "", text: t("scan.button") })),
    el("p", { class: "help", text: t("game.scan_hint") }));
}

/* The result of a take as the page shows it (the participant's view, RULES.md I-1):
 * a queued take's from the device's view, a confirmed one's from the server's log. */
function resultOf(m, sourceId) {
  var takeId = m.queuedIds[sourceId], pending = takeId !== undefined, o;
  if (pending) o = m.byId[takeId];
  else {
    takeId = ctx.synced[sourceId];
    var server = ctx.bundle.state.takes.filter(function (x) { return x.take_id === takeId; })[0];
    if (!server) return null;
    var card = serverCard(m, server), entry = card ? m.entryOf[card] : null;
    o = { kind: server.kind, outcome: server.outcome, reason: server.reason, card: card, voided: server.voided,
      checkpoint: entry ? entry.n : null,
      discard_code: entry && server.kind === "card" && server.outcome === "counted" ? entry.d : null };
  }
  var combination = null;
  m.state.combinations.forEach(function (c) { if (c.id === takeId) combination = c; });
  return {
    pending: pending, kind: o.kind, outcome: o.outcome, reason: o.reason, card: o.card,
    checkpoint: o.card ? o.checkpoint : null, voided: !!o.voided,
    discard_code: o.discard_code, combination: combination
  };
}

function resultNodes(r) {
  var nodes = [];
  if (r.outcome === "counted" && r.kind === "card") {
    nodes.push(el("h1", { text: t("take.counted") }),
      el("p", { class: "muted", text: (r.checkpoint ? t("take.cp", { number: r.checkpoint }) + " \u00b7 " : "") + t("take.your_card") }),
      el("div", { class: "big-card " + colour(r.card), id: "big-card", role: "img",
        "aria-label": t("take.your_card") + ": " + cardText(r.card), text: cardText(r.card) }));
    if (r.discard_code) {
      nodes.push(el("p", { class: "discard-code" }, t("game.discard_code"),
        el("span", { class: "mono", id: "discard-code", text: r.discard_code })));
    }
  } else if (r.outcome === "counted" && r.kind === "discard") {
    nodes.push(el("h1", { text: t("take.discarded", { card: cardText(r.card) }) }));
  } else if (r.outcome === "counted" && r.kind === "save") {
    nodes.push(el("h1", { text: t("take.saved") }));
    if (r.combination) {
      var cards = el("ul", { class: "cards", id: "combination" });
      r.combination.cards.forEach(function (c) { cards.appendChild(chip(c)); });
      nodes.push(cards, el("p", { class: "status-line" }, el("span", { id: "category", text: t("category." + r.combination.category) }),
        " ", el("span", { class: "muted", text: "(" + described(r.combination.cards) + ")" })));
    }
  } else {
    nodes.push(el("h1", { text: t("take.not_counted") }),
      el("div", { class: "notice bad", role: "alert", id: "reason", "data-reason": r.reason || "" },
        el("strong", { text: (r.checkpoint ? t("take.cp", { number: r.checkpoint }) + ": " : "") + t("outcome.rejected") }),
        " " + t("reason." + r.reason)));
  }
  return nodes;
}

/* A take's result, then the hand, the queue and the scanner. */
export function renderResult(m, sourceId) {
  var r = resultOf(m, sourceId);
  if (!r) return renderGame(m);
  var nodes = resultNodes(r);
  nodes.push(el("p", { class: "help", id: "take-status", "data-pending": String(r.pending),
    text: r.pending ? t("offline.on_device") : t("offline.confirmed") }));
  nodes.push(handPanel(m), syncPanel(),
    m.closed ? null : scanPanel(),
    el("div", { class: "actions" }, el("a", { class: "button block", href: SHELL, text: t("take.to_game") })));
  show(nodes, "result");
  setUpScanner();
  mark("rogaine-result");
}

/* What a discard or save code (or, typed, any code) would do, with "yes" and "cancel". */
export function renderConfirm(m, code, kind, card) {
  var n = normalizeCode(code) || code, nodes = [el("h1", { text: t("confirm.title") })];
  var panel = el("div", { class: "panel" }), yes;
  if (kind === "discard") {
    panel.appendChild(el("p", { text: t("confirm.discard_code", { code: n }) }));
    panel.appendChild(el("ul", { class: "cards" }, chip(card)));
    panel.appendChild(el("p", { class: "next-step", text: t("confirm.discard", { card: cardText(card) }) }));
    yes = t("confirm.yes_discard");
  } else if (kind === "save") {
    var cards = el("ul", { class: "cards" });
    m.view.hand.forEach(function (h) { cards.appendChild(chip(h.card)); });
    panel.appendChild(el("p", { text: t("confirm.save_code", { code: n }) }));
    panel.appendChild(cards);
    panel.appendChild(el("p", { class: "next-step", text: t("confirm.save") }));
    yes = t("confirm.yes_save");
  } else {
    panel.appendChild(el("p", { class: "next-step", text: t("confirm.other", { code: n }) }));
    yes = t("confirm.yes_record");
  }
  var button = el("button", { type: "button", class: "danger block", id: "confirm-yes", text: yes });
  button.addEventListener("click", function () { button.disabled = true; actions.record(code); });
  var cancel = el("a", { class: "button secondary block", href: SHELL, text: t("common.cancel") });
  panel.appendChild(el("div", { class: "actions" }, button));
  panel.appendChild(el("div", { class: "actions" }, cancel));
  nodes.push(panel, handPanel(m));
  show(nodes, "confirm");
}

/* My takes, newest first: the server's, then the queued ones marked "waiting". */
function takeList(m) {
  var zone = ctx.bundle.event.timezone, rows = [];
  ctx.bundle.state.takes.forEach(function (x) {
    rows.push({ at: x.taken_at, o: { kind: x.kind, outcome: x.outcome, reason: x.reason, card: serverCard(m, x) },
      voided: x.voided, pending: false });
  });
  ctx.queue.forEach(function (q) {
    rows.push({ at: q.taken_at, o: m.byId[m.queuedIds[q.source_id]], voided: false, pending: true });
  });
  if (!rows.length) return null;
  rows.sort(function (a, b) { return micros(b.at) - micros(a.at); });
  var list = el("ol", { class: "take-list", id: "takes" });
  rows.forEach(function (r) { list.appendChild(takeRow(r, zone)); });
  return el("section", { class: "panel", "aria-labelledby": "takes-title" },
    el("h2", { id: "takes-title", text: t("game.takes") }), list);
}
function takeRow(r, zone) {
  var card = r.o.card, when;
  try {
    when = new Date(r.at).toLocaleTimeString(lang, { timeZone: zone, hour: "2-digit", minute: "2-digit" });
  } catch (e) { when = r.at.slice(11, 16); }
  var what = el("span", { class: "what" }, r.o.kind !== "card" ? t("kind." + r.o.kind) + " " : "",
    card ? el("strong", { class: colour(card), text: cardText(card) }) : null);
  var tag = r.voided ? el("span", { class: "tag info", text: t("outcome.voided") })
    : el("span", { class: "tag " + (r.o.outcome === "counted" ? "ok" : "bad"), text: t("outcome." + r.o.outcome) });
  return el("li", { class: r.pending ? "pending" : r.o.outcome }, el("span", { class: "when", text: when }),
    what, tag, r.pending ? el("span", { class: "tag info", text: t("offline.pending") }) : null,
    !r.voided && r.o.outcome !== "counted" ? el("span", { class: "why", text: t("reason." + r.o.reason) }) : null);
}

/* The code form; after the close a notice instead (as the server's `code_form`). */
function codePanel(m, form) {
  var panel = el("section", { class: "panel", "aria-labelledby": "code-title" },
    el("h2", { id: "code-title", text: t("game.enter_code") }));
  if (m.closed) {
    panel.appendChild(el("p", { class: "notice info", role: "status", id: "codes-closed",
      text: t("game.course_closed") + " " + t("game.course_closed_codes") }));
  } else {
    panel.appendChild(form);
    panel.appendChild(el("p", { class: "help", text: t("game.save_codes_left", { count: m.view.save_codes_left }) }));
  }
  return panel;
}
/* The course's notices: not open yet, or closed (with the ceremony) and the unsaved hand. */
function courseNotices(m) {
  var hand = m.view.hand.length;
  if (Date.now() * 1000 < m.course.opens_at) return [el("p", { class: "notice info", role: "status", text: t("game.course_before") })];
  if (!m.closed) return [];
  return [el("p", { class: "notice info", role: "status", id: "course-closed" }, t("game.course_closed") + " ",
    el("a", { href: "/me/ceremony", text: t("game.ceremony_link") })),
  hand ? el("p", { class: "notice bad", role: "status", id: "unsaved-hand", text: t("game.unsaved_after_close", { count: hand }) }) : null];
}
function codeForm() {
  var input = el("input", { id: "code", name: "code", type: "text", class: "code-input", autocomplete: "off",
    autocapitalize: "characters", spellcheck: "false", "aria-describedby": "code-help", required: "required" });
  var form = el("form", { id: "code-form" },
    el("label", { for: "code", text: t("game.code_label") }),
    el("p", { class: "help", id: "code-help", text: t("game.code_help") }), input,
    el("div", { class: "actions" }, el("button", { type: "submit", class: "block", text: t("game.check_code") })));
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var code = input.value.trim();
    if (code) actions.confirmCode(code, true);
  });
  return form;
}
function combinationsPanel(m) {
  var combos = el("section", { class: "panel", "aria-labelledby": "combos-title" },
    el("h2", { id: "combos-title", text: t("game.combinations") }));
  if (!m.view.combinations.length) combos.appendChild(el("p", { text: t("game.no_combinations") }));
  m.view.combinations.forEach(function (c) {
    var cards = el("ul", { class: "cards" });
    c.cards.forEach(function (card) { cards.appendChild(chip(card, true)); });
    combos.appendChild(el("div", { class: "combo" }, cards, el("span", { class: "category", text: t("category." + c.category) }),
      el("span", { class: "muted", text: described(c.cards) })));
  });
  return combos;
}

/* My game: hand, next step, scanner, queue, code form, combinations, takes. */
export function renderGame(m) {
  var b = ctx.bundle;
  show([el("h1", { text: t("game.title") }),
    el("p", { text: t("game.hello", { name: b.participant.name }) + " \u00b7 " + b.event.name })]
    .concat(courseNotices(m), [handPanel(m), m.closed ? null : scanPanel(),
      el("p", {}, el("a", { class: "button secondary block", id: "hints-link", href: "/me/hints", text: t("hints.link") })),
      syncPanel(), codePanel(m, codeForm()), combinationsPanel(m), takeList(m)]), "game");
  setUpScanner();
}

/* A GPX file of the CPs with coordinates (made on the phone, issue 26 point 6). */
function gpx(rows) {
  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  var points = rows.filter(function (r) { return r.lat !== null && r.lon !== null; }).map(function (r) {
    return '  <wpt lat="' + r.lat + '" lon="' + r.lon + '"><name>' + r.number + "</name><desc>" + esc(r.hint || "") + "</desc></wpt>";
  });
  return '<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="rogaine-poker" xmlns="http://www.topografix.com/GPX/1/1">\n' +
    "  <metadata><name>" + esc(ctx.bundle.event.name) + "</name></metadata>\n" + points.join("\n") + "\n</gpx>\n";
}

/* The CPs' numbers, coordinates and hints from the bundle (public: no card, no code). */
export function renderHints() {
  var rows = ctx.bundle.checkpoints;
  if (!rows) {
    show([el("h1", { text: t("hints.title") }), el("p", { class: "notice info", text: t("hints.not_ready") })], "hints");
    return;
  }
  var link = el("a", { class: "button secondary", id: "gpx-link", download: "event-" + ctx.bundle.event.id + "-checkpoints.gpx",
    href: URL.createObjectURL(new Blob([gpx(rows)], { type: "application/gpx+xml" })), text: t("hints.gpx") });
  var list = el("ol", { class: "hint-list", id: "hints" });
  rows.forEach(function (r) {
    list.appendChild(el("li", { "data-number": String(r.number) }, el("strong", { text: t("take.cp", { number: r.number }) }),
      r.lat !== null && r.lon !== null ? el("span", { class: "mono coords", text: r.lat.toFixed(6) + ", " + r.lon.toFixed(6) }) : null,
      r.hint ? el("span", { class: "hint", text: r.hint }) : null));
  });
  show([el("h1", { text: t("hints.title") }), el("p", { class: "help", text: t("hints.lead") }), el("p", {}, link),
    rows.length ? list : el("p", { text: t("hints.none") }),
    el("p", {}, el("a", { href: SHELL, text: t("take.to_game") }))], "hints");
}

/* No bundle on this device yet: how to get one. */
export function renderNotReady() {
  // A home-screen app keeps its own storage (iPhone): without its queue here, say how to
  // give it one (issue 26 point 1).
  var standalone = navigator.standalone === true ||
    (window.matchMedia && window.matchMedia("(display-mode: standalone)").matches);
  show([el("h1", { text: t("offline.title") }), el("p", { class: "notice info", text: t("offline.not_ready") }),
    standalone ? el("p", { class: "notice bad", role: "alert", id: "standalone-not-ready", text: t("scan.standalone_not_ready") }) : null], "not-ready");
}

/* Replace only the sync panel (on the confirmation, which a redraw would reset). */
export function redrawSyncPanel() {
  var n = document.getElementById("sync-panel");
  if (n) n.replaceWith(syncPanel());
}
