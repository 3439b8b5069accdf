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
// until the server knows it: it makes the bowler at the player's first
// ball, on its own time, and until then knows the key as nobody's (a join
// or /me with it would be refused, and the key forgotten). The page asks
// the server once the board shows a ball of its player, and again at its
// next start: a key becomes this device's only once /api/bowlers/me
// answers for it, and a pending key is never forgotten for a refusal.
const pendingPrefix = "tenpin-bowler-key-pending:";

// keepPendingKey keeps key, a new bowler's, for lane.
export function keepPendingKey(lane, key) {
  try { localStorage.setItem(pendingPrefix + lane, key); } catch { /* storage off: a guest */ }
}

// promotePendingKey asks the server about lane's pending key, if any,
// once board shows that the player named name has bowled.
export function promotePendingKey(lane, board, name) {
  let key = "";
  try { key = localStorage.getItem(pendingPrefix + lane) || ""; } catch { return; }
  if (key && name && hasBowled(board, name)) confirmPendingKeys(false);
}

// hasBowled reports whether board shows a ball of the player name: in
// the game in play, or in the lane's series.
function hasBowled(board, name) {
  const p = (board.players || []).find((p) => p.name === name);
  if (p && p.frames.some((f) => f.rolls.length > 0)) return true;
  return (board.series || []).some((s) => s.name === name);
}

// confirmPendingKeys makes a pending key this device's key once the
// server knows it. Asked at a page's start (now), and after a first ball,
// when the bowler is made a moment later: then again a few times, a
// moment apart, until the server knows it. Each ask of a key the server
// does not know yet costs the address a guess, so they are few.
let asking = false, retries = 5, timer = 0;
export async function confirmPendingKeys(now) {
  if (bowlerKey()) return;
  if (!now || asking) {
    askAgain();
    return;
  }
  const pending = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const name = localStorage.key(i);
      if (name && name.startsWith(pendingPrefix)) pending.push(name);
    }
  } catch { return; }
  if (!pending.length) return;
  asking = true;
  try {
    for (const name of pending) {
      const key = localStorage.getItem(name);
      const res = await fetch("/api/bowlers/me", authorized(key));
      if (res.ok) {
        keepBowlerKey(key);
        for (const n of pending) localStorage.removeItem(n); // this device is that bowler now
        return;
      }
    }
  } catch { /* offline, or storage off: asked again later */ } finally {
    asking = false;
  }
}

// askAgain asks in a moment, unless an ask waits already or the page has
// asked enough: the next start asks again.
function askAgain() {
  if (timer || retries <= 0) return;
  retries--;
  timer = setTimeout(async () => {
    timer = 0;
    await confirmPendingKeys(true);
    if (!bowlerKey()) askAgain();
  }, 1500);
}

// authorized is fetch's options for a request of the bowlers' API with
// this device's key, and more.
export function authorized(key, more = {}) {
  return { cache: "no-store", ...more, headers: { ...(more.headers || {}), Authorization: "Bowler " + key } };
}
