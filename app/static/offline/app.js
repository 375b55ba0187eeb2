/* The offline phone's app shell (/me/offline; the service worker also answers /t/{code}
 * with it). Everything is read from the device (IndexedDB, `RogaineStore`):
 *
 * - a CP's QR page `/t/{code}` records the scan on the device first (queue: code, device
 *   time, a fresh source id) and shows the result at once: the card opened from the
 *   encrypted deck (`RogaineDeck`) with its discard code, or why it did not count, the
 *   hand, deal and round, what to do next, and how many scans wait to be sent;
 * - discard and save codes (scanned or typed) ask for the same confirmation first;
 * - the device applies the rules itself (`RogainePokerRules`, a port of app/feed/rules.py)
 *   to the takes the server confirmed plus the queued ones;
 * - the queue goes to the server in one batch (POST /me/offline/sync) on the `online`
 *   event, every few seconds while it is not empty, and with the "send now" button; the
 *   server's outcomes replace the local ones and the page lists what changed.
 * No innerHTML: every text goes through textContent.
 */
(function () {
  "use strict";
  var R = window.RogainePokerRules, Store = window.RogaineStore, Deck = window.RogaineDeck;
  var S = JSON.parse(document.getElementById("offline-strings").textContent);
  var root = document.getElementById("offline-app");
  var lang = document.documentElement.lang || "ru";
  var SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var RETRY_MS = 4000;
  var BATCH = 500; // takes per sync request (the server takes at most 1000)
  var SHELL = "/me/offline";

  var ctx = { bundle: null, queue: [], opened: {}, synced: {}, changes: [], device: null };
  var route = null, status = "", syncing = null;

  // --- helpers --------------------------------------------------------------------------
  /* Performance marks for benchmarks/offline.py (start, loaded, classified, recorded, result). */
  function mark(name) {
    if (window.performance && performance.mark) performance.mark(name);
  }
  function t(key, values) {
    var text = Object.prototype.hasOwnProperty.call(S, key) ? S[key] : key;
    return values ? text.replace(/\{(\w+)\}/g, function (m, k) {
      return values[k] === undefined ? m : String(values[k]);
    }) : text;
  }
  function cardText(code) {
    if (!code) return "";
    if (code.indexOf("JK") === 0) return lang === "ru" ? "\u0414\u0436\u043e\u043a\u0435\u0440" : "Joker";
    return (code[0] === "T" ? "10" : code[0]) + (SUITS[code[1]] || code[1]);
  }
  function colour(code) {
    if (!code) return "black";
    if (code.indexOf("JK") === 0) return "joker";
    return code[1] === "H" || code[1] === "D" ? "red" : "black";
  }
  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  /* µs since the epoch of an ISO datetime with up to 6 fractional digits. */
  function micros(iso) {
    var frac = /\.(\d+)/.exec(iso);
    var whole = Date.parse(iso.replace(/\.\d+/, ""));
    return whole * 1000 + (frac ? parseInt((frac[1] + "000000").slice(0, 6), 10) : 0);
  }
  function hex(bytes) {
    var a = new Uint8Array(bytes);
    crypto.getRandomValues(a);
    return Array.prototype.map.call(a, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  // --- the device's data ----------------------------------------------------------------
  function load() {
    var reading = Store.preloaded || Store.getMany(["bundle", "opened", "synced", "changes", "device"]);
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
  function openCodes(codes) {
    var todo = [];
    codes.forEach(function (code) {
      var n = R.normalizeCode(code);
      if (n && !Object.prototype.hasOwnProperty.call(ctx.opened, n) && todo.indexOf(n) < 0) todo.push(n);
    });
    if (!todo.length) return Promise.resolve();
    return Promise.all(todo.map(function (n) {
      return Deck.openEntry(ctx.bundle.deck, n).then(function (entry) { ctx.opened[n] = entry; },
        function () { ctx.opened[n] = null; });
    })).then(function () {
      Store.put("opened", ctx.opened).catch(function () {}); // a cache: not waited for
    });
  }

  function allCodes(extra) {
    var codes = ctx.bundle.state.takes.map(function (x) { return x.code; });
    ctx.queue.forEach(function (q) { codes.push(q.code); });
    if (extra) codes.push(extra);
    return codes;
  }

  /* The rules engine's course from the opened entries, and the view of the game. */
  function model() {
    var b = ctx.bundle, checkpoints = {}, discards = {}, discardOf = {}, numberOf = {};
    Object.keys(ctx.opened).forEach(function (code) {
      var e = ctx.opened[code];
      if (!e) return;
      var ref = { checkpoint_id: e.n, number: e.n, card: e.c };
      checkpoints[code] = ref;
      discards[e.d] = ref;
      discardOf[e.c] = e.d;
      numberOf[e.c] = e.n;
    });
    var course = {
      opens_at: micros(b.event.opens_at), closes_at: micros(b.event.closes_at),
      checkpoints: checkpoints, discards: discards, save_codes: b.save_codes
    };
    var takes = [], maxId = 0;
    b.state.takes.forEach(function (x) {
      maxId = Math.max(maxId, x.take_id);
      if (!x.voided) takes.push({ take_id: x.take_id, code: x.code, taken_at: micros(x.taken_at) });
    });
    var queuedIds = {};
    ctx.queue.forEach(function (q, i) {
      queuedIds[q.source_id] = maxId + 1 + i;
      takes.push({ take_id: maxId + 1 + i, code: q.code, taken_at: micros(q.taken_at) });
    });
    var replay = R.replay(takes, course), byId = {}, known = {};
    replay.outcomes.forEach(function (o) {
      byId[o.take_id] = o;
      if (o.kind === "card" && o.outcome === "counted") known[o.card] = true;
    });
    var s = replay.state, missing = R.HAND_SIZE - s.hand.length, next;
    var discardsLeft = R.MAX_DISCARD_STEPS - s.discard_steps;
    if (missing > 0) next = s.round === 1 ? "collect" : (s.in_discard_step ? "discarding" : "draw");
    else next = discardsLeft > 0 ? "decide" : "must_save";
    return {
      // after the close no take, discard or save counts (RULES.md I-3): no next step, no
      // scanner, no code form, as the server's /me (phone/game.html)
      closed: Date.now() * 1000 >= course.closes_at,
      course: course, state: s, byId: byId, queuedIds: queuedIds, known: known,
      discardOf: discardOf, numberOf: numberOf, missing: missing, next: next,
      discardsLeft: discardsLeft, saveCodesLeft: b.save_codes.length - s.used_save_codes.length
    };
  }

  /* The result of a take as the page shows it (the participant's view, RULES.md I-1). */
  function resultOf(m, sourceId) {
    var takeId = m.queuedIds[sourceId], pending = takeId !== undefined, o;
    if (pending) o = m.byId[takeId];
    else {
      takeId = ctx.synced[sourceId];
      var server = ctx.bundle.state.takes.filter(function (x) { return x.take_id === takeId; })[0];
      if (!server) return null;
      o = { take_id: takeId, kind: server.kind, outcome: server.outcome, reason: server.reason,
        card: server.card, voided: server.voided };
    }
    var shown = o.card && m.known[o.card] && o.reason !== "hand_full" ? o.card : null;
    var combination = null;
    m.state.combinations.forEach(function (c) { if (c.id === takeId) combination = c; });
    return {
      pending: pending, kind: o.kind, outcome: o.outcome, reason: o.reason, card: shown,
      checkpoint: shown ? m.numberOf[shown] : null, voided: !!o.voided,
      discard_code: shown && o.kind === "card" && o.outcome === "counted" ? m.discardOf[shown] : null,
      combination: combination
    };
  }

  // --- rendering (the classes of app.css, as the server's pages) ------------------------
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
  function nextStep(m) {
    var text = m.next === "collect" ? t("next.collect", { count: m.missing })
      : m.next === "draw" ? t("next.draw", { count: m.missing }) : t("next." + m.next);
    if (m.saveCodesLeft === 0) text += " " + t("next.no_save_codes");
    return text;
  }
  function handPanel(m) {
    var s = m.state, list = null, value = R.handValue(s.hand, lang);
    if (s.hand.length) {
      list = el("ul", { class: "cards hand", id: "hand" });
      s.hand.forEach(function (card) { list.appendChild(handSlot(card, m.discardOf[card])); });
    }
    return el("section", { class: "panel", "aria-labelledby": "hand-title" },
      el("p", { class: "status-line", id: "deal-round", text: t("game.deal_round", { deal: s.deal, round: s.round }) }),
      el("h2", { id: "hand-title", text: t("game.hand", { count: s.hand.length }) }),
      list || el("p", { text: t("game.hand_empty") }),
      value ? el("p", { class: "hand-value", id: "hand-value", text: t("game.value", { value: value }) }) : null,
      m.closed ? null : el("p", { class: "next-step", text: nextStep(m) }));
  }
  /* A saved combination's description in the page language (as the server's pages). */
  function described(cards) {
    var v = R.evaluate(cards);
    return lang === "ru" ? v.description_ru : v.description;
  }
  function syncPanel() {
    var count = ctx.queue.length;
    var button = el("button", { type: "button", class: "block secondary", id: "send-now", text: t("offline.send_now") });
    button.addEventListener("click", function () { sync(); });
    var panel = el("section", { class: "panel", id: "sync-panel", "aria-live": "polite" },
      el("p", { id: "queue-count", "data-count": String(count),
        text: count ? t("offline.queued", { count: count }) : t("offline.all_sent") }),
      count ? el("div", { class: "actions" }, button) : null,
      status ? el("p", { class: "help", id: "sync-status", text: status }) : null);
    if (ctx.changes.length) {
      var list = el("ul", { id: "changes" });
      ctx.changes.forEach(function (c) { list.appendChild(el("li", { text: c })); });
      panel.appendChild(el("div", { class: "notice info", role: "status" },
        el("strong", { text: t("offline.changed") }), list));
    }
    return panel;
  }
  function show(nodes) {
    root.textContent = "";
    nodes.forEach(function (n) { if (n) root.appendChild(n); });
    document.documentElement.setAttribute("data-view", route ? route.name : "");
  }

  /* The in-app scanner's button (offline/scanner.js): the same path as the camera app
   * opening /t/{code}; on my game and on each result (the next CP). */
  function scanPanel() {
    return el("section", { class: "panel scan-panel", "aria-label": t("scan.button") },
      el("p", { class: "notice bad env-warning", role: "alert", "data-env-warning": "", hidden: "hidden" }),
      el("div", { class: "actions" }, el("button", { type: "button", class: "block scan-button", id: "scan-button",
        "data-scan": "", text: t("scan.button") })),
      el("p", { class: "help", text: t("game.scan_hint") }));
  }

  function renderResult(m, sourceId) {
    var r = resultOf(m, sourceId);
    if (!r) return renderGame(m);
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
    nodes.push(el("p", { class: "help", id: "take-status", "data-pending": String(r.pending),
      text: r.pending ? t("offline.on_device") : t("offline.confirmed") }));
    nodes.push(handPanel(m), syncPanel(),
      m.closed ? null : scanPanel(),
      el("div", { class: "actions" }, el("a", { class: "button block", href: SHELL, text: t("take.to_game") })));
    show(nodes);
    if (window.RogaineScanner) window.RogaineScanner.setUp();
    mark("rogaine-result");
  }

  function renderConfirm(m, code, kind, card) {
    var n = R.normalizeCode(code) || code, nodes = [el("h1", { text: t("confirm.title") })];
    var panel = el("div", { class: "panel" }), yes;
    if (kind === "discard") {
      panel.appendChild(el("p", { text: t("confirm.discard_code", { code: n }) }));
      panel.appendChild(el("ul", { class: "cards" }, chip(card)));
      panel.appendChild(el("p", { class: "next-step", text: t("confirm.discard", { card: cardText(card) }) }));
      yes = t("confirm.yes_discard");
    } else if (kind === "save") {
      var cards = el("ul", { class: "cards" });
      m.state.hand.forEach(function (c) { cards.appendChild(chip(c)); });
      panel.appendChild(el("p", { text: t("confirm.save_code", { code: n }) }));
      panel.appendChild(cards);
      panel.appendChild(el("p", { class: "next-step", text: t("confirm.save") }));
      yes = t("confirm.yes_save");
    } else {
      panel.appendChild(el("p", { class: "next-step", text: t("confirm.other", { code: n }) }));
      yes = t("confirm.yes_record");
    }
    var button = el("button", { type: "button", class: "danger block", id: "confirm-yes", text: yes });
    button.addEventListener("click", function () { button.disabled = true; record(code); });
    var cancel = el("a", { class: "button secondary block", href: SHELL, text: t("common.cancel") });
    panel.appendChild(el("div", { class: "actions" }, button));
    panel.appendChild(el("div", { class: "actions" }, cancel));
    nodes.push(panel, handPanel(m));
    show(nodes);
  }

  /* My takes, newest first: the server's, then the queued ones marked "waiting". */
  function takeList(m) {
    var zone = ctx.bundle.event.timezone, rows = [];
    ctx.bundle.state.takes.forEach(function (x) {
      rows.push({ at: x.taken_at, o: { kind: x.kind, outcome: x.outcome, reason: x.reason, card: x.card },
        voided: x.voided, pending: false });
    });
    ctx.queue.forEach(function (q) {
      var o = m.byId[m.queuedIds[q.source_id]];
      rows.push({ at: q.taken_at, o: o, voided: false, pending: true });
    });
    if (!rows.length) return null;
    rows.sort(function (a, b) { return micros(b.at) - micros(a.at); });
    var list = el("ol", { class: "take-list", id: "takes" });
    rows.forEach(function (r) {
      var card = r.o.card && m.known[r.o.card] && r.o.reason !== "hand_full" ? r.o.card : null;
      var when;
      try {
        when = new Date(r.at).toLocaleTimeString(lang, { timeZone: zone, hour: "2-digit", minute: "2-digit" });
      } catch (e) { when = r.at.slice(11, 16); }
      var what = el("span", { class: "what" }, r.o.kind !== "card" ? t("kind." + r.o.kind) + " " : "",
        card ? el("strong", { class: colour(card), text: cardText(card) }) : null);
      var tag = r.voided ? el("span", { class: "tag info", text: t("outcome.voided") })
        : el("span", { class: "tag " + (r.o.outcome === "counted" ? "ok" : "bad"), text: t("outcome." + r.o.outcome) });
      list.appendChild(el("li", { class: r.pending ? "pending" : r.o.outcome }, el("span", { class: "when", text: when }),
        what, tag, r.pending ? el("span", { class: "tag info", text: t("offline.pending") }) : null,
        !r.voided && r.o.outcome !== "counted" ? el("span", { class: "why", text: t("reason." + r.o.reason) }) : null));
    });
    return el("section", { class: "panel", "aria-labelledby": "takes-title" },
      el("h2", { id: "takes-title", text: t("game.takes") }), list);
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
      panel.appendChild(el("p", { class: "help", text: t("game.save_codes_left", { count: m.saveCodesLeft }) }));
    }
    return panel;
  }
  /* The course's notices: not open yet, or closed (with the ceremony) and the unsaved hand. */
  function courseNotices(m) {
    var hand = m.state.hand.length;
    if (Date.now() * 1000 < m.course.opens_at) return [el("p", { class: "notice info", role: "status", text: t("game.course_before") })];
    if (!m.closed) return [];
    return [el("p", { class: "notice info", role: "status", id: "course-closed" }, t("game.course_closed") + " ",
      el("a", { href: "/me/ceremony", text: t("game.ceremony_link") })),
    hand ? el("p", { class: "notice bad", role: "status", id: "unsaved-hand", text: t("game.unsaved_after_close", { count: hand }) }) : null];
  }

  function renderGame(m) {
    var b = ctx.bundle;
    var input = el("input", { id: "code", name: "code", type: "text", class: "code-input", autocomplete: "off",
      autocapitalize: "characters", spellcheck: "false", "aria-describedby": "code-help", required: "required" });
    var form = el("form", { id: "code-form" },
      el("label", { for: "code", text: t("game.code_label") }),
      el("p", { class: "help", id: "code-help", text: t("game.code_help") }), input,
      el("div", { class: "actions" }, el("button", { type: "submit", class: "block", text: t("game.check_code") })));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var code = input.value.trim();
      if (code) confirmCode(code, true);
    });
    var combos = el("section", { class: "panel", "aria-labelledby": "combos-title" },
      el("h2", { id: "combos-title", text: t("game.combinations") }));
    if (!m.state.combinations.length) combos.appendChild(el("p", { text: t("game.no_combinations") }));
    m.state.combinations.forEach(function (c) {
      var cards = el("ul", { class: "cards" });
      c.cards.forEach(function (card) { cards.appendChild(chip(card, true)); });
      combos.appendChild(el("div", { class: "combo" }, cards, el("span", { class: "category", text: t("category." + c.category) }),
        el("span", { class: "muted", text: described(c.cards) })));
    });
    show([el("h1", { text: t("game.title") }),
      el("p", { text: t("game.hello", { name: b.participant.name }) + " \u00b7 " + b.event.name })]
      .concat(courseNotices(m), [handPanel(m), m.closed ? null : scanPanel(),
        el("p", {}, el("a", { class: "button secondary block", id: "hints-link", href: "/me/hints", text: t("hints.link") })),
        syncPanel(), codePanel(m, form), combos, takeList(m)]));
    if (window.RogaineScanner) window.RogaineScanner.setUp();
  }

  /* The CPs' numbers, coordinates and hints from the bundle (public: no card, no code),
   * with a GPX file made on the phone (issue 26 point 6). */
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
  function renderHints() {
    var rows = ctx.bundle.checkpoints;
    if (!rows) {
      show([el("h1", { text: t("hints.title") }), el("p", { class: "notice info", text: t("hints.not_ready") })]);
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
      el("p", {}, el("a", { href: SHELL, text: t("take.to_game") }))]);
  }

  function renderNotReady() {
    route = { name: "not-ready" };
    // A home-screen app keeps its own storage (iPhone): without its queue here, say how to
    // give it one (issue 26 point 1).
    var standalone = navigator.standalone === true ||
      (window.matchMedia && window.matchMedia("(display-mode: standalone)").matches);
    show([el("h1", { text: t("offline.title") }), el("p", { class: "notice info", text: t("offline.not_ready") }),
      standalone ? el("p", { class: "notice bad", role: "alert", id: "standalone-not-ready", text: t("scan.standalone_not_ready") }) : null]);
  }

  function render() {
    if (route.name === "hints") return renderHints();
    var m = model();
    if (route.name === "result") renderResult(m, route.sourceId);
    else if (route.name === "confirm") renderConfirm(m, route.code, route.kind, route.card);
    else renderGame(m);
  }

  // --- recording ------------------------------------------------------------------------
  /* What a code would do now (nothing recorded): discard of a card in the hand, own save
   * code, or anything else. */
  function classifyNow(code) {
    return openCodes(allCodes(code)).then(function () {
      var m = model(), c = R.classify(m.course, code);
      var inHand = c[0] === "discard" && c[1].card && m.state.hand.indexOf(c[1].card) >= 0;
      return { kind: c[0] === "save" ? "save" : inHand ? "discard" : "other", card: inHand ? c[1].card : null };
    });
  }

  function confirmCode(code, typed) {
    return classifyNow(code).then(function (what) {
      if (what.kind === "other" && !typed) return record(code);
      route = { name: "confirm", code: code, kind: what.kind, card: what.card };
      render();
    });
  }

  function record(code) {
    var last = ctx.queue.length ? ctx.queue[ctx.queue.length - 1].seq : 0;
    var item = {
      source_id: "pwa-" + hex(16), code: code, taken_at: new Date().toISOString(),
      seq: Math.max(Date.now(), last + 1), participant: ctx.bundle.participant.external_id,
      event: ctx.bundle.event.id
    };
    ctx.queue.push(item);
    mark("rogaine-classified");
    return Promise.all([Store.enqueue(item), openCodes([code])]).then(function () {
      mark("rogaine-recorded");
      route = { name: "result", sourceId: item.source_id };
      history.replaceState(null, "", SHELL + "?take=" + encodeURIComponent(item.source_id));
      render();
      if (navigator.onLine) sync();
    });
  }

  // --- sync -----------------------------------------------------------------------------
  /* How a change names a take: a CP by its number, a discard or save code by its kind
   * (and the card, when the participant has it); never the code itself (it is secret and
   * 24 characters do not fit a phone). */
  function label(m, takeId, code) {
    var o = m.byId[takeId], entry = ctx.opened[R.normalizeCode(code)];
    var card = o && o.card && m.known[o.card] && o.reason !== "hand_full" ? o.card : null;
    if (entry) return t("take.cp", { number: entry.n }) + (card ? " (" + cardText(card) + ")" : "");
    var c = R.classify(m.course, code), kind = c[0] === "discard" || c[0] === "save" ? c[0] : "unknown";
    return t("kind." + kind) + (card ? " " + cardText(card) : "");
  }
  function words(outcome, reason) {
    return outcome === "counted" ? t("outcome.counted") : t("outcome.rejected") + " (" + t("reason." + reason) + ")";
  }

  function sync() {
    if (syncing || !ctx.bundle || !ctx.queue.length) return syncing || Promise.resolve();
    var batch = ctx.queue.slice(0, BATCH), before = model(), sent = false;
    var body = {
      source: ctx.device, sent_at: new Date().toISOString(),
      takes: batch.map(function (q) { return { code: q.code, taken_at: q.taken_at, source_id: q.source_id }; })
    };
    syncing = fetch("/me/offline/sync", {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body)
    }).then(function (response) {
      if (response.status === 401) status = t("offline.signed_out");
      if (!response.ok) throw new Error(String(response.status));
      return response.json();
    }).then(function (data) {
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
      ctx.bundle.state = data.state;
      ctx.queue = ctx.queue.filter(function (q) { return done.indexOf(q.source_id) < 0; });
      ctx.changes = changes;
      status = t("offline.sent", { count: done.length });
      sent = true;
      return Promise.all([Store.put("bundle", ctx.bundle), Store.put("synced", ctx.synced),
        Store.put("changes", changes), Store.dequeue(done)]);
    }).then(function () {
      return openCodes(allCodes());
    }, function () {
      if (status !== t("offline.signed_out")) status = t("offline.send_failed");
    }).then(function () {
      syncing = null;
      if (sent && ctx.queue.length) setTimeout(sync, 0); // more than one batch waited
      if (route && route.name !== "confirm") render();
      else if (route) { var n = document.getElementById("sync-panel"); if (n) n.replaceWith(syncPanel()); }
    });
    return syncing;
  }

  /* The bundle's address with this device's id and clock (a contact: the server keeps
   * what it learns of the device's clock, RULES.md I-22). */
  function bundleUrl() {
    return "/me/offline.json?device=" + ctx.device + "&at=" + encodeURIComponent(new Date().toISOString());
  }

  /* Online at start with nothing queued: take the server's latest bundle. */
  function refresh() {
    return fetch(bundleUrl(), { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (!r.ok) return;
      return r.json().then(function (bundle) {
        if (syncing || ctx.queue.length) return;
        if (!bundle.state.takes.length) ctx.opened = {};
        ctx.bundle = bundle;
        return Store.put("bundle", bundle).then(function () { return openCodes(allCodes()); })
          .then(function () { if (route.name !== "confirm") render(); });
      });
    }).catch(function () {});
  }

  // --- start ----------------------------------------------------------------------------
  mark("rogaine-start");
  load().then(function () {
    mark("rogaine-loaded");
    if (ctx.bundle) return;
    return fetch(bundleUrl(), { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (bundle) {  // signed in and online, but the bundle was never kept
        if (!bundle) return;
        ctx.bundle = bundle;
        return Store.put("bundle", bundle).then(function () { return Store.put("ready", true); });
      }).catch(function () {});
  }).then(function () {
    if (!ctx.bundle) return renderNotReady();
    var path = location.pathname, params = new URLSearchParams(location.search);
    window.addEventListener("online", function () { sync(); });
    setInterval(function () { if (ctx.queue.length) sync(); }, RETRY_MS);
    if (path === "/me/hints") {  // offline: the service worker served the shell here
      route = { name: "hints" };
      return renderHints();
    }
    if (path.indexOf("/t/") === 0) {
      var code = decodeURIComponent(path.slice(3).replace(/\/$/, ""));
      return confirmCode(code, false);
    }
    return openCodes(allCodes()).then(function () {
      route = params.get("take") ? { name: "result", sourceId: params.get("take") } : { name: "game" };
      render();
      if (ctx.queue.length) { if (navigator.onLine) sync(); } else if (navigator.onLine) refresh();
    });
  }).catch(function (error) {
    root.textContent = String(error);
  });
})();
