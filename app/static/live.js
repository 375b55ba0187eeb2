/* Small progressive enhancements for the pages (they all work without JavaScript):
 * - [data-countdown-to="ISO UTC"]: a live countdown (d h:mm:ss);
 * - [data-live-url]: polls that JSON endpoint every few seconds and writes each value
 *   into the descendants marked [data-live-field="key"]; when the JSON has a
 *   "version" that differs from [data-live-version], the page reloads;
 * - body.projector: the reveal is the server's (RULES.md I-21: the buttons are forms that
 *   POST the next step, or all of them); Space / Right arrow sends the next step, and
 *   the step revealed last ([data-reveal-latest] names its id) is scrolled to the
 *   middle of the screen, also after live-stream.js swapped the page in place.
 */
document.documentElement.classList.add("js");

function pad(n) { return n < 10 ? "0" + n : String(n); }

function tickCountdowns() {
  var nodes = document.querySelectorAll("[data-countdown-to]");
  var now = Date.now();
  for (var i = 0; i < nodes.length; i++) {
    var target = Date.parse(nodes[i].getAttribute("data-countdown-to"));
    if (isNaN(target)) continue;
    var s = Math.max(0, Math.floor((target - now) / 1000));
    var d = Math.floor(s / 86400); s -= d * 86400;
    var h = Math.floor(s / 3600); s -= h * 3600;
    var m = Math.floor(s / 60); s -= m * 60;
    nodes[i].textContent = (d ? d + "d " : "") + h + ":" + pad(m) + ":" + pad(s);
  }
}

function poll(root) {
  var url = root.getAttribute("data-live-url");
  var every = parseInt(root.getAttribute("data-live-every") || "5", 10) * 1000;
  function once() {
    fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (!data) return;
        var version = root.getAttribute("data-live-version");
        if (version !== null && data.version !== undefined && String(data.version) !== version) {
          window.location.reload();
          return;
        }
        var fields = root.querySelectorAll("[data-live-field]");
        for (var i = 0; i < fields.length; i++) {
          var key = fields[i].getAttribute("data-live-field");
          if (Object.prototype.hasOwnProperty.call(data, key)) {
            fields[i].textContent = String(data[key]);
          }
        }
      })
      .catch(function () { /* bad network: try again on the next tick */ })
      .then(function () { window.setTimeout(once, every); });
  }
  window.setTimeout(once, every);
}

function projector() {
  /* the step revealed last, in the middle of the screen (a 1280x800 projector) */
  var root = document.querySelector("[data-reveal-latest]");
  var latest = root && document.getElementById(root.getAttribute("data-reveal-latest"));
  if (latest && latest.scrollIntoView) latest.scrollIntoView({ block: "center" });
  if (!projector.keys) {
    projector.keys = true;
    document.addEventListener("keydown", function (e) {
      if (e.key !== " " && e.key !== "ArrowRight") return;
      var form = document.getElementById("reveal-next-form");
      if (!form) return;
      e.preventDefault();
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    });
  }
}

document.addEventListener("DOMContentLoaded", function () {
  if (document.querySelector("[data-countdown-to]")) {
    tickCountdowns();
    window.setInterval(tickCountdowns, 1000);
  }
  var live = document.querySelectorAll("[data-live-url]");
  for (var i = 0; i < live.length; i++) poll(live[i]);
  if (document.body.classList.contains("projector")) projector();
});
document.addEventListener("live:swapped", function () {
  if (document.body.classList.contains("projector")) projector();
});
