/* Shared helpers of the table-game pages (poker dice, Locus Poker): strings, API calls,
   the player tokens kept on this device, and the new-game forms. An ES module: dice.js and
   locus.js import it; a new-game page loads it alone. */
var stringsEl = document.getElementById("strings");
var S = stringsEl ? JSON.parse(stringsEl.textContent) : {};

function t(key, values) {
  var text = S[key] || key;
  Object.keys(values || {}).forEach(function (k) { text = text.split("{" + k + "}").join(values[k]); });
  return text;
}

function el(tag, attrs, children) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === "text") node.textContent = attrs[k];
    else if (k === "class") node.className = attrs[k];
    else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), attrs[k]);
    else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) node.setAttribute(k, attrs[k]);
  });
  (children || []).forEach(function (c) { if (c !== null) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return node;
}

function api(method, url, body, token) {
  var headers = { "Accept": "application/json" };
  if (body !== null && body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = "Bearer " + token;
  return fetch(url, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined })
    .then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          var error = new Error(data.detail || (t("games.error") + " " + response.status));
          error.code = data.code; error.status = response.status;
          throw error;
        }
        return data;
      });
    });
}

// Tokens of a game created on this device: {player_tokens: [...], table_token}.
function storageKey(id) { return "rogaine-game-" + id; }
function saveTokens(id, tokens) {
  try { localStorage.setItem(storageKey(id), JSON.stringify(tokens)); } catch (e) { /* private mode */ }
}
function storedTokens(id) {
  try { return JSON.parse(localStorage.getItem(storageKey(id)) || "null"); } catch (e) { return null; }
}
// `#p=<table token>,<seat 0 token>,...` (a /g/ link hands over one token, the other
// parts empty): merged with the tokens already kept on this device, then stored.
function loadTokens(id) {
  var match = /[#&]p=([^&]*)/.exec(location.hash);
  if (match) {
    var parts = decodeURIComponent(match[1]).split(",");
    var kept = storedTokens(id) || {};
    kept.player_tokens = kept.player_tokens || [];
    var players = parts.slice(1);
    for (var i = 0; i < Math.max(players.length, kept.player_tokens.length); i++) {
      players[i] = players[i] || kept.player_tokens[i] || "";
    }
    var tokens = { table_token: parts[0] || kept.table_token || null, player_tokens: players };
    saveTokens(id, tokens);
    history.replaceState(null, "", location.pathname);
    return tokens;
  }
  return storedTokens(id);
}
// The token to read the game with: the table's, else any player's of this device.
function readToken(tokens) {
  if (!tokens) return null;
  return tokens.table_token || tokens.player_tokens.filter(function (x) { return x; })[0] || null;
}

function showError(message) {
  var box = document.getElementById("error");
  if (!box) return;
  box.textContent = message || "";
  box.hidden = !message;
}

// A game page: load, act with the token of the seat to act, re-render.
function GamePage(render) {
  var root = document.getElementById("game");
  this.id = root.getAttribute("data-game-id");
  this.tokens = loadTokens(this.id);
  this.game = null;
  this.busy = false;
  this.render = render;
  document.getElementById("readonly").hidden = !!this.tokens;
}
GamePage.prototype.canAct = function () {
  if (!(this.tokens && this.game && !this.game.is_over && !this.busy)) return false;
  // a device with only a player's token (a /g/ link) acts only when that seat is to act
  return !!(this.tokens.table_token || this.tokens.player_tokens[this.game.current_players[0]]);
};
GamePage.prototype.load = function () {
  var self = this;
  var token = readToken(self.tokens);
  return api("GET", "/api/v1/games/" + self.id, null, token).then(function (game) {
    self.game = game; self.render(game); showError("");
  }).catch(function (e) { showError(e.message); });
};
GamePage.prototype.act = function (action) {
  var self = this;
  if (!self.canAct()) return Promise.resolve();
  var seat = self.game.current_players[0];
  var token = self.tokens.player_tokens[seat] || self.tokens.table_token;
  self.busy = true;
  return api("POST", "/api/v1/games/" + self.id + "/actions",
    { action: action, seat: seat, expected_seq: self.game.seq }, token)
    .then(function () { showError(""); })
    .catch(function (e) { showError(e.message); })
    .then(function () { self.busy = false; return self.load(); });
};
GamePage.prototype.poll = function (seconds) {
  var self = this;
  setInterval(function () {
    if (document.visibilityState === "visible" && !self.busy && self.game && !self.game.is_over) self.load();
  }, seconds * 1000);
};

// The new-game forms.
var form = document.getElementById("new-game");
if (form) {
  var opponent = form.querySelectorAll("input[name=opponent]");
  var second = document.getElementById("second-player");
  var syncOpponent = function () {
    var computer = form.querySelector("input[name=opponent]:checked").value === "greedy";
    if (second) second.hidden = computer;
  };
  Array.prototype.forEach.call(opponent, function (r) { r.addEventListener("change", syncOpponent); });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var module = form.getAttribute("data-module");
    var body = { module: module, options: {} };
    if (module === "poker-dice") {
      body.players = form.players.value.split("\n").map(function (s) { return s.trim(); })
        .filter(function (s) { return s; });
      body.options.dice = form.querySelector("input[name=dice]:checked").value;
      body.options.excess_scoring = form.querySelector("input[name=excess_scoring]:checked").value;
    } else {
      var greedy = form.querySelector("input[name=opponent]:checked").value === "greedy";
      body.players = [form.player0.value.trim(), greedy ? t("locus.computer") : form.player1.value.trim()];
      body.options.grid_size = form.grid_size.value;
      if (greedy) body.options.opponent = "greedy";
    }
    api("POST", "/api/v1/games", body).then(function (game) {
      saveTokens(game.id, { table_token: game.table_token || null, player_tokens: game.player_tokens || [] });
      location.href = form.getAttribute("data-page") + game.id;
    }).catch(function (e) { showError(e.message); });
  });
}

export { t, el, api, showError, GamePage };
