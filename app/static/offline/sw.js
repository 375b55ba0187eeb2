/* The service worker of the offline phone (served at /sw.js, scope /).
 *
 * - Precaches the app shell (/me/offline) and its assets.
 * - A CP's QR page `/t/{code}` is answered with the app shell once the device holds the
 *   participant's bundle (they opened /me online once): the shell records the scan on
 *   the device first and shows the result at once, with or without network. Without a
 *   bundle the request goes to the server (its own /t/{code} page).
 * - Other pages go to the network; without network, the shell (my game, offline).
 * - Assets: from the cache of this version (a new asset means a new sw.js, see VERSION).
 * - The shell it serves carries the device's data (a JSON data block), and it does that
 *   page's IndexedDB writes (`message`): the page never waits to open IndexedDB.
 */
// An ES module (registered with `type: "module"`, register.js). Set by the server in front
// of this file (app/web/phone/offline.py): ROGAINE_VERSION (a hash of the assets, so any
// change of an asset installs a new worker) and ROGAINE_ASSETS (what to precache: the
// pages' entry files under their content-hashed names, the modules they import under
// their plain names, and two routes).
import * as Store from "/static/offline/store.js";

var VERSION = self.ROGAINE_VERSION || "dev";
var ASSET_CACHE = "rogaine-assets-" + VERSION;
var SHELL_CACHE = "rogaine-shell"; // also refreshed in the page's language (`refresh`)
var SHELL = "/me/offline";
var ASSETS = self.ROGAINE_ASSETS || [];

self.addEventListener("install", function (event) {
  event.waitUntil(Promise.all([
    caches.open(ASSET_CACHE).then(function (cache) { return cache.addAll(ASSETS); }),
    caches.open(SHELL_CACHE).then(function (cache) { return cache.add(SHELL); })
  ]).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n !== ASSET_CACHE && n !== SHELL_CACHE; })
      .map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

function shell() {
  return caches.match(SHELL, { cacheName: SHELL_CACHE }).then(function (hit) { return hit || fetch(SHELL); });
}

/* The shell with the device's data in it (read here, where the database is open): the
 * page starts without opening IndexedDB (`offline-data`, read by store.js). */
function shellWithData() {
  return Promise.all([shell(), Store.getMany(Store.KEYS)]).then(function (both) {
    var response = both[0];
    return response.text().then(function (html) {
      var json = JSON.stringify(both[1]).replace(/</g, "\\u003c");
      html = html.replace('<div id="offline-app"',
        '<script type="application/json" id="offline-data">' + json + '</script><div id="offline-app"');
      return new Response(html, { status: response.status, headers: response.headers });
    });
  });
}

/* The device's id (made once, kept in IndexedDB; the shell's syncs send the same). */
function deviceId() {
  return Store.get("device").then(function (device) {
    if (device) return device;
    device = "phone-" + Array.prototype.map.call(crypto.getRandomValues(new Uint8Array(8)),
      function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
    return Store.writes.put("device", device).then(function () { return device; });
  }).catch(function () { return null; });
}

/* `refresh` (register.js on /me and after an action done online): the participant's
 * bundle into IndexedDB and the app shell (in the page's language: the cookie goes with
 * the request) into its cache, here rather than on the page's main thread. The fetch
 * names the device and its clock: the server keeps what it learns of this device's
 * clock (RULES.md I-22). Answers "ready", or "signed-out" (401). */
function refresh() {
  var writes = Store.writes;
  return deviceId().then(function (device) {
    var query = device ? "?device=" + device + "&at=" + encodeURIComponent(new Date().toISOString()) : "";
    return fetch("/me/offline.json" + query, { credentials: "same-origin", cache: "no-cache" });
  }).then(function (response) {
    if (response.status === 401) return writes.put("ready", false).then(function () { return "signed-out"; });
    if (!response.ok) throw new Error("no bundle");
    return response.json()
      .then(function (bundle) { return writes.put("bundle", bundle); })
      .then(function () { return writes.put("ready", true); })
      .then(function () { return caches.open(SHELL_CACHE); })
      .then(function (cache) { return cache.add(SHELL); })
      .then(function () { return "ready"; });
  });
}

/* Writes of the pages this worker served with their data (store.js `write`), and
 * `refresh`. */
self.addEventListener("message", function (event) {
  var data = event.data, port = event.ports[0];
  if (data && data.type === "rogaine-refresh" && port) {
    event.waitUntil(refresh().then(function (state) {
      port.postMessage({ ok: true, state: state });
    }, function (error) {
      port.postMessage({ ok: false, error: String(error) });
    }));
    return;
  }
  if (!data || data.type !== "rogaine-store" || !port || !Store.writes[data.name]) return;
  event.waitUntil(Store.writes[data.name].apply(null, data.args).then(function () {
    port.postMessage({ ok: true });
  }, function (error) {
    port.postMessage({ ok: false, error: String(error) });
  }));
});

function hasBundle() {
  return Store.get("ready").then(function (b) { return !!b; }, function () { return false; });
}

function cacheFirst(request) {
  return caches.match(request, { cacheName: ASSET_CACHE }).then(function (hit) { return hit || fetch(request); });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    if (url.pathname.indexOf("/t/") === 0) {
      event.respondWith(hasBundle().then(function (ready) {
        return ready ? shellWithData().catch(shell) : fetch(request);
      }));
    } else if (url.pathname === SHELL) {
      event.respondWith(hasBundle().then(function (ready) {
        return ready ? shellWithData().catch(shell) : shell();
      }));
    } else {
      event.respondWith(fetch(request).catch(function () {
        return hasBundle().then(function (ready) {
          if (ready) return shell();
          throw new Error("offline");
        });
      }));
    }
    return;
  }
  if (ASSETS.indexOf(url.pathname) >= 0) event.respondWith(cacheFirst(request));
});
