// The lobby: the lanes listed, and the form that creates one.
import { $, el, setFieldError } from "./dom.js";
import { t, num, errorText } from "./i18n.js";
import { keepInvite, validInvite } from "./invite.js";

// laneNameMax is the longest lane name the server takes, in characters
// (lobby.MaxLaneName). The page says so rather than cut a name short.
const laneNameMax = 40;

// lobbyLimit is the lanes the lobby shows, and so asks for: a phone's
// screenful a few times over, not every lane of a busy server.
const lobbyLimit = 50;

// laneNameProblem says what is wrong with a lane name, or "".
function laneNameProblem(name) {
  const n = [...name].length;
  if (n === 0) return t("laneNameEmpty");
  if (n > laneNameMax) return t("laneNameLong", n, laneNameMax);
  if (/[\u0000-\u001f\u007f]/.test(name)) return t("laneNameControl");
  return "";
}

let lastPage = null; // the list as last fetched, to say again in another language

export function startLobby() {
  $("#lobby").hidden = false;
  document.title = t("titleLobby");
  const input = $("#create-name");
  // Past the limit, say so as it is typed or pasted; never cut it short.
  input.addEventListener("input", () => {
    const name = input.value.trim();
    setFieldError("#create-name", "#create-error", [...name].length > laneNameMax ? laneNameProblem(name) : "");
  });
  $("#create-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = input.value.trim();
    const problem = laneNameProblem(name);
    createError = () => "";
    setFieldError("#create-name", "#create-error", problem);
    if (problem) {
      input.focus();
      return;
    }
    // A private lane is never listed here: its link is the invitation.
    const req = { name };
    if ($("#create-private").checked) req.private = true;
    let res;
    try {
      res = await fetch("/api/lanes", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(req),
      });
    } catch {
      showCreateError(() => t("createUnreachable"));
      return;
    }
    let body = {};
    try { body = await res.json(); } catch { /* a proxy's page, not the API's */ }
    if (!res.ok || !body.id) {
      // The page's own words for the server's code; a proxy's answer has
      // none, and is told by its status.
      const status = `${res.status} ${res.statusText}`.trim();
      showCreateError(() => t("createFailed", body.code ? errorText(body.code) : t("serverAnswered", status)));
      return;
    }
    // The key that makes this page's player the lane's host: kept on this
    // device only, sent with the join (main.js).
    try { localStorage.setItem(hostKeyKey(body.id), body.host_key || ""); } catch { /* storage off: the first to join hosts */ }
    // The lane's invitation, kept the same way: the lane page shares its
    // link with it (#invite=…), which seats friends; the lane's address
    // alone lets them watch.
    if (validInvite(body.invite)) keepInvite(body.id, body.invite);
    location.assign("/lanes/" + encodeURIComponent(body.id));
  });
  refreshLanes();
  setInterval(refreshLanes, 2000);
  warnLocal();
}

// isLoopback reports whether a host name is this computer's alone:
// localhost, 127.x.x.x, ::1.
export function isLoopback(host) {
  const h = host.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || /^127\./.test(h) || h === "[::1]";
}

// warnLocal warns, on a page opened as localhost, that its links and QR
// codes open on this computer only, and shows the server's own address
// that friends' phones can open (the first of this node's in
// /api/nodes that is not this computer's alone), if the server knows one.
async function warnLocal() {
  if (!isLoopback(location.hostname)) return;
  $("#local-warning").hidden = false;
  let urls = [];
  try {
    const res = await fetch("/api/nodes", { cache: "no-store" });
    if (res.ok) urls = ((await res.json()).nodes || [])[0]?.urls || [];
  } catch {
    urls = [];
  }
  $("#local-warning").dataset.asked = "true"; // the server was asked (for tests)
  const better = urls.find((u) => {
    try {
      const url = new URL(u);
      return (url.protocol === "http:" || url.protocol === "https:") && !isLoopback(url.hostname);
    } catch {
      return false;
    }
  });
  if (!better) return;
  const link = $("#local-url");
  link.href = new URL("/", better).href;
  link.textContent = new URL("/", better).href;
  $("#local-use").hidden = false;
  $("#local-none").hidden = true;
}

// hostKeyKey is where this device keeps the host key of a lane it
// created, until its join with it is welcomed (main.js): the lane's host
// is then this page's player, whoever joined first.
export function hostKeyKey(id) { return "tenpin-host-" + id; }

// relabelLobby says the lobby again in the page's language.
export function relabelLobby() {
  document.title = t("titleLobby");
  if (lastPage) showLanes(lastPage);
  const input = $("#create-name");
  if (input.getAttribute("aria-invalid")) setFieldError("#create-name", "#create-error", laneNameProblem(input.value.trim()));
  else $("#create-error").textContent = createError();
}

// createError says the server's last refusal of a new lane.
let createError = () => "";

function showCreateError(say) {
  createError = say;
  $("#create-error").textContent = say();
}

// refreshLanes shows the first lobbyLimit lanes, and how many there are
// in all when the server says (an older server sends every lane and no
// total).
async function refreshLanes() {
  let page;
  try {
    // no-cache, not no-store: the browser asks again each time, with the
    // list's ETag, and an unchanged list comes back as a bodiless 304.
    const res = await fetch(`/api/lanes?limit=${lobbyLimit}`, { cache: "no-cache" });
    if (!res.ok) throw new Error(res.statusText);
    page = await res.json();
  } catch {
    setConn(() => t("connOffline"), false);
    return;
  }
  setConn(() => t("connOnline"), true);
  lastPage = page;
  showLanes(page);
}

function showLanes(page) {
  const lanes = (page.lanes || []).slice(0, lobbyLimit);
  $("#lanes tbody").replaceChildren(...lanes.map((l) => {
    const link = el("a", { href: "/lanes/" + encodeURIComponent(l.id), text: l.name, title: l.name });
    const game = l.phase === "playing" ? t("lanePlaying", l.frame) : t("phase_" + l.phase);
    return el("tr", { "data-lane": l.id },
      el("td", { class: "lane-name" }, link),
      el("td", { class: "players", text: l.players.join(", ") || "—" }),
      el("td", { class: "game" }, game, el("span", { class: "watching", text: t("nWatching", l.spectators) })));
  }));
  $("#lanes").hidden = lanes.length === 0;
  $("#no-lanes").hidden = lanes.length > 0;
  const total = typeof page.total === "number" ? page.total : lanes.length;
  $("#more-lanes").hidden = total <= lanes.length;
  $("#more-lanes").textContent = t("moreLanes", num(lanes.length), num(total));
}

// connSaid says the connection's state as last set, in the page's
// language of the moment.
let connSaid = () => "";

// setConn shows the connection's state: say() says it.
export function setConn(say, ok) {
  connSaid = say;
  const c = $("#conn");
  c.textContent = say();
  c.className = "conn " + (ok ? "ok" : "down");
}

// relabelConn says the connection's state again, in another language.
export function relabelConn() {
  $("#conn").textContent = connSaid();
}
