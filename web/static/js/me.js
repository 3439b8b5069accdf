// A bowler's page: "/me", this device's bowler (their key in the
// device's storage, sent in the Authorization header), or "/b/{share}",
// one a bowler shared, read-only. Their numbers, a chart the server
// draws, the leaves they face most, every game (a page at a time), the
// history as a CSV; and on "/me" their devices: another phone's one-time
// code, a share link, forgetting this phone, deleting the history.
// "/me#link=CODE" is another phone's code, redeemed here for a key of
// this device's own.
import { $, el, say } from "./dom.js";
import { t, applyStatic, errorText, getLang, num, list, langSwitch } from "./i18n.js";
import { bowlerKey, keepBowlerKey, forgetBowlerKey, authorized, confirmPendingKeys } from "./bowler.js";

const shared = (location.pathname.match(/^\/b\/([^/]+)$/) || [])[1] || "";
const base = shared ? "/api/bowlers/shared/" + encodeURIComponent(shared) : "/api/bowlers/me";

// state is what the page shows, kept to say it again in another language.
const state = {
  me: null, // the bowler's numbers, as the API answered
  games: [], // the games shown, newest first
  next: "", // the next page's before
  code: null, // the one-time code shown
  share: "", // the share link made here
  status: () => "", // what the status line says
};

// ask fetches path of the bowlers' API, with this device's key on /me.
function ask(path, opts = {}) {
  return fetch(path, shared ? { cache: "no-store", ...opts } : authorized(bowlerKey(), opts));
}

function setStatus(say) {
  state.status = say;
  $("#me-status").textContent = say();
}

// gone says that this device's key is no longer known, and forgets it.
function gone() {
  if (!shared) forgetBowlerKey();
  state.me = null;
  $("#me-body").hidden = true;
  setStatus(() => shared ? t("sharedGone") : errorText("unknown_bowler"));
}

async function load() {
  if (!shared && !bowlerKey()) await confirmPendingKeys(true); // a bowler made since
  if (!shared && !bowlerKey()) {
    $("#me-body").hidden = true;
    setStatus(() => t("notRemembered"));
    return;
  }
  let res;
  try {
    res = await ask(base);
  } catch {
    setStatus(() => t("meUnreachable"));
    return;
  }
  if (res.status === 401) return gone();
  if (!res.ok) {
    setStatus(() => t("meUnreachable"));
    return;
  }
  state.me = await res.json();
  state.games = [];
  state.next = "";
  setStatus(() => "");
  $("#me-body").hidden = false;
  render();
  await Promise.all([moreGames(), chart()]);
}

// moreGames asks for the next page of games.
async function moreGames() {
  const q = new URLSearchParams({ limit: "20" });
  if (state.next) q.set("before", state.next);
  const res = await ask(base + "/games?" + q);
  if (res.status === 401) return gone();
  if (!res.ok) return;
  const page = await res.json();
  state.games.push(...page.games);
  state.next = page.next || "";
  renderGames();
}

// chart shows the server's chart: fetched with the key (an <img> cannot
// send a header), then shown as an image of its own (a data: URL, which
// the page's policy allows for images), its title its text alternative.
async function chart() {
  const res = await ask(base + "/chart.svg?lang=" + getLang());
  if (!res.ok) return;
  const text = await res.text();
  const svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
  if (svg.nodeName !== "svg") return;
  const title = svg.querySelector("title");
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  $("#chart").replaceChildren(el("img", {
    src: "data:image/svg+xml;base64," + btoa(bin), alt: title ? title.textContent : "", "data-points": String(svg.querySelectorAll("circle").length),
  }));
}

// fig is a figure of the numbers: a whole number, a percentage or an
// average to its decimals, or "—" before there is one.
const fig = (x, digits = 0) => typeof x === "number" ? num(x, digits) : "—";

function render() {
  const me = state.me;
  if (!me) return;
  $("#me-title").textContent = shared ? t("sharedTitle", me.name) : t("meTitle", me.name);
  document.title = $("#me-title").textContent + " — tenpin";
  const rows = [
    ["statGames", fig(me.games)],
    ["statAverage", fig(me.average)],
    ["statHigh", me.games ? fig(me.high_game) : "—"],
    ["highSeries", me.high_series ? fig(me.high_series) : "—"],
    ["statStrikes", typeof me.strike_pct === "number" ? num(me.strike_pct, 1) + "%" : "—"],
    ["statSpares", typeof me.spare_pct === "number" ? num(me.spare_pct, 1) + "%" : "—"],
    ["statFirstBall", fig(me.first_ball_average, 1)],
    ["statClean", fig(me.clean_games)],
    ["statSplits", `${num(me.splits.made)}/${num(me.splits.tries)}`],
    ["statSinglePins", `${num(me.single_pins.made)}/${num(me.single_pins.tries)}`],
  ];
  $("#numbers").replaceChildren(...rows.map(([key, value]) => el("div", { "data-stat": key }, el("dt", { text: t(key) }), el("dd", { text: value }))));
  $("#leaves-section").hidden = me.leaves.length === 0;
  $("#leaves tbody").replaceChildren(...me.leaves.map((l) => el("tr", {},
    el("th", { scope: "row", text: l.pins.join("-") }), el("td", { text: num(l.tries) }), el("td", { text: `${num(l.made)} (${num(Math.round(100 * l.made / l.tries))}%)` }))));
  $("#devices").hidden = !!shared;
  $("#csv-line").hidden = !!shared;
  $("#unshare").hidden = !me.shared;
  $("#share-line").hidden = !state.share;
  $("#share-url").value = state.share;
  renderCode();
  renderGames();
}

function renderGames() {
  const when = (at) => new Date(at).toLocaleDateString(getLang() === "ko" ? "ko-KR" : "en", { dateStyle: "medium" });
  $("#games").replaceChildren(...state.games.map((g) => el("li", { "data-lane": g.lane, "data-game": String(g.game) },
    el("span", { class: "score", text: num(g.score) }), " ",
    el("a", { href: g.sheet, text: t("gameOn", g.lane_name, g.game) }), " ",
    el("span", { class: "hint", text: `${when(g.at)} · ${g.name} · ${g.frames.join(" ")}` }))));
  $("#more").hidden = !state.next;
}

function renderCode() {
  const c = state.code;
  $("#link-code").hidden = !c;
  if (!c) return;
  $("#link-qr").src = c.qr;
  $("#link-qr").alt = t("linkQRAlt");
  const mins = Math.max(0, Math.ceil((new Date(c.expires) - Date.now()) / 60000));
  $("#link-text").textContent = t("linkText", c.code, mins);
}

// post sends a command of the bowlers' API and answers its JSON, or null.
async function send(method, path) {
  const res = await ask(path, { method });
  if (res.status === 401) {
    gone();
    return null;
  }
  if (!res.ok) {
    setStatus(() => t("meUnreachable"));
    return null;
  }
  return res.status === 204 ? {} : res.json();
}

async function downloadCSV() {
  const res = await ask(base + "/games.csv");
  if (!res.ok) return;
  const a = el("a", { href: URL.createObjectURL(await res.blob()), download: "tenpin-my-games.csv" });
  document.body.append(a);
  a.click();
  a.remove();
}

// redeem takes another phone's one-time code from the address (its
// fragment, which no server sees) and asks for this device's own key. It
// returns what to say of a code refused, or null.
async function redeem() {
  const code = new URLSearchParams(location.hash.slice(1)).get("link");
  if (!code) return null;
  history.replaceState(null, "", location.pathname);
  const res = await fetch("/api/bowlers/link", {
    method: "POST", cache: "no-store", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }),
  });
  if (res.ok) {
    keepBowlerKey((await res.json()).bowler_key);
    say(t("linked"));
    return null;
  }
  // The server's code says why (used already, unknown or expired, too
  // many tries); an answer without one is no server's.
  let why = "";
  try { why = (await res.json()).code || ""; } catch { /* not JSON */ }
  return () => errorText(why || "invalid_code");
}

function wire() {
  // A request the network fails says so; the page stays as it was.
  const safely = (f) => async () => {
    try {
      await f();
    } catch {
      setStatus(() => t("meUnreachable"));
    }
  };
  $("#more").addEventListener("click", safely(moreGames));
  $("#csv").addEventListener("click", safely(downloadCSV));
  $("#add-phone").addEventListener("click", safely(async () => {
    state.code = await send("POST", base + "/codes");
    renderCode();
  }));
  $("#share").addEventListener("click", safely(async () => {
    const s = await send("POST", base + "/share");
    if (!s) return;
    state.share = s.url;
    state.me.shared = true;
    render();
  }));
  $("#unshare").addEventListener("click", safely(async () => {
    if (!(await send("DELETE", base + "/share"))) return;
    state.share = "";
    state.me.shared = false;
    render();
  }));
  $("#forget").addEventListener("click", safely(async () => {
    if (!window.confirm(t("confirmForget"))) return;
    if (!(await send("DELETE", base + "/key"))) return;
    forgetBowlerKey();
    $("#me-body").hidden = true;
    setStatus(() => t("forgotten"));
  }));
  $("#delete").addEventListener("click", safely(async () => {
    if (!window.confirm(t("confirmDelete"))) return;
    if (!(await send("DELETE", base))) return;
    forgetBowlerKey();
    $("#me-body").hidden = true;
    setStatus(() => t("deleted"));
  }));
  langSwitch(() => {
    $("#me-status").textContent = state.status();
    render();
    if (state.me) chart();
  });
}

applyStatic();
$("#me-title").textContent = t(shared ? "sharedTitle" : "meTitle", "");
wire();
try {
  const refused = await redeem();
  await load();
  // Said last: what the page says of this device (not remembered yet)
  // would hide why the code it was opened with did not link it.
  if (refused) setStatus(refused);
} catch {
  setStatus(() => t("meUnreachable")); // the network failed: reloading tries again
}
// For tests and the console: what the page knows.
window.tenpin = { state, list };
