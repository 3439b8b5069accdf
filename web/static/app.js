// tenpin's page: the lobby at "/" and a lane at "/lanes/{id}".
// Every text that comes from users goes in with textContent, never innerHTML.
"use strict";

const $ = (sel) => document.querySelector(sel);

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c);
  return e;
}

function setConn(text, ok) {
  const c = $("#conn");
  c.textContent = text;
  c.className = "conn " + (ok ? "ok" : "down");
}

// ---------------------------------------------------------------- lobby

function startLobby() {
  $("#lobby").hidden = false;
  document.title = "tenpin — lanes";
  $("#create-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = $("#create-name").value.trim();
    $("#lobby-error").textContent = "";
    try {
      const res = await fetch("/api/lanes", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(body.message || res.statusText);
      location.assign("/lanes/" + encodeURIComponent(body.id));
    } catch (err) {
      $("#lobby-error").textContent = "Could not create the lane: " + err.message;
    }
  });
  refreshLanes();
  setInterval(refreshLanes, 2000);
}

async function refreshLanes() {
  try {
    const res = await fetch("/api/lanes", { cache: "no-store" });
    const { lanes } = await res.json();
    setConn("online", true);
    const body = $("#lanes tbody");
    body.replaceChildren(...lanes.map((l) => {
      const link = el("a", { href: "/lanes/" + encodeURIComponent(l.id), text: l.name });
      const game = l.phase === "playing" ? `playing, frame ${l.frame}` : l.phase;
      return el("tr", { "data-lane": l.id },
        el("td", {}, link),
        el("td", { text: l.players.join(", ") || "—" }),
        el("td", { text: game }),
        el("td", { text: String(l.spectators) }));
    }));
    $("#no-lanes").hidden = lanes.length > 0;
  } catch {
    setConn("offline: retrying", false);
  }
}

// ---------------------------------------------------------------- lane

const lane = {
  id: "",
  ws: null,
  board: null,
  seat: null, // my name, once welcomed
  retry: 0,
  timer: 0, // the pending reconnect, if any
  restarting: false, // the server said it is restarting: it will be back
  takenOver: false, // another tab or phone resumed our seat: do not take it back on reconnect
  closed: false, // the lane is gone for good: stop reconnecting
  hidden: false, // the page was left (it may be in the back/forward cache): no reconnecting
  nextID: 1,
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
};

function tokenKey() { return "tenpin-token-" + lane.id; }

function startLane(id) {
  lane.id = id;
  $("#lane").hidden = false;
  $("#share-url").value = location.origin + "/lanes/" + encodeURIComponent(id);
  $("#copy").addEventListener("click", async () => {
    $("#share-url").select();
    try {
      await navigator.clipboard.writeText($("#share-url").value);
      announce("Link copied");
    } catch {
      document.execCommand("copy");
    }
  });
  $("#join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    send({ type: "join", name: $("#join-name").value.trim() });
  });
  $("#start").addEventListener("click", () => send({ type: "start" }));
  // Rematch, leave and remove cannot be undone, and a lane is a place
  // where a phone gets bumped: ask first.
  $("#rematch").addEventListener("click", () => {
    if (!window.confirm("Set up the next game with the same players? This game's scores stay in the series; others may join before you start.")) return;
    send({ type: "rematch" });
  });
  // A skip can be undone by the one skipped, who comes back and bowls the
  // missed frames: no question. The server says whether they have been
  // offline long enough.
  $("#skip").addEventListener("click", () => send({ type: "skip" }));
  $("#leave").addEventListener("click", () => {
    const playing = lane.board && lane.board.phase === "playing";
    const question = playing
      ? "Leave the game? Your frames stay on the board, but you cannot bowl again in this game."
      : "Leave your seat on this lane?";
    if (!window.confirm(question)) return;
    send({ type: "leave" });
    localStorage.removeItem(tokenKey());
    lane.seat = null;
    render();
  });
  const pins = $("#pins");
  for (let n = 0; n <= 10; n++) {
    pins.append(el("button", { type: "button", class: "pin", "data-pins": String(n), text: String(n),
      onclick: () => roll(n) }));
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
  window.addEventListener("pageshow", (ev) => {
    if (!ev.persisted || lane.closed) return;
    lane.hidden = false;
    lane.retry = 0;
    visit();
  });
  visit();
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
    connect();
  } else {
    reconnectLater(lane.restarting ? "the server is restarting" : "cannot reach the server");
  }
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
  document.title = "tenpin — lane closed";
  $("#announce").textContent = "This lane is closed."; // the live region only: the log is for rolls
  render();
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}/ws/lanes/${encodeURIComponent(lane.id)}`);
  lane.ws = ws;
  ws.onopen = () => {
    lane.retry = 0;
    lane.restarting = false;
    setConn("connected", true);
    // Resume first thing: on a lane full of watchers the server holds a
    // new socket only a few seconds for its resume.
    const token = localStorage.getItem(tokenKey());
    if (token && !lane.takenOver) send({ type: "resume", token });
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
      reconnectLater("the lane has all the watchers it takes");
      return;
    }
    reconnectLater(lane.restarting ? "the server is restarting" : "disconnected");
  };
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
      const before = lane.board;
      lane.board = msg;
      if (before) announceRolls(before, msg);
      settle();
      render();
      break;
    }
    case "ack":
      showError(""); // what we sent last counted: an older refusal no longer applies
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
      lane.seat = msg.name;
      lane.takenOver = false;
      localStorage.setItem(tokenKey(), msg.token);
      showError("");
      announce(`You are ${msg.name}, seat ${msg.seat + 1}`);
      render();
      break;
    case "error":
      if (lane.correcting && msg.ref === lane.correcting.id) {
        // Refused: nothing changed. Say why in the dialog, which stays
        // open for another try.
        lane.correcting.id = "";
        $("#correct-error").textContent = sentence(msg.message);
        renderCorrection();
        return;
      }
      if (answersPending(msg)) {
        lane.pending = null;
        if (msg.code === "stale_roll") {
          // Not a failure: that ball was entered already (a second tap, or
          // someone else entering it too) and the board shows what counted.
          // Say so quietly, in the live region only.
          $("#announce").textContent = "Already entered: the board shows what counted.";
          render();
          return;
        }
      }
      if (msg.code === "bad_token") {
        localStorage.removeItem(tokenKey()); // that seat is gone: watch, or join again
        lane.seat = null;
        render();
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
      if (msg.code === "spectators_full") return; // the socket closes next (1013); onclose says so and retries
      if (msg.code === "lane_closed") return closeLane(); // the lane itself closed: it will not come back
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

// sentence shows a server's message, written lower case to be embedded,
// as a sentence on its own.
function sentence(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

function announce(text) {
  $("#announce").textContent = text;
  $("#log").prepend(el("li", { text }));
}

// describeRoll says what one roll was, from the frame's marks.
function describeRoll(marks, pins) {
  const last = marks.split("|").pop();
  if (last === "X") return "strike";
  if (last === "/") return "spare";
  if (pins === 0) return "gutter";
  return pins === 1 ? "1 pin" : `${pins} pins`;
}

// announceRolls says in the live region, and in the log, what changed on
// the board: a ball bowled, a ball corrected, a player skipped or back.
function announceRolls(before, after) {
  after.players.forEach((p) => {
    const old = before.players.find((q) => q.name === p.name);
    if (old && p.away !== old.away) {
      announce(p.away ? `${p.name} is away: the turn passes them by` : `${p.name} is back`);
    }
    if (old && p.left && !old.left) announce(`${p.name} left the game`);
    if (old) {
      p.frames.forEach((f, i) => {
        const was = old.frames[i];
        if (was && was.rolls.length === f.rolls.length && was.rolls.join() !== f.rolls.join()) {
          announce(`${p.name}: frame ${i + 1} corrected to ${f.marks}`);
        }
      });
    }
    const count = (pl) => pl ? pl.frames.reduce((n, f) => n + f.rolls.length, 0) : 0;
    if (count(p) <= count(old) || p.frames.length === 0) return;
    const f = p.frames[p.frames.length - 1];
    announce(`${p.name}: ${describeRoll(f.marks, f.rolls[f.rolls.length - 1])}`);
  });
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

function onKey(ev) {
  if (ev.target instanceof HTMLInputElement || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (document.querySelector("dialog[open]")) return; // the keys are the dialog's
  if (!enteringFor()) return;
  const standing = lane.board.up.standing;
  let n = null;
  if (/^[0-9]$/.test(ev.key)) n = Number(ev.key);
  else if (ev.key === "x" || ev.key === "X") n = 10;
  else if (ev.key === "/") n = standing;
  else if (ev.key === "-") n = 0;
  if (n === null) return;
  ev.preventDefault();
  // A held key repeats: only its first press is a roll.
  if (ev.repeat) return;
  roll(n);
}

function render() {
  $("#play").hidden = lane.closed;
  $("#closed").hidden = !lane.closed;
  const b = lane.board;
  if (!b || lane.closed) return;
  $("#lane-name").textContent = b.name;
  document.title = `tenpin — ${b.name}`;
  const up = b.up ? b.players[b.up.seat] : null;
  const seated = !!lane.seat && b.players.some((p) => p.name === lane.seat && !p.left);
  if (!seated) lane.seat = null;
  const host = isHost();
  // After a rematch the next game waits, like the first, for the host.
  const next = b.series ? " the next game" : "";
  const phase = {
    waiting: host ? (next ? "Next game: others may join; start when everyone is in." : "Waiting for players to join: start when everyone is in.")
      : b.host ? `Waiting for ${b.host} to start${next}.` : "Waiting for players to join.",
    playing: up ? `Frame ${b.up.frame}: ${up.name} is up${myTurn() ? " — your turn!" : "."}` : "Playing.",
    finished: "Game over." + winners(b) + (seated && !host && b.host ? ` ${b.host} can start a rematch.` : ""),
  }[b.phase];
  $("#phase").textContent = `${phase} ${b.spectators} watching.`;

  $("#join-form").hidden = seated || b.phase !== "waiting";
  $("#me").hidden = !seated && b.phase === "waiting";
  $("#me").textContent = seated ? `You are ${lane.seat}.` : "You are watching.";
  // Only the host may start and rematch: the others are told who can.
  $("#start").hidden = !(host && b.phase === "waiting");
  $("#rematch").hidden = !(host && b.phase === "finished");
  $("#leave").hidden = !seated;
  // The player up is offline: any other player may skip them once they
  // have been away long enough (the server says how long that is).
  const skippable = seated && b.phase === "playing" && up && up.name !== lane.seat && !up.connected;
  $("#skip").hidden = !skippable;
  if (skippable) $("#skip").textContent = `Skip ${up.name} (offline)`;

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
  const mine = host ? "any frame" : "one of your frames";
  $("#correct-hint").hidden = !b.players.some((p) => p.frames.length > 0 && mayCorrect(p));
  $("#correct-hint").textContent = `Mistyped a ball? Tap ${mine} on the board to correct it.`;
  renderCorrection();
  renderPlayerMenu();
}

function winners(b) {
  const still = b.players.filter((p) => !p.left);
  if (still.length < 2) return "";
  const best = Math.max(...still.map((p) => p.total));
  const names = still.filter((p) => p.total === best).map((p) => p.name);
  return names.length > 1 ? ` ${names.join(" and ")} tie with ${best}.` : ` ${names[0]} wins with ${best}.`;
}

// mayCorrect reports whether this page may correct p's balls: its own,
// and as host anyone's, in the game on the board.
function mayCorrect(p) {
  const b = lane.board;
  if (!b || !lane.seat || !lane.ws || (b.phase !== "playing" && b.phase !== "finished")) return false;
  return p.name === lane.seat || isHost();
}

function renderBoard(b) {
  const head = el("tr", {}, el("th", { scope: "col", text: "NAME" }));
  for (let f = 1; f <= 10; f++) head.append(el("th", { scope: "col", text: String(f).padStart(2, "0") }));
  head.append(el("th", { scope: "col", text: "TOTAL" }));
  $("#board thead").replaceChildren(head);
  const rows = [];
  const host = isHost();
  b.players.forEach((p, seat) => {
    const isUp = b.up && b.up.seat === seat;
    const cls = [isUp ? "up" : "", p.left ? "left" : "", p.away ? "away" : ""].join(" ").trim();
    // The host's menu for another player (remove) opens from their name.
    const name = host && p.name !== lane.seat && !p.left
      ? el("button", { type: "button", class: "name", text: p.name, title: `Options for ${p.name}`,
        onclick: () => openPlayerMenu(p.name) })
      : p.name;
    const nameCell = el("th", { scope: "row", rowSpan: 2 }, name);
    if (typeof name !== "string") name.setAttribute("aria-haspopup", "dialog");
    if (p.name === b.host) nameCell.append(" ", el("span", { class: "badge", text: "host", title: "Starts the game and may enter anyone's ball" }));
    if (p.left) nameCell.append(el("span", { class: "status", text: " (left)" }));
    else if (p.away) nameCell.append(el("span", { class: "away", text: " (away)", title: "Skipped while offline: bowls the missed frames when back" }));
    else if (!p.connected) nameCell.append(el("span", { class: "offline", text: " (offline)" }));
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
  const pins = $("#correct-pins");
  for (let n = 0; n <= 10; n++) {
    pins.append(el("button", { type: "button", "data-pins": String(n), text: String(n),
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
    $("#correct-balls").replaceChildren(...fr.rolls.map((pins, i) => el("button", { type: "button",
      "data-ball": String(i + 1), text: `Ball ${i + 1}: ${pins}`,
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
