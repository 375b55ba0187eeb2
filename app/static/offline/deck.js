/* Opening the encrypted deck with WebCrypto (the derivations of app/flows/offline.py):
 * index = HKDF-SHA256(code, salt, "rogaine-deck/v1 index", 16 bytes), base64url;
 * key = HKDF-SHA256(code, salt, "rogaine-deck/v1 key", 32 bytes) for AES-256-GCM with the
 * entry's 12-byte nonce and aad "rogaine-deck/v1|event=<id>|<index>". A code opens only
 * its own CP: `openEntry` gives {n, c, d} or null. */
import { TYPED_ALPHABET, TYPED_LENGTH } from "./rules.js";

var enc = new TextEncoder(), dec = new TextDecoder();

function b64urlDecode(text) {
  var b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  while (b64.length % 4) b64 += "=";
  var bin = atob(b64), out = new Uint8Array(bin.length);
  for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function b64urlEncode(bytes) {
  var bin = "";
  for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function derive(code, salt, info, bytes) {
  return crypto.subtle.importKey("raw", enc.encode(code), "HKDF", false, ["deriveBits"])
    .then(function (ikm) {
      return crypto.subtle.deriveBits(
        { name: "HKDF", hash: "SHA-256", salt: salt, info: enc.encode(info) }, ikm, bytes * 8);
    });
}

/* The typed form of a normalised CP code (app/events/codes.py `typed_form`): a code of
 * that shape is its own; else SHA-256("rogaine-typed/v1|" + code), its first 11 bytes
 * mod 26^18 as 18 digits of the typed alphabet. */
function typedForm(code) {
  var alphabet = TYPED_ALPHABET, length = TYPED_LENGTH;
  var shaped = code.length === length && code.split("").every(function (c) { return alphabet.indexOf(c) >= 0; });
  if (shaped) return Promise.resolve(code);
  return crypto.subtle.digest("SHA-256", enc.encode("rogaine-typed/v1|" + code)).then(function (digest) {
    var bytes = new Uint8Array(digest), number = BigInt(0), base = BigInt(alphabet.length), out = "";
    for (var i = 0; i < 11; i++) number = number * BigInt(256) + BigInt(bytes[i]);
    for (var k = 0; k < length; k++) {
      out = alphabet[Number(number % base)] + out;
      number = number / base;
    }
    return out;
  });
}

/* {n, c, d} of the CP whose normalised code (or typed form) is `code`, or null (no such
 * entry): the keys derive from the typed form. */
function openEntry(deck, code) {
  var salt = b64urlDecode(deck.salt);
  return typedForm(code).then(function (typed) {
    code = typed;
    return derive(code, salt, "rogaine-deck/v1 index", 16);
  }).then(function (bits) {
    var index = b64urlEncode(new Uint8Array(bits));
    var entry = deck.entries[index];
    if (!entry) return null;
    var raw = b64urlDecode(entry);
    return derive(code, salt, "rogaine-deck/v1 key", 32).then(function (keyBits) {
      return crypto.subtle.importKey("raw", keyBits, "AES-GCM", false, ["decrypt"]);
    }).then(function (key) {
      return crypto.subtle.decrypt({
        name: "AES-GCM", iv: raw.slice(0, 12),
        additionalData: enc.encode("rogaine-deck/v1|event=" + deck.event + "|" + index)
      }, key, raw.slice(12));
    }).then(function (plain) { return JSON.parse(dec.decode(plain)); });
  });
}

export { openEntry, typedForm };
