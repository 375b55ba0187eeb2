/* Poker dice: the shared score sheet of one table (hot-seat). State from the games API. */
import { t, el, GamePage } from "./table_games.js";
var FACES = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
var SERIES_1 = ["ones", "twos", "threes", "fours", "fives", "sixes"];
var columns = document.getElementById("game").getAttribute("data-columns").split(",");
var keep = {};
var lastMover = "";
var page = new GamePage(render);

function name(state, seat) { return state.players[seat]; }

function die(value, index, kept, clickable) {
  return el("button", {
    type: "button", class: "die" + (kept ? " kept" : ""), "aria-pressed": kept ? "true" : "false",
    "aria-label": value + (kept ? " (" + t("dice.kept") + ")" : ""), disabled: clickable ? null : "disabled",
    onclick: function () { keep[index] = !keep[index]; render(page.game); }
  }, [el("span", { class: "face", "aria-hidden": "true", text: FACES[value] || "?" }), el("span", { class: "pip", text: String(value) })]);
}

function keptIndices() {
  return Object.keys(keep).filter(function (k) { return keep[k]; }).map(Number).sort();
}

function physicalValues(state, kept) {
  var inputs = document.querySelectorAll("#physical-inputs select");
  return Array.prototype.map.call(inputs, function (input, i) {
    return kept.indexOf(i) >= 0 && state.turn && state.turn.dice ? state.turn.dice[i] : Number(input.value);
  });
}

function renderPhysical(state, show, kept) {
  var box = document.getElementById("physical");
  box.hidden = !show;
  var inputs = document.getElementById("physical-inputs");
  inputs.textContent = "";
  if (!show) return;
  for (var i = 0; i < 5; i++) {
    var locked = kept.indexOf(i) >= 0;
    var select = el("select", { "aria-label": t("dice.enter_values") + " " + (i + 1), disabled: locked ? "disabled" : null });
    for (var v = 1; v <= 6; v++) {
      var current = state.turn && state.turn.dice ? state.turn.dice[i] : 1;
      select.appendChild(el("option", { value: String(v), selected: v === current ? "selected" : null, text: FACES[v] + " " + v }));
    }
    inputs.appendChild(select);
  }
}

function cellText(cell, value) {
  if (value === null || value === undefined) return "";
  if (value === 0) return SERIES_1.indexOf(cell) >= 0 ? "✓" : "✗";
  return value > 0 ? "+" + value : String(value);
}

function renderSheet(state, mine) {
  var table = document.getElementById("sheet");
  table.textContent = "";
  var current = state.current_player;
  var head = el("tr", {}, [el("th", { scope: "col", text: "" })]);
  state.sheets.forEach(function (sheet) {
    head.appendChild(el("th", { scope: "col", class: sheet.player === current ? "current" : "", text: sheet.name }));
  });
  table.appendChild(el("thead", {}, [head]));
  var body = el("tbody");
  columns.forEach(function (column) {
    var row = el("tr", { class: column === "subtotal" || column === "total" ? "sum" : "" },
      [el("th", { scope: "row", text: t("dice.col." + column) })]);
    state.sheets.forEach(function (sheet) {
      var td = el("td", { class: sheet.player === current ? "current" : "" });
      if (column === "subtotal") {
        td.textContent = String(sheet.subtotal) + (sheet.premium ? " +" + sheet.premium : "");
      } else if (column === "total") {
        td.textContent = String(sheet.total);
      } else {
        var value = sheet.cells[column];
        var potential = state.turn && sheet.player === current ? state.turn.potential[column] : undefined;
        if (value === null && potential !== undefined && mine) {
          td.appendChild(el("button", {
            type: "button", class: "write", "aria-label": t("dice.write") + ": " + t("dice.col." + column) + " " + potential,
            onclick: function () { page.act({ type: "score", cell: column }); }
          }, [t("dice.write") + " " + cellText(column, potential)]));
        } else {
          td.textContent = cellText(column, value);
        }
      }
      row.appendChild(td);
    });
    body.appendChild(row);
  });
  table.appendChild(body);
}

function render(game) {
  var state = game.state;
  var mine = page.canAct();
  var physical = state.options.dice === "physical";
  var current = state.current_player;
  var status = document.getElementById("status");
  if (game.is_over) status.textContent = t("games.over");
  else status.textContent = t("games.to_move", { name: name(state, current) });

  var mover = state.phase + ":" + current;
  if (!state.turn || state.turn.rolls === 0 || mover !== lastMover) keep = {};
  lastMover = mover;

  // roll-off
  var rollOff = document.getElementById("roll-off");
  var written = state.sheets.some(function (sheet) {
    return Object.keys(sheet.cells).some(function (c) { return sheet.cells[c] !== null; });
  });
  rollOff.hidden = state.phase !== "roll_off" && (written || state.roll_off.rounds.length === 0);
  var last = state.history.filter(function (e) { return e.type === "score"; }).pop();
  var lastBox = document.getElementById("last-move");
  lastBox.hidden = !last;
  if (last) {
    lastBox.textContent = name(state, last.player) + ": " + last.dice.map(function (d) { return FACES[d]; }).join(" ") +
      " → " + t("dice.col." + last.cell) + " " + cellText(last.cell, last.score);
  }
  var list = document.getElementById("roll-off-list");
  list.textContent = "";
  state.roll_off.rounds.concat([state.roll_off.rolls]).forEach(function (round, r) {
    round.forEach(function (roll) {
      list.appendChild(el("li", { text: (r + 1) + ". " + name(state, roll.player) + ": " +
        roll.dice.map(function (d) { return FACES[d]; }).join(" ") + " = " + roll.total }));
    });
  });
  if (state.starting_player !== null && state.starting_player !== undefined) {
    list.appendChild(el("li", { class: "starts", text: t("dice.starts", { name: name(state, state.starting_player) }) }));
  }

  // dice and roll button
  var table = document.getElementById("table");
  table.hidden = game.is_over;
  var diceBox = document.getElementById("dice");
  diceBox.textContent = "";
  var rolls = state.turn ? state.turn.rolls : 0;
  var canKeep = mine && state.phase === "play" && rolls > 0 && rolls < 3;
  if (state.turn && state.turn.dice) {
    state.turn.dice.forEach(function (value, i) { diceBox.appendChild(die(value, i, !!keep[i], canKeep)); });
    diceBox.appendChild(el("span", { class: "roll-count", text: t("dice.roll_n", { n: rolls }) +
      (rolls === 1 ? " · " + t("dice.first_roll") : "") }));
  }
  document.getElementById("keep-help").hidden = !canKeep;
  var kept = state.phase === "play" && rolls > 0 ? keptIndices() : [];
  var canRoll = mine && (state.phase === "roll_off" || rolls < 3) && kept.length < 5;
  renderPhysical(state, mine && physical && canRoll, kept);
  var rollButton = document.getElementById("roll");
  rollButton.hidden = !canRoll;
  rollButton.textContent = t("dice.roll") + (current !== null ? " — " + name(state, current) : "");

  renderSheet(state, mine && state.phase === "play");

  var result = document.getElementById("result");
  result.hidden = !game.is_over;
  result.textContent = "";
  if (game.is_over && state.result) {
    var rows = state.result.standings.map(function (s) {
      return el("tr", {}, [el("td", { text: String(s.place) }), el("td", { text: s.name }), el("td", { text: String(s.total) })]);
    });
    result.appendChild(el("h2", { text: t("games.over") }));
    result.appendChild(el("table", {}, [
      el("thead", {}, [el("tr", {}, [el("th", { text: t("games.place") }), el("th", { text: t("games.players") }), el("th", { text: t("games.total") })])]),
      el("tbody", {}, rows)]));
  }
}

document.getElementById("roll").addEventListener("click", function () {
  var state = page.game.state;
  var action = { type: "roll" };
  var kept = [];
  if (state.phase === "play") { kept = state.turn.rolls > 0 ? keptIndices() : []; action.keep = kept; }
  if (state.options.dice === "physical") action.dice = physicalValues(state, kept);
  page.act(action);
});

page.load();
page.poll(5);
