// tenpin's page: the lobby at "/" and a lane at "/lanes/{id}".
// Every text that comes from users goes in with textContent, never innerHTML.
"use strict";

const $ = (sel) => document.querySelector(sel);

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("data-") || k.startsWith("aria-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c);
  return e;
}

// plain drops the Go package a server message may start with ("lobby:
// invalid lane name: …"): people are not told which part of the server
// said it.
function plain(text) {
  return String(text || "").replace(/^(lobby|lane|game|bowling|protocol|client): /, "");
}

// sentence shows a server's message, written lower case to be embedded,
// as a sentence on its own.
function sentence(text) {
  const t = plain(text);
  return t ? t[0].toUpperCase() + t.slice(1) : "";
}

// listOf joins words as a sentence does: "CAT, DOG and EEL".
function listOf(words) {
  return words.length <= 1 ? words.join("") : words.slice(0, -1).join(", ") + " and " + words[words.length - 1];
}

// pins says a number of pins: "1 pin", "7 pins".
function pins(n) {
  return n === 1 ? "1 pin" : `${n} pins`;
}

// setFieldError shows a form field's problem beside it, or clears it.
function setFieldError(input, out, problem) {
  $(out).textContent = problem;
  if (problem) $(input).setAttribute("aria-invalid", "true");
  else $(input).removeAttribute("aria-invalid");
}

function setConn(text, ok) {
  const c = $("#conn");
  c.textContent = text;
  c.className = "conn " + (ok ? "ok" : "down");
}

// ---------------------------------------------------------------- lobby

// laneNameMax is the longest lane name the server takes, in characters
// (lobby.MaxLaneName). The page says so rather than cut a name short.
const laneNameMax = 40;

// lobbyLimit is the lanes the lobby shows, and so asks for: a phone's
// screenful a few times over, not every lane of a busy server.
const lobbyLimit = 50;

// laneNameProblem says what is wrong with a lane name, or "".
function laneNameProblem(name) {
  const n = [...name].length;
  if (n === 0) return "Give the lane a name, like Friday night.";
  if (n > laneNameMax) return `That name is ${n} characters long: a lane name has at most ${laneNameMax}. Shorten it and try again.`;
  if (/[\u0000-\u001f\u007f]/.test(name)) return "A lane name cannot hold control characters.";
  return "";
}

function startLobby() {
  $("#lobby").hidden = false;
  document.title = "Lanes — tenpin";
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
      $("#create-error").textContent = "Could not reach the server: check the connection and try again.";
      return;
    }
    let body = {};
    try { body = await res.json(); } catch { /* a proxy's page, not the API's */ }
    if (!res.ok || !body.id) {
      const why = plain(body.message) || `the server answered ${res.status} ${res.statusText}`.trim();
      $("#create-error").textContent = `Could not create the lane: ${why}.`;
      return;
    }
    location.assign("/lanes/" + encodeURIComponent(body.id));
  });
  refreshLanes();
  setInterval(refreshLanes, 2000);
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
    setConn("offline: retrying", false);
    return;
  }
  setConn("online", true);
  const lanes = (page.lanes || []).slice(0, lobbyLimit);
  $("#lanes tbody").replaceChildren(...lanes.map((l) => {
    const link = el("a", { href: "/lanes/" + encodeURIComponent(l.id), text: l.name, title: l.name });
    const game = l.phase === "playing" ? `playing, frame ${l.frame}` : l.phase;
    return el("tr", { "data-lane": l.id },
      el("td", { class: "lane-name" }, link),
      el("td", { class: "players", text: l.players.join(", ") || "—" }),
      el("td", { class: "game" }, game, el("span", { class: "watching", text: `${l.spectators} watching` })));
  }));
  $("#lanes").hidden = lanes.length === 0;
  $("#no-lanes").hidden = lanes.length > 0;
  const total = typeof page.total === "number" ? page.total : lanes.length;
  $("#more-lanes").hidden = total <= lanes.length;
  $("#more-lanes").textContent = `Showing the first ${lanes.length} of ${total} lanes. To join another, open its link.`;
}

// ---------------------------------------------------------------- lane

const lane = {
  id: "",
  ws: null,
  board: null,
  seat: null, // my name, once welcomed
  retry: 0,
  // The other nodes of the server's cluster, as the server last said
  // (GET /api/nodes): their addresses, best first each. When this page's
  // own node stops answering, the page moves to the next.
  nodes: [],
  unreachable: 0, // visits in a row that found this page's node down
  timer: 0, // the pending reconnect, if any
  restarting: false, // the server said it is restarting: it will be back
  takenOver: false, // another tab or phone resumed our seat: do not take it back on reconnect
  closed: false, // the lane is gone for good: stop reconnecting
  hidden: false, // the page was left (it may be in the back/forward cache): no reconnecting
  invited: false, // the invitation was asked for
  nextID: 1,
  joinID: "", // the join sent and not yet answered
  resumeID: "", // the resume sent on connecting and not yet answered
  skipAt: 0, // when the player up, offline, may be skipped (Date.now() time)
  skipTimer: 0, // the next render of the skip countdown
  // Commands sent and not yet answered, by type: start, skip and leave.
  // A second tap while one is in flight sends nothing: a skip sent twice
  // would skip the next player too.
  waiting: {},
  turnedAway: "", // why the server is about to close with 1013: spectators_full or rate_limited
  // The roll sent and not yet settled: { id, seq }. Until the server
  // answers it (and, once acked, until the board with its effect — seq —
  // arrives) the pad takes no other roll: the next one must name the next
  // ball, which only that board tells.
  pending: null,
  // The correction being entered in the dialog: { player, frame, ball,
  // pins, id }; id is that of the correct message sent and not yet
  // answered, "" before it is sent.
  correcting: null,
  menuFor: "", // the player whose menu (the host's) is open
  wasMine: false, // the last board rendered had this page's player up
  turnCame: false, // and the one before did not: the turn just came
  logShown: "", // the roll log as last shown, to redraw it only when it changes
  scrolledTo: "", // the frame the board was last scrolled to show
  copiedTimer: 0,
};

function tokenKey() { return "tenpin-token-" + lane.id; }

// nameProblem says what is wrong with a player's name, in words, or "".
function nameProblem(name) {
  const rule = "a name is three letters A–Z, like BOB.";
  if (name === "") return "Type your name: three letters A–Z, like BOB.";
  const chars = [...name];
  const bad = [...new Set(chars.filter((c) => !/^[A-Za-z]$/.test(c)))];
  if (bad.length) return `“${name}” has ${listOf(bad.map((c) => c === " " ? "a space" : `“${c}”`))}: ${rule}`;
  if (chars.length !== 3) return `“${name.toUpperCase()}” is ${chars.length === 1 ? "1 letter" : `${chars.length} letters`}: ${rule}`;
  return "";
}

function startLane(id) {
  lane.id = id;
  // A page that moved here from another node of the cluster brings its
  // seat's token in the fragment (see moveNode): keep it, and take it out
  // of the address bar and the history.
  const moved = new URLSearchParams(location.hash.slice(1)).get("token");
  if (moved) {
    localStorage.setItem(tokenKey(), moved);
    history.replaceState(null, "", location.pathname);
  }
  $("#lane").hidden = false;
  // This page's own address, until the server says which one a phone can
  // open (see invite).
  $("#share-url").value = location.origin + "/lanes/" + encodeURIComponent(id);
  $("#copy").addEventListener("click", copyLink);
  const name = $("#join-name");
  name.addEventListener("input", () => setFieldError("#join-name", "#join-error", ""));
  $("#join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = name.value.trim();
    const problem = nameProblem(value);
    setFieldError("#join-name", "#join-error", problem);
    if (problem) {
      name.focus();
      return;
    }
    if (lane.joinID) return; // the join sent is not answered yet
    lane.joinID = send({ type: "join", name: value });
  });
  $("#start").addEventListener("click", () => sendOnce("start"));
  // Rematch, leave and remove cannot be undone, and a lane is a place
  // where a phone gets bumped: ask first.
  $("#rematch").addEventListener("click", () => {
    if (!window.confirm("Set up the next game with the same players? This game's scores stay in the series; others may join before you start.")) return;
    sendOnce("rematch");
  });
  // A skip can be undone by the one skipped, who comes back and bowls the
  // missed frames: no question. The server says whether they have been
  // offline long enough.
  $("#skip").addEventListener("click", () => sendOnce("skip"));
  $("#leave").addEventListener("click", () => {
    const playing = lane.board && lane.board.phase === "playing";
    const question = playing
      ? "Leave the game? Your frames stay on the board, but you cannot bowl again in this game."
      : "Leave your seat on this lane?";
    if (!window.confirm(question)) return;
    // The seat is given up once the server says so (its ack): a leave
    // refused, or never sent, keeps the seat and its token.
    if (!sendOnce("leave")) showError("Not connected: wait a moment and leave again.");
  });
  const pad = $("#pins");
  for (let n = 0; n <= 10; n++) {
    pad.append(el("button", { type: "button", class: "pin", "data-pins": String(n), text: String(n),
      onclick: () => roll(n) }));
  }
  // The pins standing, drawn as a deck seen from the foul line: the
  // head pin in front.
  for (const row of [[7, 8, 9, 10], [4, 5, 6], [2, 3], [1]]) {
    $("#deck").append(el("span", { class: "row" }, ...row.map((n) => el("i", { "data-pin": String(n) }))));
  }
  startCorrections();
  startPlayerMenu();
  $("#games-link").href = "/api/lanes/" + encodeURIComponent(id) + "/games";
  $("#games-link").download = `tenpin-${id}-games.json`;
  document.addEventListener("keydown", onKey);
  // A page the browser keeps in its back/forward cache would keep its
  // socket open, and its player would look connected while gone: nobody
  // could skip them. Close it on the way out, and connect again if the
  // page is shown from the cache.
  window.addEventListener("pagehide", () => {
    lane.hidden = true;
    clearTimeout(lane.timer);
    const ws = lane.ws;
    if (!ws) return;
    // Nothing of this socket's may arrive once the page is back.
    ws.onclose = ws.onmessage = null;
    ws.close(1000, "page hidden");
    lane.ws = null;
    lane.pending = null;
  });
  // The cluster's nodes change: ask again now and then, so that the list
  // a page moves by is fresh when its node dies.
  setInterval(() => { if (!lane.closed && !lane.hidden && lane.ws) nodes(); }, 60000);
  window.addEventListener("pageshow", (ev) => {
    if (!ev.persisted || lane.closed) return;
    lane.hidden = false;
    lane.retry = 0;
    visit();
  });
  visit();
}

// copyLink copies the invitation, and says so beside the button (not in
// the roll log).
async function copyLink() {
  const input = $("#share-url");
  input.select();
  let copied = false;
  try {
    await navigator.clipboard.writeText(input.value);
    copied = true;
  } catch {
    try { copied = document.execCommand("copy"); } catch { copied = false; }
  }
  const text = copied ? "Link copied" : "Select the link and copy it";
  $("#copied").textContent = text;
  say(text);
  clearTimeout(lane.copiedTimer);
  lane.copiedTimer = setTimeout(() => { $("#copied").textContent = ""; }, 5000);
}

// invite asks the server for the lane's invitation: the address a phone
// on the same network can open (this page's may be localhost) and a QR
// code of it. Without one (an older server, an error) the page keeps its
// own address and shows no QR code.
async function invite() {
  if (lane.invited) return;
  lane.invited = true;
  let inv = null;
  try {
    const res = await fetch("/api/lanes/" + encodeURIComponent(lane.id) + "/invite", { cache: "no-store" });
    if (res.ok) inv = await res.json();
  } catch {
    inv = null;
  }
  const isURL = (u) => typeof u === "string" && /^https?:\/\//.test(u);
  if (!inv || !isURL(inv.url)) return;
  $("#share-url").value = inv.url;
  const others = (Array.isArray(inv.urls) ? inv.urls : []).filter((u) => isURL(u) && u !== inv.url);
  $("#other-urls ul").replaceChildren(...others.map((u) => el("li", {}, el("a", { href: u, text: u }))));
  $("#other-urls").hidden = others.length === 0;
  if (typeof inv.qr === "string" && inv.qr.startsWith("/api/")) {
    const qr = $("#qr");
    qr.onload = () => { qr.hidden = false; };
    qr.onerror = () => { qr.hidden = true; };
    qr.src = inv.qr;
  }
}

// visit asks the lobby whether the lane still exists before opening its
// socket: a socket to a lane that is gone fails just as one to a server
// that is down does, and only the lobby's 404 tells the two apart. Gone:
// show the closed view. A network error or a 5xx: the server may be
// restarting, so try again later. Otherwise connect.
async function visit() {
  lane.timer = 0;
  setConn(lane.restarting ? "the server is restarting — reconnecting…" : "connecting…", false);
  let res = null;
  try {
    res = await fetch("/api/lanes/" + encodeURIComponent(lane.id), { cache: "no-store" });
  } catch {
    // res stays null: the network or the server is down
  }
  if (res && res.status === 404 && (await errorCode(res)) === "lane_not_found") {
    closeLane();
  } else if (res && res.ok) {
    lane.unreachable = 0;
    connect();
    invite();
    nodes();
  } else if (!res && ++lane.unreachable >= moveAfter && moveNode()) {
    // Only a node that does not answer at all is left: one that answers
    // 503 is up, and busy taking the lane over or waiting for its store.
    setConn("this server does not answer — moving to another", false);
  } else {
    reconnectLater(lane.restarting ? "the server is restarting" : "cannot reach the server");
  }
}

// moveAfter is how many visits in a row must find this page's node down
// (about 4 s of backoff) before the page moves to another node: a node
// restarting is back sooner.
const moveAfter = 4;

// nodes asks which other nodes the server's cluster has, for the page to
// move to if this one goes down.
async function nodes() {
  try {
    const res = await fetch("/api/nodes", { cache: "no-store" });
    if (!res.ok) return;
    const body = await res.json();
    // Another scheme would send the seat's token in the clear, or fail.
    const others = (body.nodes || [])
      .map((n) => (n.urls || []).find((u) => new URL(u).protocol === location.protocol))
      .filter((u) => u && new URL(u).origin !== location.origin);
    // Each page starts at its own place in the list: the pages of a node
    // that dies spread over the others.
    const at = others.length ? Math.floor(Math.random() * others.length) : 0;
    lane.nodes = others.slice(at).concat(others.slice(0, at));
  } catch {
    // keep what the server said last
  }
}

// moveNode opens the lane on the next node the cluster had (alive when
// the page last asked), taking the seat's token along in the fragment,
// which is never sent to a server: a page's storage is its own address's.
// It cannot check the node first: the page may connect to its own address
// only (its Content-Security-Policy), but may go anywhere. It reports
// false when no other node is known.
function moveNode() {
  const next = lane.nodes[0];
  if (!next) return false;
  lane.closed = true; // this page stops reconnecting: it is leaving
  clearTimeout(lane.timer);
  // A seat another tab or phone took over stays theirs.
  const token = lane.takenOver ? "" : localStorage.getItem(tokenKey());
  location.replace(new URL("/lanes/" + encodeURIComponent(lane.id), next).href +
    (token ? "#token=" + encodeURIComponent(token) : ""));
  return true;
}

// errorCode is the code of an API error's body, or "" if it has none (a
// 404 from a proxy in front of the server says nothing about the lane).
async function errorCode(res) {
  try { return (await res.json()).code || ""; } catch { return ""; }
}

// reconnectLater backs off — 0.5 s, 1 s, 2 s … up to 15 s, with jitter —
// then visits the lane again.
function reconnectLater(why) {
  const delay = Math.min(15000, 500 * 2 ** lane.retry) * (0.75 + Math.random() / 2);
  lane.retry++;
  setConn(`${why} — reconnecting in ${Math.round(delay / 1000)} s`, false);
  lane.timer = setTimeout(visit, delay);
}

// closeLane shows that the lane is gone and stops reconnecting.
function closeLane() {
  lane.closed = true;
  clearTimeout(lane.timer);
  closeDialogs();
  if (lane.ws) lane.ws.close();
  setConn("lane closed", false);
  document.title = "Lane closed — tenpin";
  say("This lane is closed.");
  render();
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}/ws/lanes/${encodeURIComponent(lane.id)}`);
  lane.ws = ws;
  ws.onopen = () => {
    // The backoff starts again only once the lane has taken this socket
    // (its first board): a socket it turns away opens first too.
    lane.restarting = false;
    setConn("connected", true);
    // Resume first thing: on a lane full of watchers the server holds a
    // new socket only a few seconds for its resume.
    const token = localStorage.getItem(tokenKey());
    if (token && !lane.takenOver) lane.resumeID = send({ type: "resume", token });
  };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    onMessage(msg);
  };
  ws.onclose = (ev) => {
    lane.ws = null;
    // No answer comes on a closed socket. The board the lane sends on
    // reconnect shows whether the roll counted; a roll sent again for the
    // same ball is refused as stale, so it cannot count twice.
    lane.pending = null;
    lane.joinID = "";
    lane.resumeID = "";
    lane.waiting = {};
    if (lane.closed || lane.hidden) return;
    render();
    // Everything is retried, with backoff: a dropped network, a server
    // going away to restart (1001), a lane that failed (1011), a lane
    // that has all the watchers it takes (1013: try again later; a seat's
    // resume always gets in). visit tells a lane that is gone from a
    // server that is down.
    if (ev.code === 1001) lane.restarting = true;
    if (ev.code === 1013) {
      showError("");
      reconnectLater(lane.turnedAway === "rate_limited"
        ? "too many connections from this network" : "the lane has all the watchers it takes");
      lane.turnedAway = "";
      return;
    }
    reconnectLater(lane.restarting ? "the server is restarting" : "disconnected");
  };
}

// sendOnce sends a command of type unless one is in flight, and reports
// whether it was sent.
function sendOnce(type) {
  if (lane.waiting[type]) return false;
  const id = send({ type });
  if (id) lane.waiting[type] = id;
  render();
  return !!id;
}

// answered takes an answer's command off those in flight, and returns
// its type ("" if it answered none of them).
function answered(msg) {
  for (const [type, id] of Object.entries(lane.waiting)) {
    if (msg.ref && msg.ref === id) {
      delete lane.waiting[type];
      render();
      return type;
    }
  }
  return "";
}

// send sends a message with a fresh id and returns the id, or "" when
// there is no connection to send it on.
function send(msg) {
  if (!lane.ws || lane.ws.readyState !== WebSocket.OPEN) {
    showError("Not connected: wait a moment and try again.");
    return "";
  }
  msg.id = String(lane.nextID++);
  lane.ws.send(JSON.stringify(msg));
  return msg.id;
}

// settle ends the pending roll once the board showing it has arrived. The
// server sends boards and answers on separate queues, so the ack may come
// first.
function settle() {
  const p = lane.pending;
  if (p && p.seq !== null && lane.board && lane.board.seq >= p.seq) lane.pending = null;
}

function answersPending(msg) {
  return !!lane.pending && msg.ref === lane.pending.id;
}

function onMessage(msg) {
  switch (msg.type) {
    case "board": {
      if (!lane.resumeID) lane.retry = 0; // the lane took this socket (a resume says for itself)
      const before = lane.board;
      lane.board = msg;
      // When the player up, offline, may be skipped: counted down here
      // from the board's skip_in, which says 0 when the time comes.
      lane.skipAt = msg.up && typeof msg.up.skip_in === "number" ? Date.now() + msg.up.skip_in * 1000 : 0;
      const said = before ? changes(before, msg) : [];
      settle();
      render();
      // Said once, in the live region: what changed, and whose turn came.
      if (lane.turnCame) said.push("Your turn");
      if (said.length) say(said.join(". "));
      break;
    }
    case "ack":
      showError(""); // what we sent last counted: an older refusal no longer applies
      if (answered(msg) === "leave") {
        localStorage.removeItem(tokenKey());
        lane.seat = null;
        render();
      }
      if (answersPending(msg)) {
        lane.pending.seq = msg.seq;
        settle();
        render();
      }
      if (lane.correcting && msg.ref === lane.correcting.id) {
        // The board with the correction shows it to everyone, this page
        // included (and the live region says so).
        closeDialogs();
      }
      break;
    case "welcome":
      if (msg.ref && msg.ref === lane.resumeID) {
        lane.resumeID = "";
        lane.retry = 0;
      }
      lane.seat = msg.name;
      lane.takenOver = false;
      lane.joinID = "";
      localStorage.setItem(tokenKey(), msg.token);
      showError("");
      setFieldError("#join-name", "#join-error", "");
      notice(`You are ${msg.name}, seat ${msg.seat + 1}`);
      render();
      break;
    case "error":
      answered(msg);
      if (lane.correcting && msg.ref === lane.correcting.id) {
        // Refused: nothing changed. Say why in the dialog, which stays
        // open for another try.
        lane.correcting.id = "";
        $("#correct-error").textContent = sentence(msg.message);
        renderCorrection();
        return;
      }
      if (lane.joinID && msg.ref === lane.joinID) {
        // A name refused (taken, the lane full, the game started): say so
        // beside the name.
        lane.joinID = "";
        setFieldError("#join-name", "#join-error", sentence(msg.message) + ".");
        return;
      }
      if (answersPending(msg)) {
        lane.pending = null;
        if (msg.code === "stale_roll") {
          // Not a failure: that ball was entered already (a second tap, or
          // someone else entering it too) and the board shows what counted.
          // Say so quietly, in the live region only.
          say("Already entered: the board shows what counted.");
          render();
          return;
        }
      }
      if (msg.code === "bad_token") {
        localStorage.removeItem(tokenKey()); // that seat is gone: watch, or join again
        lane.seat = null;
        lane.resumeID = "";
        render();
        return;
      }
      if (lane.resumeID && msg.ref === lane.resumeID) {
        // The seat is still ours, but the lane could not give it back now
        // (its store did not answer, say): connect again later, with
        // backoff, and resume then. Until then this page holds no seat.
        lane.resumeID = "";
        lane.seat = null;
        setConn("could not take the seat back — retrying…", false);
        if (lane.ws) lane.ws.close(1000, "resume refused");
        return;
      }
      if (msg.code === "removed") {
        // For good: the seat's token no longer resumes it, so forget it
        // (a reload must not try), and watch from here.
        localStorage.removeItem(tokenKey());
        lane.seat = null;
        closeDialogs();
        showError("You were removed by the host. You are watching now.");
        render();
        return;
      }
      if (msg.code === "seat_taken_over") {
        // Resumed on another tab or phone: watch from here, and do not
        // take the seat back on reconnect (the two would take turns).
        lane.seat = null;
        lane.takenOver = true;
      }
      if ((msg.code === "spectators_full" || msg.code === "rate_limited") && !msg.ref) {
        lane.turnedAway = msg.code; // the socket closes next (1013); onclose says why and retries
        return;
      }
      if (msg.code === "spectators_full") return;
      if (msg.code === "lane_closed" || msg.code === "lane_idle") return closeLane(); // the lane itself closed: it will not come back
      if (msg.code === "server_restarting") {
        // Not an error: the server will be back with the lane, and the seat
        // resumes with its token. The socket closes next; onclose retries.
        lane.restarting = true;
        setConn("the server is restarting — reconnecting…", false);
        return;
      }
      showError(sentence(msg.message));
      render();
      break;
  }
}

function showError(text) { $("#lane-error").textContent = text; }

// say says text in the live region, and only there.
function say(text) {
  $("#announce").textContent = text;
}

// notice says text and keeps it in the lane's news (never among the
// rolls, which the board holds).
function notice(text) {
  say(text);
  const news = $("#notices");
  news.prepend(el("li", { text }));
  while (news.children.length > 50) news.lastChild.remove();
}

// describeMark says what one ball was, from its mark on the board.
function describeMark(mark, n) {
  if (mark === "X") return "strike";
  if (mark === "/") return "spare";
  if (n === 0) return "gutter";
  return pins(n);
}

// changes says what changed from one board to the next, for the live
// region: a ball bowled, a ball corrected, a player skipped, back or
// gone. All but the balls are also kept in the lane's news.
function changes(before, after) {
  const said = [];
  after.players.forEach((p) => {
    const old = before.players.find((q) => q.name === p.name);
    if (old && p.away !== old.away) {
      notice(p.away ? `${p.name} is away: the turn passes them by` : `${p.name} is back`);
    }
    if (old && p.left && !old.left) notice(`${p.name} left the game`);
    if (old) {
      p.frames.forEach((f, i) => {
        const was = old.frames[i];
        if (was && was.rolls.length === f.rolls.length && was.rolls.join() !== f.rolls.join()) {
          notice(`${p.name}: frame ${i + 1} corrected to ${f.marks}`);
        }
      });
    }
    const count = (pl) => pl ? pl.frames.reduce((n, f) => n + f.rolls.length, 0) : 0;
    if (count(p) <= count(old) || p.frames.length === 0) return;
    const f = p.frames[p.frames.length - 1];
    said.push(`${p.name}: ${describeMark(f.marks.split("|").pop(), f.rolls[f.rolls.length - 1])}`);
  });
  return said;
}

// rollLog is every ball on the board, newest first, with its frame and
// ball: a reload shows the same log. Balls go in turn order, frame by
// frame and seat by seat (a player catching up after being away bowled
// theirs later than the log shows).
function rollLog(b) {
  const log = [];
  for (let f = 0; f < 10; f++) {
    for (const p of b.players) {
      const fr = p.frames[f];
      if (!fr) continue;
      const marks = fr.marks.split("|");
      fr.rolls.forEach((n, i) => log.push(`${p.name} — frame ${f + 1}, ball ${i + 1}: ${describeMark(marks[i], n)}`));
    }
  }
  return log.reverse();
}

// upPlayer is the player whose ball is up, or null.
function upPlayer() {
  const b = lane.board;
  return b && b.phase === "playing" && b.up ? b.players[b.up.seat] || null : null;
}

function myTurn() {
  const up = upPlayer();
  return !!(up && lane.seat && up.name === lane.seat);
}

function isHost() {
  return !!(lane.seat && lane.board && lane.board.host === lane.seat);
}

// enteringFor is the name of the player whose ball this page may enter
// now, or "" if none: one's own ball; as host, anyone's; and anyone's
// while they are offline, so one phone can keep score for all.
function enteringFor() {
  const up = upPlayer();
  if (!up || !lane.seat) return "";
  if (up.name === lane.seat || isHost() || !up.connected) return up.name;
  return "";
}

// roll sends the pins for the ball up on the latest board. It names that
// ball (frame and ball), so a roll that arrives after the ball was entered
// is refused as stale instead of counting for the next one; and only one
// roll is in flight at a time, so a double tap sends one.
function roll(n) {
  const b = lane.board;
  const who = enteringFor();
  if (!who || lane.pending || n > b.up.standing) return;
  const msg = { type: "roll", pins: n, frame: b.up.frame, ball: b.up.ball };
  if (who !== lane.seat) msg.name = who;
  const id = send(msg);
  if (!id) return;
  lane.pending = { id, seq: null };
  render();
}

// onKey bowls from the keyboard: a digit, X for a strike, / for a spare,
// - for a gutter. A key that cannot be this ball says why.
function onKey(ev) {
  if (ev.target instanceof HTMLInputElement || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (document.querySelector("dialog[open]")) return; // the keys are the dialog's
  if (!enteringFor()) return;
  const standing = lane.board.up.standing;
  const stand = `${pins(standing)} ${standing === 1 ? "stands" : "stand"}`;
  let n = null;
  let problem = "";
  if (/^[0-9]$/.test(ev.key)) {
    n = Number(ev.key);
    if (n > standing) problem = `Only ${stand}: ${n} is too many.`;
  } else if (ev.key === "x" || ev.key === "X") {
    n = 10;
    if (standing < 10) problem = `X is a strike, all 10 pins, and only ${stand}: press / for a spare.`;
  } else if (ev.key === "/") {
    n = standing;
    if (standing === 10) problem = "/ is a spare, only on a second ball: press X for a strike, or the number of pins.";
  } else if (ev.key === "-") {
    n = 0;
  } else {
    return;
  }
  ev.preventDefault();
  // A held key repeats: only its first press is a roll.
  if (ev.repeat) return;
  if (problem) {
    showError(problem);
    return;
  }
  roll(n);
}

function render() {
  $("#play").hidden = lane.closed;
  $("#closed").hidden = !lane.closed;
  const b = lane.board;
  if (!b || lane.closed) return;
  $("#lane-name").textContent = b.name;
  $("#lane-name").title = b.name;
  const up = b.up ? b.players[b.up.seat] : null;
  const seated = !!lane.seat && b.players.some((p) => p.name === lane.seat && !p.left);
  if (!seated) lane.seat = null;
  const host = isHost();
  $("#play").dataset.phase = b.phase;

  // Whose turn: said large, in the title, and by a buzz on the phone of
  // the one whose turn came.
  const mine = myTurn();
  lane.turnCame = mine && !lane.wasMine;
  lane.wasMine = mine;
  if (lane.turnCame && typeof navigator.vibrate === "function") navigator.vibrate([200, 100, 200]);
  document.title = mine ? "● Your turn — tenpin" : `${b.name} — tenpin`;
  renderBanner(b, mine);

  // After a rematch the next game waits, like the first, for the host.
  const next = b.series ? " the next game" : "";
  const phase = {
    waiting: host ? (next ? "Next game: others may join; start when everyone is in." : "Waiting for players to join: start when everyone is in.")
      : b.host ? `Waiting for ${b.host} to start${next}.` : "Waiting for players to join.",
    playing: "",
    finished: "Game over." + (seated && !host && b.host ? ` ${b.host} can start a rematch.` : ""),
  }[b.phase];
  // A page that watches is one of the spectators: say so, rather than
  // count the visitor as a stranger.
  let watching = `${b.spectators} watching.`;
  if (!seated && lane.ws && b.spectators > 0) {
    const others = b.spectators - 1;
    watching = others === 0 ? "Only you are watching." : `You and ${others} other${others === 1 ? "" : "s"} are watching.`;
  }
  $("#phase").textContent = `${phase} ${watching}`.trim();

  $("#join-form").hidden = seated || b.phase !== "waiting";
  if ($("#join-form").hidden) setFieldError("#join-name", "#join-error", "");
  $("#me").hidden = !seated && b.phase === "waiting";
  $("#me").textContent = seated ? `You are ${lane.seat}.` : "You are watching.";
  // Only the host may start and rematch: the others are told who can.
  $("#start").hidden = !(host && b.phase === "waiting");
  $("#start").disabled = !!lane.waiting.start;
  $("#rematch").disabled = !!lane.waiting.rematch;
  $("#skip").disabled = !!lane.waiting.skip;
  $("#leave").disabled = !!lane.waiting.leave;
  $("#rematch").hidden = !(host && b.phase === "finished");
  $("#leave").hidden = !seated;
  // The player up is offline: any other player may skip them once they
  // have been away long enough (the server says how long that is).
  const skippable = seated && b.phase === "playing" && up && up.name !== lane.seat && !up.connected;
  $("#skip").hidden = !skippable;
  clearTimeout(lane.skipTimer);
  if (skippable) {
    // Offered all along (the server says why a skip is early), with the
    // time left until it will count.
    const left = Math.ceil((lane.skipAt - Date.now()) / 1000);
    $("#skip").textContent = left > 0 ? `Skip ${up.name} (offline) in ${left} s` : `Skip ${up.name} (offline)`;
    if (left > 0) lane.skipTimer = setTimeout(render, 1000);
  }

  const who = enteringFor();
  $("#pad").hidden = !who;
  if (who) {
    // Whose ball the pins are for is on screen, so the host never enters
    // a ball for the wrong player.
    const ball = `frame ${b.up.frame}, ball ${b.up.ball}`;
    $("#entering").textContent = who === lane.seat ? `Your ball — ${ball}` : `Entering for ${who} — ${ball}`;
    $("#entering").classList.toggle("other", who !== lane.seat);
  }
  const ready = !!who && !!lane.ws && !lane.pending;
  $("#pins").setAttribute("aria-busy", String(!!lane.pending));
  for (const btn of $("#pins").children) {
    btn.disabled = !ready || Number(btn.dataset.pins) > b.up.standing;
  }
  renderBoard(b);
  renderSeries(b);
  renderLog(b);
  const mayFix = host ? "any frame" : "one of your frames";
  $("#correct-hint").hidden = !b.players.some((p) => p.frames.length > 0 && mayCorrect(p));
  $("#correct-hint").textContent = `Mistyped a ball? Tap ${mayFix} on the board to correct it.`;
  renderCorrection();
  renderPlayerMenu();
}

// renderBanner says, large enough to read across the lane, who is up,
// the frame and ball, and the pins standing; once the game is over, who
// won and the ranking.
function renderBanner(b, mine) {
  const up = upPlayer();
  const banner = $("#banner");
  banner.hidden = b.phase === "waiting";
  banner.className = "banner " + (up ? (mine ? "mine" : "other") : b.phase);
  $("#turn-detail").hidden = !up;
  $("#deck").hidden = !up;
  $("#ranking").hidden = b.phase !== "finished";
  if (up) {
    $("#turn").textContent = mine ? `Your turn, ${up.name}` : `${up.name} is up` + (up.connected ? "" : " (offline)");
    $("#turn-detail").textContent = `Frame ${b.up.frame} · Ball ${b.up.ball} · ${pins(b.up.standing)} standing`;
    for (const pin of $("#deck").querySelectorAll("i")) {
      pin.classList.toggle("down", Number(pin.dataset.pin) > b.up.standing);
    }
  } else if (b.phase === "finished") {
    $("#turn").textContent = result(b);
    renderRanking(b);
  } else {
    $("#turn").textContent = "";
  }
}

// best is the highest total of the players still in the game, or null.
function best(b) {
  const still = b.players.filter((p) => !p.left);
  return still.length ? Math.max(...still.map((p) => p.total)) : null;
}

// result says who won: "CCC wins with 300", "CAT, DOG and EEL tie with
// 300", or for a player alone "AAA scored 136".
function result(b) {
  const still = b.players.filter((p) => !p.left);
  const top = best(b);
  if (top === null) return "Game over";
  const names = still.filter((p) => p.total === top).map((p) => p.name).sort();
  if (still.length === 1) return `${names[0]} scored ${top}`;
  return names.length > 1 ? `${listOf(names)} tie with ${top}` : `${names[0]} wins with ${top}`;
}

// renderRanking lists the players by total, ties sharing a place; those
// who left the game come last, without one.
function renderRanking(b) {
  const ordinal = (n) => n + ({ 1: "st", 2: "nd", 3: "rd" }[n % 100 > 10 && n % 100 < 14 ? 0 : n % 10] || "th");
  const still = b.players.filter((p) => !p.left).sort((p, q) => q.total - p.total || p.name.localeCompare(q.name));
  const items = still.map((p, i) => {
    const place = still.findIndex((q) => q.total === p.total) + 1;
    return el("li", { "data-player": p.name, class: place === 1 ? "winner" : "" },
      el("span", { class: "place", text: ordinal(place) }), " ",
      el("span", { class: "who", text: p.name }), " ",
      el("span", { class: "total", text: String(p.total) }));
  });
  for (const p of b.players.filter((q) => q.left)) {
    items.push(el("li", { "data-player": p.name, class: "left" },
      el("span", { class: "place", text: "—" }), " ",
      el("span", { class: "who", text: p.name }), " ",
      el("span", { class: "total", text: `${p.total} (left)` })));
  }
  $("#ranking").replaceChildren(...items);
}

// mayCorrect reports whether this page may correct p's balls: its own,
// and as host anyone's, in the game on the board.
function mayCorrect(p) {
  const b = lane.board;
  if (!b || !lane.seat || !lane.ws || (b.phase !== "playing" && b.phase !== "finished")) return false;
  return p.name === lane.seat || isHost();
}

// The board is the seeds-style table everywhere. On a narrow screen the
// name column and the total stay put (sticky) while the frames between
// them scroll, if they must, to the frame in play: a name and its total
// are always seen together.
function renderBoard(b) {
  const head = el("tr", {}, el("th", { scope: "col", class: "name", text: "NAME" }));
  for (let f = 1; f <= 10; f++) head.append(el("th", { scope: "col", "data-frame": String(f), text: String(f).padStart(2, "0") }));
  head.append(el("th", { scope: "col", class: "total", text: "TOTAL" }));
  $("#board thead").replaceChildren(head);
  const rows = [];
  const host = isHost();
  const top = b.phase === "finished" ? best(b) : null;
  b.players.forEach((p, seat) => {
    const isUp = b.phase === "playing" && b.up && b.up.seat === seat;
    const won = top !== null && !p.left && p.total === top;
    const cls = [isUp ? "up" : "", p.left ? "left" : "", p.away ? "away" : "", won ? "winner" : ""].join(" ").trim();
    // The host's menu for another player (remove) opens from their name.
    const name = host && p.name !== lane.seat && !p.left
      ? el("button", { type: "button", class: "name", text: p.name, title: `Options for ${p.name}`,
        onclick: () => openPlayerMenu(p.name) })
      : el("span", { class: "who", text: p.name });
    const nameCell = el("th", { scope: "row", class: "name", rowSpan: 2 }, name);
    if (name.tagName === "BUTTON") name.setAttribute("aria-haspopup", "dialog");
    // Every status has a short form for a narrow screen (the long one is
    // then read to screen readers only).
    const status = (cl, long, short, title) => {
      nameCell.append(el("span", { class: cl, text: long, title }),
        el("span", { class: "short", text: short, title, "aria-hidden": "true" }));
    };
    if (p.name === b.host) nameCell.append(" ", el("span", { class: "badge", text: "host", title: "Starts the game and may enter anyone's ball" }));
    if (won) nameCell.append(" ", el("span", { class: "badge win", text: "winner" }));
    if (p.left) status("status", " (left)", "left", "Left the game");
    else if (p.away) status("away", " (away)", "away", "Skipped while offline: bowls the missed frames when back");
    else if (!p.connected) status("offline", " (offline)", "off", "Offline");
    if (isUp) nameCell.setAttribute("aria-current", "true");
    const marks = el("tr", { class: cls, "data-player": p.name, "data-row": "marks" }, nameCell);
    const scores = el("tr", { class: cls, "data-player": p.name, "data-row": "scores" });
    const correctable = mayCorrect(p);
    for (let f = 0; f < 10; f++) {
      const fr = p.frames[f];
      const cell = el("td", { class: "marks", "data-frame": String(f + 1) });
      if (fr && fr.corrected) {
        cell.classList.add("corrected");
        cell.title = "corrected";
      }
      if (fr && correctable && fr.rolls.length > 0) {
        // A frame one may correct is a button: tap it to pick the ball.
        const whose = p.name === lane.seat ? "your" : `${p.name}'s`;
        cell.append(el("button", { type: "button", class: "frame", text: fr.marks,
          onclick: () => openCorrection(p.name, f + 1) }));
        cell.firstChild.setAttribute("aria-label", `Correct ${whose} frame ${f + 1}: ${fr.marks}${fr.corrected ? " (corrected)" : ""}`);
        cell.firstChild.setAttribute("aria-haspopup", "dialog");
      } else {
        cell.textContent = fr ? fr.marks : "";
      }
      marks.append(cell);
      scores.append(el("td", { class: "score", "data-frame": String(f + 1),
        text: fr && fr.score !== null ? String(fr.score) : "" }));
    }
    marks.append(el("td", { class: "total", rowSpan: 2, text: String(p.total) }));
    rows.push(marks, scores);
  });
  $("#board tbody").replaceChildren(...rows);
  showFrame(b);
}

// showFrame scrolls the frames, when they do not all fit, to the one in
// play (the tenth once the game is over); only when that frame changes,
// so as not to fight a finger scrolling the board.
function showFrame(b) {
  const frame = b.phase === "playing" && b.up ? b.up.frame : b.phase === "finished" ? 10 : 1;
  const wrap = $(".board-wrap");
  const key = `${b.phase} ${frame} ${wrap.clientWidth}`;
  if (lane.scrolledTo === key) return;
  lane.scrolledTo = key;
  if (wrap.scrollWidth <= wrap.clientWidth) return;
  const th = $(`#board thead th[data-frame="${frame}"]`);
  const nameWidth = $("#board thead th.name").offsetWidth;
  const totalWidth = $("#board thead th.total").offsetWidth;
  const left = th.offsetLeft - nameWidth;
  const right = th.offsetLeft + th.offsetWidth + totalWidth - wrap.clientWidth;
  if (wrap.scrollLeft > left) wrap.scrollLeft = left;
  else if (wrap.scrollLeft < right) wrap.scrollLeft = right;
}

// renderLog shows the rolls of the board, newest first.
function renderLog(b) {
  const log = rollLog(b);
  const shown = log.join("\n");
  if (shown === lane.logShown) return;
  lane.logShown = shown;
  $("#log").replaceChildren(...log.map((text) => el("li", { text })));
}

// renderSeries shows the lane's series totals, once a game is over.
function renderSeries(b) {
  const series = b.series || [];
  $("#series").hidden = series.length === 0;
  $("#series-table tbody").replaceChildren(...series.map((s) => el("tr", { "data-player": s.name },
    el("th", { scope: "row", text: s.name }),
    el("td", { class: "games", text: String(s.games) }),
    el("td", { class: "total", text: String(s.total) }))));
}

// ---------------------------------------------------------------- corrections

// startCorrections builds the correction dialog's pin choices and wires
// its buttons. The dialog is a native <dialog>: modal, closed by Escape,
// and the pin keys do not bowl while it is open.
function startCorrections() {
  const choices = $("#correct-pins");
  for (let n = 0; n <= 10; n++) {
    choices.append(el("button", { type: "button", "data-pins": String(n), text: String(n),
      onclick: () => {
        if (!lane.correcting) return;
        lane.correcting.pins = n;
        $("#correct-error").textContent = "";
        renderCorrection();
      } }));
  }
  $("#correct-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const c = lane.correcting;
    if (!c || c.id || !c.ball || c.pins === null) return;
    const msg = { type: "correct", frame: c.frame, ball: c.ball, pins: c.pins };
    if (c.player !== lane.seat) msg.name = c.player;
    c.id = send(msg);
    if (!c.id) $("#correct-error").textContent = "Not connected: wait a moment and try again.";
    renderCorrection();
  });
  $("#correct-cancel").addEventListener("click", closeDialogs);
  // Escape closes the dialog too. (The close event comes a task later:
  // by then the dialog may be open again for another frame.)
  $("#correct-dialog").addEventListener("close", () => {
    if (!$("#correct-dialog").open) lane.correcting = null;
  });
}

function openCorrection(player, frame) {
  closeDialogs();
  lane.correcting = { player, frame, ball: 0, pins: null, id: "", shown: "" };
  $("#correct-error").textContent = "";
  renderCorrection();
  if (lane.correcting) $("#correct-dialog").showModal();
}

// correctionFrame is the frame the dialog corrects, on the latest board,
// or null if this page may no longer correct it.
function correctionFrame() {
  const c = lane.correcting;
  const p = c && lane.board && lane.board.players.find((q) => q.name === c.player);
  const fr = p && mayCorrect(p) ? p.frames[c.frame - 1] : null;
  return fr && fr.rolls.length > 0 ? fr : null;
}

function renderCorrection() {
  const c = lane.correcting;
  if (!c) return;
  const fr = correctionFrame();
  if (!fr) { // the game moved on (a rematch), or the seat is gone
    closeDialogs();
    return;
  }
  if (fr.rolls.length === 1 && !c.ball) c.ball = 1;
  if (c.ball > fr.rolls.length) c.ball = 0;
  const was = c.ball ? fr.rolls[c.ball - 1] : null;
  if (c.ball && c.pins === null) c.pins = was;
  const whose = c.player === lane.seat ? "your" : `${c.player}'s`;
  $("#correct-title").textContent = `Correct ${whose} frame ${c.frame}`;
  $("#correct-now").textContent = `On the board: ${fr.marks}` + (fr.corrected ? " (corrected before)" : "");
  // The ball choices change only with the frame's balls: rebuilding them
  // on every board would take the focus away.
  const shown = fr.rolls.join();
  if (c.shown !== shown) {
    c.shown = shown;
    $("#correct-balls").replaceChildren(...fr.rolls.map((n, i) => el("button", { type: "button",
      "data-ball": String(i + 1), text: `Ball ${i + 1}: ${n}`,
      onclick: () => {
        c.ball = i + 1;
        c.pins = null;
        $("#correct-error").textContent = "";
        renderCorrection();
      } })));
  }
  for (const btn of $("#correct-balls").children) {
    btn.setAttribute("aria-pressed", String(Number(btn.dataset.ball) === c.ball));
  }
  for (const btn of $("#correct-pins").children) {
    btn.disabled = !c.ball || !!c.id;
    btn.setAttribute("aria-pressed", String(!!c.ball && Number(btn.dataset.pins) === c.pins));
  }
  $("#correct-save").disabled = !c.ball || c.pins === null || c.pins === was || !!c.id;
  $("#correct-save").textContent = c.ball && c.pins !== null && c.pins !== was
    ? `Make ball ${c.ball} a ${c.pins}` : "Save correction";
}

// ---------------------------------------------------------------- the host's player menu

function startPlayerMenu() {
  $("#player-close").addEventListener("click", closeDialogs);
  $("#player-dialog").addEventListener("close", () => {
    if (!$("#player-dialog").open) lane.menuFor = "";
  });
  $("#remove").addEventListener("click", () => {
    const name = lane.menuFor;
    if (!name) return;
    const playing = lane.board && lane.board.phase !== "waiting";
    const question = `Remove ${name} from the lane for good?` +
      (playing ? ` Their frames stay on the board, but they cannot bowl again in this game.` : "");
    if (!window.confirm(question)) return;
    send({ type: "remove", name });
    closeDialogs();
  });
}

function openPlayerMenu(name) {
  closeDialogs();
  lane.menuFor = name;
  renderPlayerMenu();
  if (lane.menuFor) $("#player-dialog").showModal();
}

function renderPlayerMenu() {
  const name = lane.menuFor;
  if (!name) return;
  const p = lane.board && lane.board.players.find((q) => q.name === name);
  if (!p || p.left || !isHost()) {
    closeDialogs();
    return;
  }
  $("#player-title").textContent = name;
  $("#player-status").textContent = p.away ? `${name} is away: the turn passes them by until they are back.`
    : p.connected ? `${name} is connected.` : `${name} is offline.`;
  $("#remove").textContent = `Remove ${name} from the lane`;
}

function closeDialogs() {
  for (const d of document.querySelectorAll("dialog[open]")) d.close();
  lane.correcting = null;
  lane.menuFor = "";
}

// ---------------------------------------------------------------- start

const m = location.pathname.match(/^\/lanes\/([^/]+)$/);
if (m) startLane(decodeURIComponent(m[1]));
else startLobby();
