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

// A new bowler's key, from a join's welcome, is kept for its lane alone
// until the player's first ball shows on the board: the server makes the
// bowler then, and until then knows the key as nobody's (a join elsewhere
// with it would be refused, and the key forgotten).
const pendingName = (lane) => "tenpin-bowler-key-pending:" + lane;

// keepPendingKey keeps key, a new bowler's, for lane.
export function keepPendingKey(lane, key) {
  try { localStorage.setItem(pendingName(lane), key); } catch { /* storage off: a guest */ }
}

// promotePendingKey makes lane's pending key, if any, this device's key,
// once board shows that seat, the player named name, has bowled.
export function promotePendingKey(lane, board, name) {
  let key = "";
  try { key = localStorage.getItem(pendingName(lane)) || ""; } catch { return; }
  if (!key || !name || !hasBowled(board, name)) return;
  keepBowlerKey(key);
  try { localStorage.removeItem(pendingName(lane)); } catch { /* storage off */ }
}

// hasBowled reports whether board shows a ball of the player name: in
// the game in play, or in the lane's series.
function hasBowled(board, name) {
  const p = (board.players || []).find((p) => p.name === name);
  if (p && p.frames.some((f) => f.rolls.length > 0)) return true;
  return (board.series || []).some((s) => s.name === name);
}

// authorized is fetch's options for a request of the bowlers' API with
// this device's key, and more.
export function authorized(key, more = {}) {
  return { cache: "no-store", ...more, headers: { ...(more.headers || {}), Authorization: "Bowler " + key } };
}
