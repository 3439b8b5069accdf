// What the league's pages share: the secretary's key as this device
// keeps it (localStorage, never in a URL), the API's refusals, and how points
// are said.
import { el } from "./dom.js";
import { errorText, num } from "./i18n.js";

const keyName = (id) => "tenpin-league-key:" + id;
const newName = "tenpin-league-new";

// secretaryKey is the key this device keeps for league id, or "".
export function secretaryKey(id) {
  try { return localStorage.getItem(keyName(id)) || ""; } catch { return ""; }
}

// keepSecretaryKey keeps league id's key on this device.
export function keepSecretaryKey(id, key) {
  try { localStorage.setItem(keyName(id), key); } catch { /* storage off */ }
}

// forgetSecretaryKey forgets league id's key on this device.
export function forgetSecretaryKey(id) {
  try { localStorage.removeItem(keyName(id)); } catch { /* storage off */ }
}

// markCreated notes, for this tab only, that league id was created here:
// its page shows the key once, to be kept.
export function markCreated(id) {
  try { sessionStorage.setItem(newName, id); } catch { /* storage off */ }
}

// takeCreated says whether league id was just created in this tab, and
// forgets it: the key is shown once.
export function takeCreated(id) {
  try {
    if (sessionStorage.getItem(newName) !== id) return false;
    sessionStorage.removeItem(newName);
    return true;
  } catch {
    return false;
  }
}

// refusal reads an API's error answer: { code, message }.
export async function refusal(res) {
  let body = {};
  try { body = await res.json(); } catch { /* not JSON */ }
  return { code: typeof body.code === "string" ? body.code : "unknown", message: typeof body.message === "string" ? body.message : "", status: res.status };
}

// refusalNodes are the page's words for a refusal, and the server's
// reason, in English as the server says it, where it says which and why.
export function refusalNodes(r) {
  const out = [el("span", { text: errorText(r.code) })];
  if (r.message && ["invalid_league", "invalid_night", "invalid_score", "night_incomplete", "wrong_week", "bad_request"].includes(r.code)) {
    out.push(" ", el("span", { class: "reason", lang: "en", text: r.message }));
  }
  return out;
}

// points says points, whole or half.
export function pointsText(n) {
  return num(n, Number.isInteger(n) ? 0 : 1);
}
