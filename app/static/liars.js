/* Liar's Poker 2.0 pages: send the clicked action with this page's token, then reload;
   reload as well when the game moves on (polls the game's seq). An ES module (no dependencies, no globals). */
var root = document.getElementById("lh");
var id = root && root.getAttribute("data-game-id");
var token = root && root.getAttribute("data-token");
var seq = root && parseInt(root.getAttribute("data-seq"), 10);
var busy = false;

function request(method, body) {
  var url = "/api/v1/games/" + id + (method === "POST" ? "/actions" : "");
  var headers = { "Accept": "application/json", "Authorization": "Bearer " + token };
  if (body) headers["Content-Type"] = "application/json";
  return fetch(url, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined })
    .then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) {
        if (!r.ok) throw new Error(data.detail || ("HTTP " + r.status));
        return data;
      });
    });
}

function showError(message) {
  var box = document.getElementById("error");
  box.textContent = message || "";
  box.hidden = !message;
}

function act(action) {
  if (busy) return;
  busy = true;
  request("POST", { action: action, expected_seq: seq })
    .then(function () { location.reload(); })
    .catch(function (e) { busy = false; showError(e.message); });
}

// The game's page only (an ES module: nothing is shared with other scripts).
if (root) {
  root.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) return;
    var action;
    if (button.hasAttribute("data-kind")) {
      var kind = button.getAttribute("data-kind");
      var input = document.getElementById("amount-" + kind);
      action = { type: kind, amount: parseInt(input.value, 10) };
    } else if (button.hasAttribute("data-action")) {
      action = JSON.parse(button.getAttribute("data-action"));
    } else {
      return;
    }
    if (button.hasAttribute("data-deck")) {
      var deck = document.getElementById("hand-deck").value.split(/\s+/).filter(Boolean);
      action.deck = deck;
    }
    var question = button.getAttribute("data-confirm");
    if (question && !window.confirm(question)) return;
    act(action);
  });

  setInterval(function () {
    if (busy || document.visibilityState !== "visible") return;
    request("GET").then(function (game) {
      if (game.seq !== seq) location.reload();
    }).catch(function () { /* offline: try again later */ });
  }, 3000);
}
