/* On the participant's pages: install the service worker (scope /); on /me also keep the
 * participant's bundle (/me/offline.json: encrypted deck, own save codes, state) on the
 * device, so the CP pages work without network. Once the device can play offline: sets
 * data-offline="ready" on <html> and says so at the end of the page. The app shell (/me/offline) refreshes the bundle
 * itself. */
(function () {
  "use strict";
  if (!("serviceWorker" in navigator) || !window.indexedDB || !window.crypto || !crypto.subtle) return;
  if (location.pathname === "/me/offline" || location.pathname.indexOf("/t/") === 0) return;
  var root = document.documentElement;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
  // The bundle is refreshed on "my game" and on every page after an action done online
  // (a take's result, a confirmation): the shell then predicts what the server does.
  if (location.pathname !== "/me" && location.pathname.indexOf("/me/takes/") !== 0) return;
  var mine = location.pathname === "/me";
  RogaineStore.get("device").then(function (device) {
    if (device) return device;
    device = "phone-" + Array.prototype.map.call(crypto.getRandomValues(new Uint8Array(8)),
      function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
    return RogaineStore.put("device", device).then(function () { return device; });
  }).catch(function () { return null; }).then(function (device) {
    // the device's id and clock: the server keeps what it learns of this device's clock
    var query = device ? "?device=" + device + "&at=" + encodeURIComponent(new Date().toISOString()) : "";
    return fetch("/me/offline.json" + query, { credentials: "same-origin", cache: "no-store" });
  })
    .then(function (response) {
      if (response.status === 401 && mine) {  // signed out: CP pages go to the server again
        return RogaineStore.put("ready", false).then(function () { throw new Error("signed out"); });
      }
      if (!response.ok) throw new Error("no bundle");
      return response.json();
    })
    .then(function (bundle) {
      return RogaineStore.put("bundle", bundle).then(function () { return RogaineStore.put("ready", true); });
    })
    .then(function () { return caches.open("rogaine-shell"); })
    .then(function (cache) { return cache.add("/me/offline"); })  // in the page's language
    .then(function () { return navigator.serviceWorker.ready; })
    .then(function () {
      root.setAttribute("data-offline", "ready");
      var text = document.querySelector('meta[name="rogaine-offline-ready"]'), main = document.getElementById("main");
      if (text && main && !document.getElementById("offline-ready")) {
        var note = document.createElement("p");
        note.className = "help";
        note.id = "offline-ready";
        note.textContent = text.getAttribute("content");
        main.appendChild(note);
      }
    })
    .catch(function () { root.setAttribute("data-offline", "off"); });
})();
