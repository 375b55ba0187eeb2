/* Locus Poker: the grid for two people on one device or one against the computer. */
import { t, el, api, showError, GamePage } from "./table_games.js";
var selected = null;
var preview = null;
var page = new GamePage(render);

function isRed(code) { return code && (code[1] === "H" || code[1] === "D"); }

// The scoring area and neighbouring chips of (row, col), as in RULES.md §4.
function area(state, row, col) {
  var cards = [state.grid[row][col].card], orthogonal = 0, diagonal = 0, cells = [[row, col]];
  for (var dr = -1; dr <= 1; dr++) {
    for (var dc = -1; dc <= 1; dc++) {
      var r = row + dr, c = col + dc;
      if ((dr || dc) && r >= 0 && r < state.rows && c >= 0 && c < state.cols) {
        var cell = state.grid[r][c];
        if (cell.played && cell.played.face_down) continue;
        cards.push(cell.card); cells.push([r, c]);
        if (cell.played) { if (dr === 0 || dc === 0) orthogonal++; else diagonal++; }
      }
    }
  }
  return { cards: cards, chips: { orthogonal: orthogonal, diagonal: diagonal }, cells: cells };
}

function select(row, col) {
  var state = page.game.state;
  selected = [row, col];
  preview = null;
  render(page.game);
  var a = area(state, row, col);
  var url = "/api/v1/games/modules/locus-poker/evaluate";
  Promise.all([false, true].map(function (down) {
    return api("POST", url, { cards: a.cards, face_down: down, chips: a.chips });
  })).then(function (scores) {
    if (selected && selected[0] === row && selected[1] === col) { preview = scores; render(page.game); }
  }).catch(function (e) { showError(e.message); });
}

function render(game) {
  var state = game.state;
  var mine = page.canAct();
  var current = state.current_player;

  var scores = document.getElementById("scores");
  scores.textContent = "";
  state.players.forEach(function (player, p) {
    scores.appendChild(el("div", { class: "stat p" + p + (current === p ? " current" : "") }, [
      el("span", { class: "label", text: player }),
      el("span", { class: "value", text: String(state.scores[p]) }),
      el("span", { class: "label", text: t("locus.chips_left", { n: state.chips_left[p] }) })]));
  });

  document.getElementById("status").textContent = game.is_over ? t("games.over")
    : t("games.to_move", { name: state.players[current] }) + (mine ? " — " + t("locus.pick") : "");

  var inArea = {};
  if (selected && !state.grid[selected[0]][selected[1]].played) {
    area(state, selected[0], selected[1]).cells.forEach(function (rc) { inArea[rc[0] + "," + rc[1]] = true; });
  } else { selected = null; preview = null; }

  var grid = document.getElementById("grid");
  grid.textContent = "";
  grid.style.gridTemplateColumns = "repeat(" + state.cols + ", minmax(0, 1fr))";
  state.grid.forEach(function (rowCells, r) {
    rowCells.forEach(function (cell, c) {
      var classes = ["locus-card", isRed(cell.card) ? "red" : "black"];
      if (cell.played) classes.push("chip-p" + cell.played.player, cell.played.face_down ? "dead" : "up");
      if (inArea[r + "," + c]) classes.push("area");
      if (selected && selected[0] === r && selected[1] === c) classes.push("selected");
      var label = cell.display + (cell.played ? " · " + state.players[cell.played.player] + (cell.played.face_down ? " ▼" : "") : "");
      grid.appendChild(el("button", {
        type: "button", class: classes.join(" "), "aria-label": label,
        "aria-pressed": selected && selected[0] === r && selected[1] === c ? "true" : "false",
        disabled: cell.played || !mine ? "disabled" : null,
        onclick: function () { select(r, c); }
      }, [el("span", { class: "face", text: cell.display }), cell.played ? el("span", { class: "chip", "aria-hidden": "true" }) : null]));
    });
  });

  var choice = document.getElementById("choice");
  choice.hidden = !(mine && selected);
  var up = document.getElementById("play-up"), down = document.getElementById("play-down");
  up.textContent = t("locus.face_up", { score: preview ? preview[0].score : "…" });
  down.textContent = t("locus.face_down", { score: preview ? preview[1].score : "…" });

  var turns = document.getElementById("turns");
  turns.textContent = "";
  state.turns.slice().reverse().forEach(function (turn) {
    var who = state.players[turn.player];
    turns.appendChild(el("li", { class: "p" + turn.player, text: who + ": " + state.grid[turn.row][turn.col].display +
      (turn.face_down ? " ▼" : "") + " — " + t("locus.cat." + turn.category) + " " + turn.hand_score + " + " +
      t("locus.bonus") + " " + turn.bonus_score + " = " + turn.score }));
  });

  var result = document.getElementById("result");
  result.hidden = !game.is_over;
  result.textContent = "";
  if (game.is_over && state.result) {
    var r = state.result;
    result.appendChild(el("h2", { text: r.draw ? t("games.draw") : t("games.winner", { name: state.players[r.winner] }) }));
    result.appendChild(el("p", { text: state.players[0] + " " + r.scores[0] + " : " + r.scores[1] + " " + state.players[1] }));
  }
}

function play(faceDown) {
  if (!selected) return;
  var action = { type: "play", row: selected[0], col: selected[1], face_down: faceDown };
  selected = null; preview = null;
  page.act(action);
}
document.getElementById("play-up").addEventListener("click", function () { play(false); });
document.getElementById("play-down").addEventListener("click", function () { play(true); });

page.load();
page.poll(5);
