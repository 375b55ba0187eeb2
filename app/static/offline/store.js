/* The device's offline store (IndexedDB `rogaine-offline`), for the pages and the service
 * worker: `kv` holds the bundle (`bundle`, from /me/offline.json), the device's source id
 * (`device`), opened deck entries (`opened`: code -> {n, c, d} or null), source ids already
 * stored by the server (`synced`: source id -> take id) and the last changes (`changes`);
 * `queue` holds the takes waiting to be sent ({source_id, code, taken_at, seq,
 * participant, event}), keyed by source id. An ES module: the shell's modules and the
 * (module) service worker import it. */
var DB_NAME = "rogaine-offline", DB_VERSION = 1;
var opening = null;

function open() {
  if (opening) return opening;
  opening = new Promise(function (resolve, reject) {
    var request = indexedDB.open(DB_NAME, DB_VERSION);
    request.onupgradeneeded = function () {
      var db = request.result;
      if (!db.objectStoreNames.contains("kv")) db.createObjectStore("kv");
      if (!db.objectStoreNames.contains("queue")) db.createObjectStore("queue", { keyPath: "source_id" });
    };
    request.onsuccess = function () { resolve(request.result); };
    request.onerror = function () { opening = null; reject(request.error); };
  });
  return opening;
}

function run(storeName, mode, work) {
  return open().then(function (db) {
    return new Promise(function (resolve, reject) {
      // The queue is written with the browser's default durability; the kv caches relaxed.
      var options = storeName === "kv" && mode === "readwrite" ? { durability: "relaxed" } : undefined;
      var tx = db.transaction(storeName, mode, options), store = tx.objectStore(storeName), result;
      var request = work(store);
      if (request) request.onsuccess = function () { result = request.result; };
      tx.oncomplete = function () { resolve(result); };
      tx.onerror = tx.onabort = function () { reject(tx.error); };
    });
  });
}

/* Several kv keys, and the queue (as `queue`, oldest first), in one transaction. */
function getMany(keys) {
  return open().then(function (db) {
    return new Promise(function (resolve, reject) {
      var tx = db.transaction(["kv", "queue"], "readonly"), store = tx.objectStore("kv"), out = {};
      keys.forEach(function (key) {
        store.get(key).onsuccess = function (event) { out[key] = event.target.result; };
      });
      tx.objectStore("queue").getAll().onsuccess = function (event) {
        out.queue = (event.target.result || []).sort(function (a, b) { return a.seq - b.seq; });
      };
      tx.oncomplete = function () { resolve(out); };
      tx.onerror = tx.onabort = function () { reject(tx.error); };
    });
  });
}

// The writes, by name: also run by the service worker for a page it serves (`message`).
var writes = {
  put: function (key, value) { return run("kv", "readwrite", function (s) { s.put(value, key); }); },
  enqueue: function (item) { return run("queue", "readwrite", function (s) { s.put(item); }); },
  dequeue: function (ids) {
    return run("queue", "readwrite", function (s) { ids.forEach(function (id) { s.delete(id); }); });
  }
};
var viaWorker = false;

/* A write: through the service worker when it served this page with the data (its
 * database is open, the page's is not: opening one costs the page's main thread), else
 * here; the promise settles once the transaction has committed. */
function write(name, args) {
  var worker = viaWorker && navigator.serviceWorker && navigator.serviceWorker.controller;
  if (!worker) return writes[name].apply(null, args);
  return new Promise(function (resolve, reject) {
    var channel = new MessageChannel();
    channel.port1.onmessage = function (event) {
      if (event.data && event.data.ok) resolve();
      else reject(new Error("store: " + (event.data && event.data.error)));
    };
    worker.postMessage({ type: "rogaine-store", name: name, args: args }, [channel.port2]);
  }).catch(function () { return writes[name].apply(null, args); });
}

/* One kv key (read here, not through the worker). */
function get(key) { return run("kv", "readonly", function (s) { return s.get(key); }); }
/* Write one kv key. */
function put(key, value) { return write("put", [key, value]); }
/* The queue, oldest first. */
function queue() {
  return run("queue", "readonly", function (s) { return s.getAll(); }).then(function (items) {
    return (items || []).sort(function (a, b) { return a.seq - b.seq; });
  });
}
/* Add a take to the queue. */
function enqueue(item) { return write("enqueue", [item]); }
/* Remove the takes with these source ids from the queue. */
function dequeue(ids) { return write("dequeue", [ids]); }

var KEYS = ["bundle", "opened", "synced", "changes", "device"];

/* On the app shell: the data the service worker put into the page (then its writes go
 * through the worker), else read at once; null elsewhere (the service worker, other
 * pages). */
function preload() {
  if (typeof location === "undefined" || typeof document === "undefined") return null;
  if (location.pathname !== "/me/offline" && location.pathname.indexOf("/t/") !== 0) return null;
  var given = document.getElementById("offline-data");
  if (!given) return getMany(KEYS);
  viaWorker = true;
  return Promise.resolve(JSON.parse(given.textContent));
}
var preloaded = preload();

export { KEYS, getMany, writes, get, put, queue, enqueue, dequeue, preloaded };
