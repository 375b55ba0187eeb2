/* On the participant's pages: install the service worker (scope /) once the page has
 * loaded; on /me also ask it to keep the participant's bundle (/me/offline.json:
 * encrypted deck, own save codes, state) and the app shell on the device, so the CP
 * pages work without network. The worker does the fetch, the JSON and the IndexedDB
 * writes off this page's main thread (sw.js `refresh`); the page only waits for its
 * answer. Once the device can play offline: sets data-offline="ready" on <html> and says
 * so at the end of the page ("off" when signed out or it failed). The app shell
 * (/me/offline) refreshes the bundle itself. An ES module (no globals). */
var root = document.documentElement;

/* Whether this page installs the worker: a browser with what the offline mode needs, and
 * not the app shell (its own page). */
function wanted() {
  if (!("serviceWorker" in navigator) || !window.indexedDB || !window.crypto || !crypto.subtle) return false;
  return location.pathname !== "/me/offline" && location.pathname.indexOf("/t/") !== 0;
}

function ask(worker) {  // the worker's answer to `refresh`: "ready" or "signed-out"
  return new Promise(function (resolve, reject) {
    var channel = new MessageChannel();
    channel.port1.onmessage = function (event) {
      if (event.data && event.data.ok) resolve(event.data.state);
      else reject(new Error("refresh: " + (event.data && event.data.error)));
    };
    worker.postMessage({ type: "rogaine-refresh" }, [channel.port2]);
  });
}

function done() {
  root.setAttribute("data-offline", "ready");
  var text = document.querySelector('meta[name="rogaine-offline-ready"]'), main = document.getElementById("main");
  if (text && main && !document.getElementById("offline-ready")) {
    var note = document.createElement("p");
    note.className = "help";
    note.id = "offline-ready";
    note.textContent = text.getAttribute("content");
    main.appendChild(note);
  }
}

function start() {
  // A module worker (sw.js imports store.js); a browser without module workers refuses it
  // and the CP pages stay the server's.
  navigator.serviceWorker.register("/sw.js", { scope: "/", type: "module" }).catch(function () {});
  // The bundle is refreshed on "my game" and on every page after an action done online
  // (a take's result, a confirmation): the shell then predicts what the server does.
  if (location.pathname !== "/me" && location.pathname.indexOf("/me/takes/") !== 0) return;
  navigator.serviceWorker.ready
    .then(function (registration) { return ask(registration.active); })
    .then(function (state) {
      if (state !== "ready") throw new Error(state); // signed out: CP pages go to the server
      done();
    })
    .catch(function () { root.setAttribute("data-offline", "off"); });
}

if (wanted()) {
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start);
}
