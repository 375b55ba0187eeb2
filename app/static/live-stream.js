/* Live pages from the server-sent events of /api/v1/events/{id}/live (no reload).
 *
 * A root element with an id and [data-live-stream="<stream URL>"] is kept up to date:
 * - data-live-version: the live version the page was rendered at (sent as ?since=);
 * - data-live-shape: "place:stage;…" of the auctions as rendered (stage: status:round,
 *   plus :steps while a round is being revealed); when an `auction` message's `shape`
 *   changes a place's stage (or an `event` message the
 *   "status|opens_at|closes_at" of data-live-event), the root's content is fetched again from
 *   data-live-refresh (default: this page) and swapped in place, after a random delay of
 *   up to data-live-jitter ms (default 2000) so a thousand phones do not ask at once;
 * - a close, or a reveal step, of an auction whose [data-live-place] section is on the
 *   page is shown at once from the message ("closed, being revealed" with the bids shown
 *   so far, then the result; data-live-text's words; data-live-me marks my own bid),
 *   without any request;
 * - [data-live-field="bids_<place>"] takes an auction's bid count, and the organiser's
 *   `feed` counters go into [data-live-field="<counter>"];
 * - fallback: when the stream fails (closed with an error, or no `hello` within 10 s, as
 *   behind a buffering proxy) data-live-poll is polled every data-live-every seconds
 *   (default 5); its JSON gives `version`, optionally `shape`, and counters.
 * After a swap, document gets a "live:swapped" event (the projector re-arms its steps).
 */
function parseShape(text) {
  var shape = {};
  (text || "").split(";").forEach(function (part) {
    if (!part) return;
    var i = part.indexOf(":");
    shape[part.slice(0, i)] = part.slice(i + 1);
  });
  return shape;
}

function writeFields(root, data, prefix) {
  var fields = root.querySelectorAll("[data-live-field]");
  for (var i = 0; i < fields.length; i++) {
    var key = fields[i].getAttribute("data-live-field");
    if (prefix) {
      if (key === prefix) fields[i].textContent = String(data);
    } else if (Object.prototype.hasOwnProperty.call(data, key) && typeof data[key] !== "object") {
      fields[i].textContent = String(data[key]);
    }
  }
}

function Live(root) {
  this.root = root;
  this.stream = root.getAttribute("data-live-stream");
  this.poll = root.getAttribute("data-live-poll");
  this.every = parseInt(root.getAttribute("data-live-every") || "5", 10) * 1000;
  var jitter = root.getAttribute("data-live-jitter");
  this.jitter = jitter === null ? 2000 : parseInt(jitter, 10);
  this.refreshUrl = root.getAttribute("data-live-refresh") || window.location.href;
  this.pending = false;
  this.polling = false;
  this.seen = {};  // place -> "status:round" as the stream last said
  this.adopt(root);
}

Live.prototype.adopt = function (node) {
  this.version = parseInt(node.getAttribute("data-live-version") || "0", 10);
  this.shape = parseShape(node.getAttribute("data-live-shape"));
  this.eventStatus = node.getAttribute("data-live-event");
  this.me = node.getAttribute("data-live-me");
  try { this.text = JSON.parse(node.getAttribute("data-live-text") || "null"); } catch (e) { this.text = null; }
};

Live.prototype.refresh = function () {
  var self = this;
  if (self.pending) return;
  self.pending = true;
  window.setTimeout(function () {
    fetch(self.refreshUrl, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        self.pending = false;
        if (!html) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById(self.root.id);
        if (!fresh) return;
        self.root.innerHTML = fresh.innerHTML;
        ["data-live-version", "data-live-shape", "data-live-event"].forEach(function (name) {
          var value = fresh.getAttribute(name);
          if (value !== null) self.root.setAttribute(name, value);
        });
        self.adopt(fresh);
        // a change that arrived while this page was being fetched: fetch once more
        var stale = Object.keys(self.seen).some(function (k) {
          return self.shape[k] !== undefined && self.shape[k] !== self.seen[k];
        });
        if (stale) self.refresh();
        document.dispatchEvent(new CustomEvent("live:swapped", { detail: { id: self.root.id } }));
      })
      .catch(function () { self.pending = false; });
  }, Math.random() * self.jitter);
};

Live.prototype.onAuction = function (data) {
  writeFields(this.root, data.bid_count, "bids_" + data.place);
  var now = data.shape || (data.status + ":" + (data.round === null ? "None" : data.round));
  this.seen[String(data.place)] = now;
  var known = this.shape[String(data.place)];
  if (known === undefined || known === now) return;
  // A close: the message holds the revealed result; show it at once, no request.
  if (data.status === "closed" && this.showClosed(data)) {
    this.shape[String(data.place)] = now;
    return;
  }
  this.refresh();
};

function el(tag, attrs, text) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  if (text !== undefined) node.textContent = text;
  return node;
}

function fill(template, key, value) { return String(template).split("{" + key + "}").join(value); }

var SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
function cardText(code, joker) {  /* "TS" -> "10♠", "JK1" -> the joker's name */
  if (code.indexOf("JK") === 0) return joker;
  return (code[0] === "T" ? "10" : code[0]) + (SUITS[code[1]] || code[1]);
}

function colour(code) {
  if (code.indexOf("JK") === 0) return "joker";
  return /[HD]$/.test(code) ? "red" : "black";
}

/* Rebuild [data-live-place] of a closed auction from its message, as the page renders it
 * (phone/ceremony.html); false when the page has no such section or no texts. */
Live.prototype.showClosed = function (data) {
  var T = this.text;
  var section = this.root.querySelector('[data-live-place="' + data.place + '"]');
  if (!T || !section) return false;
  var view = data.view || {};
  var names = data.names || {};
  var me = this.me;
  var rounds = (view.rounds || []).filter(function (r) { return r.status === "closed"; });
  var parts = [];
  parts.push(el("h2", { id: "place-" + data.place },
    fill(T["ceremony.place"], "place", data.place) + " — " +
    (view.revealing ? T["ceremony.revealing"] : T["ceremony.closed"])));
  if (view.revealing) {  /* closed, being revealed: the count, and the bids shown so far */
    var being = rounds[rounds.length - 1] || { bid_count: 0, bids: [] };
    var left = being.bid_count - (being.bids || []).length;
    parts.push(el("p", { "class": "status-line" }, fill(T["ceremony.bids_in"], "count", being.bid_count) +
      (left > 0 ? " · " + fill(T["ceremony.sealed_left"], "count", left) : "")));
    parts.push(el("p", { "class": "help" }, T["ceremony.revealing_help"]));
  } else {
    parts.push(el("p", { "class": "status-line" }, view.winner
      ? fill(T["ceremony.winner"], "name", names[view.winner] || view.winner)
      : T["ceremony.no_winner"]));
  }
  rounds.forEach(function (rnd) {
    var complete = rnd.revealed >= rnd.steps;
    var bids = (rnd.bids || []).slice();
    if (complete) bids.sort(function (a, b) { return a.rank - b.rank; });
    if (!bids.length) return;
    if ((view.rounds || []).length > 1) {
      var tied = rnd.tied && rnd.tied.length ? " — " + T["ceremony.tie"] : "";
      parts.push(el("h3", {}, fill(T["ceremony.round"], "number", rnd.number) + tied));
    }
    var list = el("ol", { "class": "bid-list", "aria-label": T["ceremony.results"] });
    bids.forEach(function (b) {
      var item = el("li");
      item.appendChild(el("span", { "class": "rank" }, complete ? String(b.rank) : "\u00b7"));
      var body = el("span", { "class": "bid-body" });
      body.appendChild(el("strong", {}, names[b.participant] || b.participant));
      if (b.participant === me) body.appendChild(document.createTextNode(" ★"));
      body.appendChild(el("br"));
      var cards = el("span", { "class": "nowrap" });
      var combination = b.combination || {};
      (combination.cards || []).forEach(function (code) {
        var shown = cardText(code, T["card.joker"]);
        cards.appendChild(el("strong", { "class": colour(code) }, shown));
        cards.appendChild(document.createTextNode(" "));
      });
      body.appendChild(cards);
      body.appendChild(el("br"));
      body.appendChild(el("span", { "class": "muted" },
        T["category." + combination.category] || combination.category));
      item.appendChild(body);
      list.appendChild(item);
    });
    parts.push(list);
  });
  while (section.firstChild) section.removeChild(section.firstChild);
  parts.forEach(function (p) { section.appendChild(p); });
  this.root.setAttribute("data-live-shown", data.place + ":" + data.version);
  return true;
};

Live.prototype.onEvent = function (data) {
  var now = data.status + "|" + data.opens_at + "|" + data.closes_at;
  if (this.eventStatus !== null && this.eventStatus !== now) this.refresh();
};

Live.prototype.connect = function () {
  var self = this;
  if (!window.EventSource) { self.fallback(); return; }
  var url = self.stream + (self.stream.indexOf("?") < 0 ? "?" : "&") + "since=" + self.version;
  var source = new EventSource(url, { withCredentials: true });
  var hello = false;
  var deadline = window.setTimeout(function () {
    if (!hello) { source.close(); self.fallback(); }
  }, 10000);
  function json(handler) {
    return function (e) {
      try { handler.call(self, JSON.parse(e.data)); } catch (err) { /* ignore a bad message */ }
    };
  }
  source.addEventListener("hello", function () { hello = true; window.clearTimeout(deadline); });
  source.addEventListener("auction", json(self.onAuction));
  source.addEventListener("event", json(self.onEvent));
  source.addEventListener("feed", json(function (data) { writeFields(self.root, data); }));
  source.onerror = function () {
    if (source.readyState === EventSource.CLOSED) {
      window.clearTimeout(deadline);
      self.fallback();
    }
  };
};

Live.prototype.fallback = function () {
  var self = this;
  if (self.polling || !self.poll) return;
  self.polling = true;
  self.root.setAttribute("data-live-mode", "poll");
  function once() {
    var url = self.poll + (self.poll.indexOf("?") < 0 ? "?" : "&") + "since=" + self.version;
    fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (!data) return;
        writeFields(self.root, data);
        if (data.shape !== undefined) {
          var fresh = parseShape(data.shape);
          var changed = Object.keys(fresh).some(function (k) { return self.shape[k] !== fresh[k]; });
          if (changed) self.refresh();
        }
        if (typeof data.version === "number") self.version = data.version;
      })
      .catch(function () { /* bad network: try again on the next tick */ })
      .then(function () { window.setTimeout(once, self.every); });
  }
  window.setTimeout(once, self.every);
};

document.addEventListener("DOMContentLoaded", function () {
  var roots = document.querySelectorAll("[data-live-stream][id]");
  for (var i = 0; i < roots.length; i++) new Live(roots[i]).connect();
});
