/* The offline shell's texts and DOM helpers: the catalogue strings the server put into
 * the page (#offline-strings, app/web/phone/offline.py `SHELL_PREFIXES`), the page
 * language, card names and colours as the server's pages draw them, `el` (no innerHTML:
 * every text goes through textContent) and the performance marks of
 * benchmarks/offline.py. */

var stringsNode = document.getElementById("offline-strings");
var S = stringsNode ? JSON.parse(stringsNode.textContent) : {};
var SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

/* The page language ("ru" or "en"). */
export var lang = document.documentElement.lang || "ru";

/* Performance marks (start, loaded, classified, recorded, result). */
export function mark(name) {
  if (window.performance && performance.mark) performance.mark(name);
}

/* The catalogue text of `key` with `{name}` placeholders filled from `values`. */
export function t(key, values) {
  var text = Object.prototype.hasOwnProperty.call(S, key) ? S[key] : key;
  return values ? text.replace(/\{(\w+)\}/g, function (m, k) {
    return values[k] === undefined ? m : String(values[k]);
  }) : text;
}

/* A card code as the pages write it: `10♥`, `Q♠`, the joker by name. */
export function cardText(code) {
  if (!code) return "";
  if (code.indexOf("JK") === 0) return lang === "ru" ? "\u0414\u0436\u043e\u043a\u0435\u0440" : "Joker";
  return (code[0] === "T" ? "10" : code[0]) + (SUITS[code[1]] || code[1]);
}

/* The class of a card's colour: `red`, `black` or `joker`. */
export function colour(code) {
  if (!code) return "black";
  if (code.indexOf("JK") === 0) return "joker";
  return code[1] === "H" || code[1] === "D" ? "red" : "black";
}

/* An element with attributes (`text`: its text, `class`) and children (strings become
 * text nodes; null, undefined and false are skipped). */
export function el(tag, attrs) {
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
