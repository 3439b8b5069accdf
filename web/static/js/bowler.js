// The bowler this device is remembered as: their key, kept in the
// device's storage (never in a URL), sent on a join and in the
// Authorization header of the bowlers' API.
const keyName = "tenpin-bowler-key";

// bowlerKey is the key this device keeps, or "".
export function bowlerKey() {
  try { return localStorage.getItem(keyName) || ""; } catch { return ""; }
}

// keepBowlerKey keeps key on this device.
export function keepBowlerKey(key) {
  try { localStorage.setItem(keyName, key); } catch { /* storage off: a guest */ }
}

// forgetBowlerKey forgets this device's key.
export function forgetBowlerKey() {
  try { localStorage.removeItem(keyName); } catch { /* storage off */ }
}

// authorized is fetch's options for a request of the bowlers' API with
// this device's key, and more.
export function authorized(key, more = {}) {
  return { cache: "no-store", ...more, headers: { ...(more.headers || {}), Authorization: "Bowler " + key } };
}
