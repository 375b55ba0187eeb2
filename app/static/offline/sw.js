/* The service worker of the offline phone (served at /sw.js, scope /).
 *
 * - Precaches the app shell (/me/offline) and its assets.
 * - A CP's QR page `/t/{code}` is answered with the app shell once the device holds the
 *   participant's bundle (they opened /me online once): the shell records the scan on
 *   the device first and shows the result at once, with or without network. Without a
 *   bundle the request goes to the server (its own /t/{code} page).
 * - Other pages go to the network; without network, the shell (my game, offline).
 * - Assets: from the cache at once, refreshed in the background.
 */
"use strict";
importScripts("/static/offline/store.js");

var CACHE = "rogaine-offline-v1";
var SHELL = "/me/offline";
var ASSETS = [
  SHELL, "/static/app.css", "/static/offline/app.js", "/static/offline/rules.js",
  "/static/offline/store.js", "/static/offline/deck.js", "/static/offline/register.js",
  "/manifest.webmanifest", "/static/offline/icon-192.png", "/favicon.ico"
];

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll(ASSETS); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n !== CACHE; })
      .map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

function shell() {
  return caches.match(SHELL).then(function (hit) { return hit || fetch(SHELL); });
}

function hasBundle() {
  return self.RogaineStore.get("bundle").then(function (b) { return !!b; }, function () { return false; });
}

function fromCacheThenRefresh(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request).then(function (hit) {
      var refresh = fetch(request).then(function (response) {
        if (response.ok) cache.put(request, response.clone());
        return response;
      });
      if (hit) { refresh.catch(function () {}); return hit; }
      return refresh;
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    if (url.pathname.indexOf("/t/") === 0) {
      event.respondWith(hasBundle().then(function (ready) {
        return ready ? shell() : fetch(request);
      }));
    } else if (url.pathname === SHELL) {
      event.respondWith(fromCacheThenRefresh(new Request(SHELL)));
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
  if (ASSETS.indexOf(url.pathname) >= 0) event.respondWith(fromCacheThenRefresh(request));
});
