// tenpin's page: the lobby at "/" and a lane at "/lanes/{id}". main owns
// the lane's state and renders it; the other modules are its parts:
// socket (the connection), board (the board as pure functions), pad (the
// bowler's pad), dialogs (correction, the host's menu), stats (the
// night's numbers, the exports), invite, lobby, and i18n (every word, in
// English and Korean). No build step: the browser loads them as they are.
import { $, el, setFieldError, say } from "./dom.js";
import { t, applyStatic, errorText, getLang, langSwitch, clock } from "./i18n.js";
import { startLobby, setConn, relabelConn, relabelLobby, hostKeyKey } from "./lobby.js";
import { createSocket } from "./socket.js";
import { boardHead, boardRows, rankingItems, result, rollLog, changes, highsOf, highText } from "./board.js";
import { buildPad, renderPad, keyRoll, freshRack } from "./pad.js";
import { createNumbers } from "./stats.js";
import { startInvite, invite, renderInvite, setInvite, storedInvite, keepInvite, validInvite } from "./invite.js";
import { bowlerKey, keepPendingKey, promotePendingKey, confirmPendingKeys, forgetBowlerKey } from "./bowler.js";
import { startWorker, checkVersion } from "./offline.js";
import { applyBall } from "./local.js";
import { loadLane, saveLane, loadOutbox, saveOutbox } from "./outbox.js";
import { startDialogs, openCorrection, renderCorrection, correctionAnswered, openPlayerMenu, renderPlayerMenu, closeDialogs } from "./dialogs.js";

// state is the lane as this page knows it. The connection's own state
// (socket, backoff, nodes) is the socket's.
const state = {
  id: "",
  // The board the page shows: the lane's last (server), with the balls
  // of the outbox the lane has not had yet played on it (local.js).
  board: null,
  server: null, // the lane's last board, as the server sent it (or as the phone kept it)
  serverAt: 0, // when it came (Date.now() time)
  // The outbox: the balls entered while the connection was away, not yet
  // sent, in order, for seat (the page's player when they were entered):
  // [{ name, frame, ball, game, fields, pins, at }], fields being the
  // roll's as entered ({ pins }, { deck } or { foul }) and pins its count.
  // Kept in IndexedDB.
  outbox: { seat: "", balls: [] },
  // The outbox's first ball sent and not yet settled: { id, seq } as
  // pending, correct when it was sent as a correction (see conflict).
  flush: null,
  // The outbox's first ball, refused: { ball, lane, why, error } (lane:
  // the lane's count of that ball, or null when the lane has none, and
  // why says the refusal; error, a correction of it refused). The queue
  // stops until the bowler chooses (keepLanes, correctIt).
  conflict: null,
  seat: null, // my name, once welcomed
  takenOver: false, // another tab or phone resumed our seat: do not take it back on reconnect
  closed: false, // the lane is gone for good
  kept: false, // closed, and its night is kept: the board is its last, read-only
  joinID: "", // the join sent and not yet answered
  resumeID: "", // the resume sent on connecting and not yet answered
  // Commands sent and not yet answered, by type: start, skip and leave.
  // A second tap while one is in flight sends nothing: a skip sent twice
  // would skip the next player too.
  waiting: {},
  // The roll sent and not yet settled: { id, seq }. Until the server
  // answers it (and, once acked, until the board with its effect — seq —
  // arrives) the pad takes no other roll: the next one must name the next
  // ball, which only that board tells.
  pending: null,
  // The correction being entered in the dialog: { player, frame, ball,
  // pins, id, … } (see dialogs); id is that of the correct message sent
  // and not yet answered, "" before it is sent.
  correcting: null,
  menuFor: "", // the player whose menu (the host's) is open
  // What the page shows that is not on the board, kept to be drawn again.
  view: {
    skipAt: 0, // when the player up, offline, may be skipped (Date.now() time)
    skipTimer: 0, // the next render of the skip countdown
    wasMine: false, // the last board rendered had this page's player up
    turnCame: false, // and the one before did not: the turn just came
    logShown: "", // the roll log as last shown, to redraw it only when it changes
    scrolledTo: "", // the frame the board was last scrolled to show
    unsent: [], // the outbox's balls on the board shown (see project)
    blocked: false, // a ball of the outbox does not follow the lane's board
  },
};

let sock = null;
let numbers = null; // the night's numbers and the exports

function tokenKey() { return "tenpin-token-" + state.id; }

function storedHostKey() {
  try { return localStorage.getItem(hostKeyKey(state.id)) || ""; } catch { return ""; }
}

// nameMax is the most letters a player's name has (the server's rule,
// which also refuses what the page does not check: emoji, invisible
// characters, doubled spaces; it says so with invalid_name).
const nameMax = 12;

// nameMaxBytes is the most bytes of UTF-8 a name takes (the server's
// rule: 12 letters of 5 code points, a letter and 4 marks, of 4 bytes):
// past it a join would not fit in a message the server reads.
const nameMaxBytes = 240;

// isolate sets a name apart in a sentence, so that a name written right
// to left, or holding a direction mark, never turns the sentence around
// it (U+2068 first strong isolate … U+2069 pop directional isolate).
function isolate(name) { return "\u2068" + name + "\u2069"; }

// nameProblem says what is wrong with a player's name, in words, or "":
// 1 to 12 letters of any script, counted as a reader counts them, with
// spaces, hyphens or apostrophes between words.
function nameProblem(name) {
  if (name === "") return t("nameEmpty");
  const bytes = new TextEncoder().encode(name).length;
  if (bytes > nameMaxBytes) return t("nameBytes", bytes, nameMaxBytes);
  const bad = [...new Set([...name].filter((c) => !/^[\p{L}\p{M} '’-]$/u.test(c)))];
  if (bad.length) return t("nameBadChars", isolate(name), bad);
  const letters = [...new Intl.Segmenter().segment(name)].filter((s) => /\p{L}/u.test(s.segment)).length;
  if (letters > nameMax) return t("nameLength", isolate(name), letters, nameMax);
  return "";
}

// send sends msg, or says the page is not connected and returns "".
function send(msg) {
  const id = sock.send(msg);
  if (!id) showError(() => t("notConnected"));
  return id;
}

// refusal is what the page says of a server's refusal: its own words
// for the code, never the server's English message; ctx names who.
function refusal(msg, ctx = {}) {
  return () => errorText(msg.code, ctx);
}

// takeFragment keeps what the address's fragment brings, and returns the
// invitation it brought, or "". A page that moved here from another
// node of the cluster brings its seat's token (see socket's moveNode),
// and a friend's link brings the lane's invitation (#invite=CODE): keep
// them on this device, and take them out of the address bar and the
// history, so that a screenshot of the address, a bookmark or a synced
// history does not seat a stranger. The page's invitation panel shares
// the link with the invitation for as long as it is good.
function takeFragment() {
  const frag = new URLSearchParams(location.hash.slice(1));
  const moved = frag.get("token");
  if (moved) localStorage.setItem(tokenKey(), moved);
  const code = (frag.get("invite") || "").trim().toUpperCase();
  if (validInvite(code)) keepInvite(state.id, code);
  if (frag.has("token") || frag.has("invite")) history.replaceState(null, "", location.pathname + location.search);
  return validInvite(code) ? code : "";
}

// retryShown: "Try now" is shown (see startLane's status).
let retryShown = false;

function startLane(id) {
  state.id = id;
  takeFragment();
  // A link to this lane opened in its own tab changes only the fragment:
  // the page stays, and takes the invitation from it all the same.
  window.addEventListener("hashchange", () => {
    const code = takeFragment();
    if (code) setInvite(code);
  });
  $("#lane").hidden = false;
  sock = createSocket(id, {
    status(say, ok) {
      setConn(say, ok);
      // "Try now" stays from the first retry planned until the page is
      // back: hidden while each try is under way, it blinked with the
      // countdown, and a tap could land on nothing.
      retryShown = !ok && !!sock && (retryShown || sock.waiting());
      $("#retry-now").hidden = !retryShown;
      if (state.board) render(); // the banner says whether the pad is live
    },
    open() {
      checkVersion();
      // Resume first thing: on a lane full of watchers the server holds a
      // new socket only a few seconds for its resume.
      const token = localStorage.getItem(tokenKey());
      if (token && !state.takenOver) state.resumeID = sock.send({ type: "resume", token });
    },
    message: onMessage,
    closed(ev) {
      // No answer comes on a closed socket. The board the lane sends on
      // reconnect shows whether the roll counted; a roll sent again for the
      // same ball is refused as stale, so it cannot count twice.
      state.pending = null;
      state.flush = null; // sent again once back: a ball sent again that counted is acked
      state.joinID = "";
      state.resumeID = "";
      state.waiting = {};
      render();
      if (ev.code === 1013) showError("");
    },
    gone: closeLane,
    kept: keptLane,
    visited: () => invite(id),
    // A seat another tab or phone took over stays theirs.
    token: () => state.takenOver ? "" : localStorage.getItem(tokenKey()),
    // The invitation goes along to another node too: its storage is
    // another address's.
    invite: () => storedInvite(id),
  });
  startInvite(id);
  numbers = createNumbers(id, () => state.closed && !state.kept ? null : state.board);
  const name = $("#join-name");
  name.addEventListener("input", () => {
    joinError = () => "";
    setFieldError("#join-name", "#join-error", "");
  });
  $("#join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = name.value.trim();
    const problem = nameProblem(value);
    joinError = () => nameProblem(value);
    setFieldError("#join-name", "#join-error", problem);
    if (problem) {
      name.focus();
      return;
    }
    if (state.joinID) return; // the join sent is not answered yet
    const req = { type: "join", name: value };
    const key = storedHostKey();
    if (key) req.host_key = key;
    // The lane seats only who has its invitation (but its creator, by
    // the host key): a join without it is refused, and the page watches.
    const inv = storedInvite(state.id);
    if (inv) req.invite = inv;
    // Remembered: this phone's bowler, or a new one; otherwise a guest.
    if ($("#join-remember").checked) {
      if (bowlerKey()) req.bowler_key = bowlerKey();
      else req.remember = true;
    }
    state.joinID = send(req);
  });
  $("#retry-now").addEventListener("click", () => sock.retryNow());
  $("#start").addEventListener("click", () => sendOnce("start"));
  // The creator who will not bowl lets the others start without them:
  // the key then makes nobody the host, so the page forgets it.
  $("#give").addEventListener("click", () => {
    const key = storedHostKey();
    if (!key || !window.confirm(t("confirmGive"))) return;
    if (sendOnce("give", { host_key: key })) {
      try { localStorage.removeItem(hostKeyKey(state.id)); } catch { /* storage off */ }
    }
  });
  // Rematch, leave and remove cannot be undone, and a lane is a place
  // where a phone gets bumped: ask first.
  $("#rematch").addEventListener("click", () => {
    if (!window.confirm(t("confirmRematch"))) return;
    sendOnce("rematch");
  });
  // A skip can be undone by the one skipped, who comes back and bowls the
  // missed frames: no question. The server says whether they have been
  // offline long enough.
  $("#skip").addEventListener("click", () => sendOnce("skip"));
  // The host shuts out whoever holds the old link and no seat (a crawler
  // removed, say): the ack brings the new invitation.
  $("#new-invite").addEventListener("click", () => {
    inviteDone = () => "";
    $("#new-invite-done").textContent = "";
    sendOnce("new_invite");
  });
  $("#leave").addEventListener("click", () => {
    const playing = state.board && state.board.phase === "playing";
    if (!window.confirm(playing ? t("confirmLeaveGame") : t("confirmLeaveSeat"))) return;
    // The seat is given up once the server says so (its ack): a leave
    // refused, or never sent, keeps the seat and its token.
    if (!sendOnce("leave")) showError(() => t("notConnectedLeave"));
  });
  // The deck's taps redraw the pad; they read the ball up.
  buildPad(roll, () => {
    if (!enteringFor()) return null;
    render();
    return state.board.up;
  });
  // The pins standing, drawn as a deck seen from the foul line: the
  // head pin in front.
  for (const row of [[7, 8, 9, 10], [4, 5, 6], [2, 3], [1]]) {
    $("#deck").append(el("span", { class: "row" }, ...row.map((n) => el("i", { "data-pin": String(n) }))));
  }
  startDialogs({ state, send, mayCorrect, isHost });
  $("#games-link").href = "/api/lanes/" + encodeURIComponent(id) + "/games";
  $("#games-link").download = `tenpin-${id}-games.json`;
  document.addEventListener("keydown", onKey);
  // A page the browser keeps in its back/forward cache would keep its
  // socket open, and its player would look connected while gone: nobody
  // could skip them. Close it on the way out, and connect again if the
  // page is shown from the cache.
  window.addEventListener("pagehide", () => {
    sock.hide();
    state.pending = null;
  });
  // The cluster's nodes change: ask again now and then, so that the list
  // a page moves by is fresh when its node dies.
  setInterval(() => { if (!state.closed && sock.live()) sock.nodes(); }, 60000);
  window.addEventListener("pageshow", (ev) => {
    if (!ev.persisted || state.closed) return;
    sock.show();
  });
  // For tests and the console: what the page knows, to look at (not to
  // change).
  window.tenpin = { state, nodes: () => sock.knownNodes(), backoff: () => sock.backoff() };
  // The phone says when its network goes or comes: a socket on a network
  // that is gone may not hear of it for a long while, and the pad should
  // keep the balls at once; back, try at once rather than at the backoff's
  // next try.
  window.addEventListener("offline", () => sock.close(1000, "offline"));
  window.addEventListener("online", () => sock.retryNow());
  $("#keep-lane").addEventListener("click", keepLanes);
  $("#correct-it").addEventListener("click", correctIt);
  restore();
  sock.visit();
}

// restore shows what the phone kept of the lane until the lane itself
// answers: its last board and the seat it was seen from (with no
// network, that is all the page has), and that seat's outbox.
async function restore() {
  const kept = await loadLane(state.id);
  if (kept && kept.board && !state.server) {
    state.server = kept.board;
    state.serverAt = kept.at;
    if (!state.seat && kept.seat) state.seat = kept.seat;
  }
  const seat = state.seat || (kept && kept.seat) || "";
  if (seat) await takeOutbox(seat);
  project();
  if (state.board) render();
}

// closeLane shows that the lane is gone and stops reconnecting.
function closeLane() {
  state.closed = true;
  sock.stop();
  closeDialogs();
  setConn(() => t("connClosed"), false);
  document.title = t("titleClosed");
  say(t("laneClosedSaid"));
  render();
}

// keptLane shows a lane that has closed and whose night is kept: its last
// board, series, numbers and every game's sheet, read-only.
function keptLane(board) {
  state.closed = true;
  state.kept = true;
  state.server = board;
  state.board = board;
  closeDialogs();
  setConn(() => t("connKept"), false);
  say(t("keptSaid"));
  render();
  numbers.refresh(board);
}

// renderKept draws a kept lane: what it showed when it closed, with
// nothing to press.
function renderKept(b) {
  $("#lane-name").textContent = b.name;
  $("#lane-name").title = b.name;
  document.title = t("titleKept", b.name);
  const when = new Date(b.closed_at).toLocaleString(getLang() === "ko" ? "ko-KR" : "en", { dateStyle: "long", timeStyle: "short" });
  $("#kept-when").textContent = t("keptWhen", when);
  for (const sel of ["#banner", "#phase", "#join-form", ".seat", "#pad", "#correct-hint", "#removed-list", "#invite", ".logs"]) {
    $(sel).hidden = true;
  }
  renderBoard(b);
  renderSeries(b);
  numbers.render();
}

// sendOnce sends a command of type unless one is in flight, and reports
// whether it was sent.
function sendOnce(type, fields = {}) {
  if (state.waiting[type]) return false;
  const id = send({ type, ...fields });
  if (id) state.waiting[type] = id;
  render();
  return !!id;
}

// answered takes an answer's command off those in flight, and returns
// its type ("" if it answered none of them).
function answered(msg) {
  for (const [type, id] of Object.entries(state.waiting)) {
    if (msg.ref && msg.ref === id) {
      delete state.waiting[type];
      render();
      return type;
    }
  }
  return "";
}

// settle ends the pending roll once the board showing it has arrived. The
// server sends boards and answers on separate queues, so the ack may come
// first.
function settle() {
  const p = state.pending;
  if (p && p.seq !== null && state.board && state.board.seq >= p.seq) state.pending = null;
}

function answersPending(msg) {
  return !!state.pending && msg.ref === state.pending.id;
}

function onMessage(msg) {
  switch (msg.type) {
    case "board": {
      if (!state.resumeID) sock.taken(); // the lane took this socket (a resume says for itself)
      const before = state.board;
      state.server = msg;
      state.serverAt = Date.now();
      project();
      saveLane(state.id, msg, state.seat, state.serverAt);
      promotePendingKey(state.id, msg, state.seat);
      // When the player up, offline, may be skipped: counted down here
      // from the board's skip_in, which says 0 when the time comes.
      state.view.skipAt = msg.up && typeof msg.up.skip_in === "number" ? Date.now() + msg.up.skip_in * 1000 : 0;
      const { said, news } = before ? changes(before, msg) : { said: [], news: [] };
      for (const n of news) notice(n);
      settle();
      settleFlush();
      flushNext(); // the lane may be at the outbox's next ball now
      render();
      numbers.refresh(msg);
      // Said once, in the live region: what changed, and whose turn came.
      if (state.view.turnCame) said.push(t("yourTurnSaid"));
      if (said.length) say(said.join(". "));
      break;
    }
    case "ack": {
      showError(""); // what we sent last counted: an older refusal no longer applies
      const type = answered(msg);
      if (type === "start") focusBoard();
      if (type === "new_invite" && msg.invite) {
        setInvite(msg.invite);
        inviteDone = () => t("newInviteDone");
        $("#new-invite-done").textContent = inviteDone();
      }
      if (type === "leave") {
        localStorage.removeItem(tokenKey());
        state.seat = null;
        render();
      }
      if (answersPending(msg)) {
        state.pending.seq = msg.seq;
        settle();
        render();
      }
      if (state.flush && msg.ref === state.flush.id) {
        state.flush.seq = msg.seq;
        settleFlush();
      }
      // The outbox goes on once nothing else is in flight.
      flushNext();
      render();
      correctionAnswered(msg, "");
      break;
    }
    case "welcome": {
      const joined = !!state.joinID && msg.ref === state.joinID;
      if (msg.ref && msg.ref === state.resumeID) {
        state.resumeID = "";
        sock.taken();
      }
      state.seat = msg.name;
      state.takenOver = false;
      state.joinID = "";
      localStorage.setItem(tokenKey(), msg.token);
      if (msg.bowler_key) keepPendingKey(state.id, msg.bowler_key); // the bowler is made at the first ball
      if (state.board) promotePendingKey(state.id, state.board, state.seat);
      try { localStorage.removeItem(hostKeyKey(state.id)); } catch { /* storage off */ }
      showError("");
      setFieldError("#join-name", "#join-error", "");
      notice(() => t("welcome", msg.name, msg.seat + 1));
      render();
      if (joined) focusBoard();
      // Back: the balls entered meanwhile go, in order.
      takeOutbox(msg.name);
      break;
    }
    case "error":
      onError(msg);
      break;
  }
}

function onError(msg) {
  answered(msg);
  if (state.flush && msg.ref === state.flush.id) return refusedFromOutbox(msg);
  if (correctionAnswered(msg, refusal(msg)())) return;
  if (state.joinID && msg.ref === state.joinID) {
    // A name refused (taken, the lane full, the game started): say so
    // beside the name.
    state.joinID = "";
    if (msg.code === "unknown_bowler") forgetBowlerKey(); // the next join is a guest's, or a new history's
    // The invitation this page kept seats nobody (the host made a new
    // one): share no link that would not seat, and watch.
    if (msg.code === "invitation_required" && storedInvite(state.id)) setInvite("");
    const name = isolate($("#join-name").value.trim());
    // not_your_team refuses a roll too; of a join, it is the invitation's team.
    joinError = msg.code === "not_your_team" ? () => t("joinNotYourTeam") : refusal(msg, { name });
    setFieldError("#join-name", "#join-error", joinError());
    return;
  }
  if (answersPending(msg)) {
    state.pending = null;
    if (msg.code === "stale_roll") {
      // Not a failure: that ball was entered already (a second tap, or
      // someone else entering it too) and the board shows what counted.
      // Say so quietly, in the live region only.
      say(t("alreadyEntered"));
      render();
      return;
    }
  }
  if (msg.code === "bad_token") {
    localStorage.removeItem(tokenKey()); // that seat is gone: watch, or join again
    state.seat = null;
    state.resumeID = "";
    render();
    return;
  }
  if (state.resumeID && msg.ref === state.resumeID) {
    // The seat is still ours, but the lane could not give it back now
    // (its store did not answer, say): connect again later, with
    // backoff, and resume then. Until then this page holds no seat.
    state.resumeID = "";
    state.seat = null;
    setConn(() => t("connResumeRefused"), false);
    sock.close(1000, "resume refused");
    return;
  }
  if (msg.code === "removed") {
    // For good: the seat's token no longer resumes it, so forget it
    // (a reload must not try), and watch from here.
    localStorage.removeItem(tokenKey());
    state.seat = null;
    closeDialogs();
    showError(() => t("youWereRemoved"));
    render();
    return;
  }
  if (msg.code === "seat_taken_over") {
    // Resumed on another tab or phone: watch from here, and do not
    // take the seat back on reconnect (the two would take turns).
    state.seat = null;
    state.takenOver = true;
  }
  if ((msg.code === "spectators_full" || msg.code === "rate_limited") && !msg.ref) {
    sock.turnedAway(msg.code); // the socket closes next (1013); the socket says why and retries
    return;
  }
  if (msg.code === "spectators_full") return;
  if (msg.code === "lane_closed" || msg.code === "lane_idle") return closeLane(); // the lane itself closed: it will not come back
  if (msg.code === "server_restarting") {
    // Not an error: the server will be back with the lane, and the seat
    // resumes with its token. The socket closes next, and reconnects.
    sock.restarting();
    setConn(() => t("connRestarting"), false);
    return;
  }
  const up = upPlayer();
  showError(refusal(msg, { name: up ? up.name : "" }));
  render();
}

// laneError says the lane's error of the moment, if any.
let laneError = () => "";

// inviteDone says that the host's new invitation was made, or "".
let inviteDone = () => "";

// joinError says the server's refusal of the name, if any.
let joinError = () => "";

// showError shows say(), the lane's error, or "" for none.
function showError(say) {
  laneError = typeof say === "function" ? say : () => say;
  $("#lane-error").textContent = laneError();
}


// news is the lane's news, newest first: functions that say each line in
// the page's language of the moment.
const news = [];

// notice says a line of news and keeps it in the lane's news (never
// among the rolls, which the board holds); line is a function that says
// it.
function notice(line) {
  say(line());
  news.unshift(line);
  news.length = Math.min(news.length, 50);
  $("#notices").prepend(el("li", { text: line() }));
  while ($("#notices").children.length > 50) $("#notices").lastChild.remove();
}

// upPlayer is the player whose ball is up, or null.
function upPlayer() {
  const b = state.board;
  return b && b.phase === "playing" && b.up ? b.players[b.up.seat] || null : null;
}

function myTurn() {
  const up = upPlayer();
  return !!(up && state.seat && up.name === state.seat);
}

function isHost() {
  return !!(state.seat && state.board && state.board.host === state.seat);
}

// teammate reports whether p bowls for this page's team on a league
// night's lane (whose players have a team); never on a lane of friends.
function teammate(p) {
  const b = state.board;
  const me = b && state.seat ? b.players.find((q) => q.name === state.seat) : null;
  return !!(me && me.team && p.team === me.team);
}

// enteringFor is the name of the player whose ball this page may enter
// now, or "" if none: one's own ball; as host, anyone's; and anyone's
// while they are offline, so one phone can keep score for all. On a
// league night's lane, which has no host, a teammate's while they are
// offline, and never the other team's: the server refuses those
// (not_your_team).
function enteringFor() {
  const up = upPlayer();
  if (!up || !state.seat) return "";
  if (up.name === state.seat) return up.name;
  if (up.team) return teammate(up) && !up.connected ? up.name : "";
  if (isHost() || !up.connected) return up.name;
  return "";
}

// mayCorrect reports whether this page may correct p's balls: its own,
// and as host anyone's (on a league night's lane, a teammate's), in the
// game on the board.
function mayCorrect(p) {
  const b = state.board;
  if (!b || !state.seat || !sock.has() || (b.phase !== "playing" && b.phase !== "finished")) return false;
  return p.name === state.seat || isHost() || teammate(p);
}

// roll sends the ball up on the latest board: its pins ({ pins }), the
// pins it left standing ({ deck }), or a foul ({ foul: true }). It names
// that ball (frame and ball), so a roll that arrives after the ball was
// entered is refused as stale instead of counting for the next one; and
// only one roll is in flight at a time, so a double tap sends one.
function roll(fields) {
  const b = state.board;
  const who = enteringFor();
  if (!who || state.pending || state.flush || state.conflict || fields.pins > b.up.standing) return;
  // Offline, or after balls that wait: this one waits too, in order. (A
  // ball the outbox waits for — the lane's up — goes at once.)
  if (!sock.connected() || (state.outbox.balls.length && !state.view.blocked)) return queue(who, fields);
  const msg = { type: "roll", ...fields, frame: b.up.frame, ball: b.up.ball };
  if (who !== state.seat) msg.name = who;
  const id = send(msg);
  if (!id) return;
  state.pending = { id, seq: null };
  render();
}

// ---------------------------------------------------------------- outbox

// project makes the board shown: the lane's last, with the outbox's balls
// played on it in order (local.js) up to the first that does not follow
// — one the lane has otherwise, or one it is not at yet (blocked). A
// ball the lane has already, the same, is passed: it was sent, and
// counted.
function project() {
  let b = state.server;
  if (state.kept) {
    // A kept lane is read-only: its last board, and nothing more goes on it.
    state.board = b;
    state.view.unsent = [];
    state.view.blocked = false;
    return;
  }
  const unsent = [];
  let blocked = false;
  for (const q of state.outbox.balls) {
    if (otherGame(q)) {
      blocked = true;
      break;
    }
    const had = laneBall(state.server, q);
    if (had && same(had, q)) continue;
    const next = had ? null : applyBall(b, { name: q.name, frame: q.frame, ball: q.ball, ...q.fields });
    if (!next) {
      blocked = true;
      break;
    }
    b = next;
    unsent.push(q);
  }
  state.board = b;
  state.view.unsent = unsent;
  state.view.blocked = blocked;
}

// gameNumber is which game of the lane's series board b is on: the
// games in its series (the game over included, once it is), and one more
// while the next is set up or in play.
function gameNumber(b) {
  const games = b && b.series ? Math.max(0, ...b.series.map((x) => x.games)) : 0;
  return b && b.phase === "finished" ? games : games + 1;
}

// otherGame reports whether queued ball q is of another game than the
// one on the lane's board: never to be sent, as it would count in that
// one.
function otherGame(q) {
  return typeof q.game === "number" && !!state.server && q.game !== gameNumber(state.server);
}

// laneBall is ball q (its player, frame and ball) as board b has it:
// { pins, deck, foul }, or null if b does not have it.
function laneBall(b, q) {
  const p = b && b.players.find((x) => x.name === q.name);
  const f = p && p.frames[q.frame - 1];
  if (!f || f.rolls.length < q.ball) return null;
  const i = q.ball - 1;
  return { pins: f.rolls[i], deck: f.decks && f.decks[i] ? f.decks[i] : null, foul: !!(f.fouls && f.fouls.includes(q.ball)) };
}

// same reports whether the lane's ball had is the queued ball q, as the
// server tells a ball sent again: the same deck when q gave the deck
// alone, else the same pins; the same foul.
function same(had, q) {
  if (!!q.fields.foul !== had.foul) return false;
  if (q.fields.deck && typeof q.fields.pins !== "number") return !!had.deck && had.deck.join() === [...q.fields.deck].sort((x, y) => x - y).join();
  return had.pins === q.pins;
}

// ballText says a ball's count: "7 pins", "foul".
function ballText(x) {
  return x.foul || (x.fields && x.fields.foul) ? t("foul") : t("pins", x.pins);
}

// queue keeps a ball entered while the lane cannot have it (the
// connection is away, or balls entered before it wait): in the outbox, on
// the phone, and on the board shown, marked not sent yet. Only a ball the
// rules take on the board shown is kept.
function queue(who, fields) {
  const b = state.board;
  const q = { name: who, frame: b.up.frame, ball: b.up.ball, game: gameNumber(state.server), fields, at: Date.now() };
  const next = applyBall(b, { name: who, frame: q.frame, ball: q.ball, ...fields });
  if (!next) return;
  q.pins = next.players[b.up.seat].frames[q.frame - 1].rolls[q.ball - 1];
  const balls = state.outbox.seat === state.seat ? state.outbox.balls : [];
  state.outbox = { seat: state.seat, balls: [...balls, q] };
  keepOutbox();
  const before = state.board;
  project();
  render();
  const { said } = changes(before, state.board);
  say([...said, t("unsentSaid")].join(". "));
}

// keepOutbox writes the outbox to the phone's storage; #outbox says how
// many of its balls storage holds (data-kept), once written.
function keepOutbox() {
  const { seat, balls } = state.outbox;
  saveOutbox(state.id, seat, balls).then((ok) => {
    if (ok && state.outbox.balls === balls) $("#outbox").dataset.kept = String(balls.length);
  });
}

// takeOutbox takes the outbox of seat, the page's player (as they were
// welcomed, or as the phone kept them), from the phone's storage, and
// sends its balls if the page is connected.
async function takeOutbox(seat) {
  if (state.outbox.seat !== seat) {
    const balls = await loadOutbox(state.id, seat);
    if (state.outbox.seat !== seat) state.outbox = { seat, balls };
    $("#outbox").dataset.kept = String(balls.length);
    project();
    render();
  }
  flushNext();
}

// flushNext sends the outbox's first ball, once the page has its seat
// back (the resume answered) and nothing else is in flight: in order, each
// waiting for its answer and the board with it. A ball the lane is not
// at yet (another ball is up first: the lane went on without this phone
// on another player's frame) waits for the lane; the pad enters the
// lane's ball up meanwhile.
function flushNext() {
  if (state.flush || state.conflict || state.pending || state.resumeID || !state.seat || !sock.connected()) return;
  if (state.outbox.seat !== state.seat) return;
  const q = state.outbox.balls[0];
  const lane = state.server;
  if (!q || !lane) return;
  // A ball of a game that is over (the lane went on to the next while
  // this phone was away) is shown, never sent.
  if (otherGame(q)) {
    state.conflict = { ball: q, lane: null, why: () => t("otherGame"), error: null };
    render();
    say(conflictText());
    return;
  }
  const up = lane.phase === "playing" && lane.up && lane.players[lane.up.seat].name === q.name && lane.up.frame === q.frame && lane.up.ball === q.ball;
  if (!up && !laneBall(lane, q)) return;
  const msg = { type: "roll", ...q.fields, frame: q.frame, ball: q.ball };
  if (q.name !== state.seat) msg.name = q.name;
  const id = sock.send(msg);
  if (id) state.flush = { id, seq: null };
}

// settleFlush ends the outbox's first ball once the board with it (or
// with its correction) has come: it is the lane's, and off the outbox.
function settleFlush() {
  const f = state.flush;
  if (!f || f.seq === null || !state.server || state.server.seq < f.seq) return;
  state.flush = null;
  if (f.correct) state.conflict = null;
  state.outbox = { ...state.outbox, balls: state.outbox.balls.slice(1) };
  keepOutbox();
  project();
}

// refusedFromOutbox takes the server's refusal of the outbox's first
// ball: the queue stops, and the page shows the lane's count and the
// phone's (stale_roll: the lane had that ball from another phone, with
// other pins), or why the lane refused it; the bowler chooses (keepLanes,
// correctIt). A correction refused says why, and the choice stays.
function refusedFromOutbox(msg) {
  const f = state.flush;
  state.flush = null;
  if (f.correct) {
    if (state.conflict) state.conflict.error = refusal(msg, { name: state.conflict.ball.name });
    render();
    return;
  }
  const q = state.outbox.balls[0];
  const had = laneBall(state.server, q);
  // Not at that ball yet after all: the board that says so is on its way.
  if (msg.code === "stale_roll" && !had) return render();
  state.conflict = { ball: q, lane: had, why: had ? null : refusal(msg, { name: q.name }), error: null };
  project();
  render();
  say(conflictText());
}

// conflictText says the outbox's refused ball: both counts, or why.
function conflictText() {
  const c = state.conflict;
  const q = c.ball;
  return c.lane ? t("conflict", q.name, q.frame, q.ball, ballText(q), ballText(c.lane)) : t("conflictRefused", q.name, q.frame, q.ball, ballText(q), c.why());
}

// after is the outbox's balls that go with its refused first ball if the
// lane's count is kept: the same player's later balls of that frame,
// entered on the rack this phone's ball left, which the lane never had.
function after(c) {
  if (otherGame(c.ball)) return state.outbox.balls.slice(1).filter((x) => x.game === c.ball.game);
  return state.outbox.balls.slice(1).filter((x) => x.name === c.ball.name && x.frame === c.ball.frame);
}

// keepLanes keeps the lane's count of the refused ball: the phone's goes,
// with the balls entered after it on its rack (said so), and the rest
// of the outbox goes on.
function keepLanes() {
  const c = state.conflict;
  if (!c || state.flush) return;
  const dropped = after(c);
  state.outbox = { ...state.outbox, balls: state.outbox.balls.slice(1).filter((x) => !dropped.includes(x)) };
  state.conflict = null;
  keepOutbox();
  project();
  const q = c.ball;
  notice(() => t("keptLanes", q.name, q.frame, q.ball, dropped.length));
  flushNext();
  render();
}

// correctIt corrects the lane's ball to the phone's count, where the
// rules let this page correct it (its own ball; as host, anyone's): the
// correction takes the refused ball's place in flight, and once the board
// with it comes the outbox goes on.
function correctIt() {
  const c = state.conflict;
  if (!c || !c.lane || state.flush) return;
  const q = c.ball;
  const msg = { type: "correct", ...q.fields, frame: q.frame, ball: q.ball };
  if (q.name !== state.seat) msg.name = q.name;
  const id = send(msg);
  if (!id) return;
  state.flush = { id, seq: null, correct: true };
  c.error = null;
  render();
}

// renderOutbox shows what the phone holds that the lane has not: the
// board as last had, when offline; the balls waiting and since when; the
// frames of the board with balls not sent yet; a refused ball, and the
// choice.
function renderOutbox(b) {
  const balls = state.outbox.seat === state.seat ? state.outbox.balls : [];
  const offline = !sock.connected() && !!state.server;
  $("#offline-board").hidden = !offline;
  if (offline) $("#offline-board").textContent = t("offlineBoard", clock(state.serverAt));
  $("#outbox").hidden = balls.length === 0;
  if (balls.length) {
    const up = state.server && state.server.up ? state.server.players[state.server.up.seat] : null;
    const waits = !offline && !state.flush && !state.conflict && state.view.blocked && up ? " " + t("outboxWaits", up.name) : "";
    $("#outbox").textContent = t("outbox", balls.length, clock(balls[0].at)) + waits;
  }
  for (const q of state.view.unsent) {
    const row = [...$("#board tbody").querySelectorAll("tr[data-row=marks]")].find((tr) => tr.dataset.player === q.name);
    const cell = row && row.querySelector(`td.marks[data-frame="${q.frame}"]`);
    if (!cell) continue;
    cell.classList.add("unsent");
    cell.title = t("unsent");
  }
  const c = state.conflict;
  $("#conflict").hidden = !c;
  if (!c) return;
  $("#conflict-text").textContent = conflictText();
  const n = after(c).length;
  $("#conflict-after").hidden = n === 0;
  $("#conflict-after").textContent = otherGame(c.ball) ? t("otherGameAfter", n) : t("conflictAfter", c.ball.name, n);
  $("#conflict-error").textContent = c.error ? c.error() : "";
  const p = b.players.find((x) => x.name === c.ball.name);
  $("#correct-it").hidden = !c.lane || !p || !mayCorrect(p);
  $("#correct-it").textContent = t("correctIt", ballText(c.ball));
  $("#correct-it").disabled = $("#keep-lane").disabled = !!state.flush;
}

// onKey bowls from the keyboard. A key that cannot be this ball says why.
function onKey(ev) {
  if (ev.target instanceof HTMLInputElement || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (document.querySelector("dialog[open]")) return; // the keys are the dialog's
  if (!enteringFor()) return;
  const k = keyRoll(ev.key, state.board.up.standing, freshRack(state.board));
  if (!k) return;
  ev.preventDefault();
  // A held key repeats: only its first press is a roll.
  if (ev.repeat) return;
  if (k.problem) {
    showError(k.problem);
    return;
  }
  roll(k);
}

// renderRemoved lists the players the host removed who are not on the
// board (removed before the first ball, or in an earlier game): the host
// may let each back from here; on the board, from the player's menu.
function renderRemoved(b) {
  const names = (b.removed || []).filter((n) => !b.players.some((p) => p.name === n));
  $("#removed-list").hidden = names.length === 0;
  const out = $("#removed-names");
  out.replaceChildren();
  names.forEach((n, i) => {
    if (i > 0) out.append(" ");
    if (!isHost()) {
      out.append(el("span", { text: n }));
      return;
    }
    out.append(el("button", { type: "button", text: t("readmitButton", n), onclick: () => send({ type: "readmit", name: n }) }));
  });
}

function render() {
  $("#play").hidden = state.closed && !state.kept;
  $("#closed").hidden = !state.closed || state.kept;
  $("#kept").hidden = !state.kept;
  const b = state.board;
  if (b && state.kept) return renderKept(b);
  if (!b || state.closed) return;
  const v = state.view;
  renderRemoved(b);
  $("#lane-name").textContent = b.name;
  $("#lane-name").title = b.name;
  const up = b.up ? b.players[b.up.seat] : null;
  const seated = !!state.seat && b.players.some((p) => p.name === state.seat && !p.left);
  if (!seated) state.seat = null;
  const host = isHost();
  $("#play").dataset.phase = b.phase;

  // Whose turn: said large, in the title, and by a buzz on the phone of
  // the one whose turn came.
  const mine = myTurn();
  v.turnCame = mine && !v.wasMine;
  v.wasMine = mine;
  if (v.turnCame && typeof navigator.vibrate === "function") navigator.vibrate([200, 100, 200]);
  document.title = mine ? t("titleYourTurn") : t("titleLane", b.name);
  renderBanner(b, mine);

  // After a rematch the next game waits, like the first, for the host.
  const next = !!b.series;
  // A lane that waits for its creator says so: nobody may start it, and
  // the creator's own page (it holds the host key) may give it away.
  const creator = !!b.creator_away && !seated && !!storedHostKey();
  const phase = {
    waiting: b.creator_away ? t(creator ? "phaseCreatorYou" : "phaseCreatorAway")
      : host ? t(next ? "phaseNextHost" : "phaseWaitingHost")
      : b.host ? t("phaseWaitingFor", b.host, next) : t("phaseWaiting"),
    playing: "",
    finished: t("phaseOver", seated && !host && b.host ? b.host : ""),
  }[b.phase];
  // A page that watches is one of the spectators: say so, rather than
  // count the visitor as a stranger.
  let watching = t("spectators", b.spectators);
  if (!seated && sock.has() && b.spectators > 0) watching = t("youWatching", b.spectators - 1);
  $("#phase").textContent = `${phase} ${watching}`.trim();

  // A friend who comes late joins while seats remain (the server says
  // lane_full otherwise), and bowls the frames they missed first; once
  // the game is over, the next one takes joins.
  $("#join-form").hidden = seated || b.phase === "finished";
  $("#join-late").hidden = b.phase !== "playing";
  if ($("#join-form").hidden) setFieldError("#join-name", "#join-error", "");
  $("#me").hidden = !seated && b.phase === "waiting";
  $("#me").textContent = seated ? t("youAre", state.seat) : t("youWatch");
  // Only the host may start and rematch: the others are told who can.
  $("#start").hidden = !(host && b.phase === "waiting");
  $("#give").hidden = !creator;
  $("#give").disabled = !!state.waiting.give;
  $("#start").disabled = !!state.waiting.start;
  $("#rematch").disabled = !!state.waiting.rematch;
  $("#skip").disabled = !!state.waiting.skip;
  $("#leave").disabled = !!state.waiting.leave;
  $("#rematch").hidden = !(host && b.phase === "finished");
  $("#new-invite-part").hidden = !host;
  $("#new-invite").disabled = !!state.waiting.new_invite;
  $("#leave").hidden = !seated;
  // The player up is offline: any other player may skip them once they
  // have been away long enough (the server says how long that is).
  const skippable = seated && b.phase === "playing" && up && up.name !== state.seat && !up.connected;
  $("#skip").hidden = !skippable;
  clearTimeout(v.skipTimer);
  if (skippable) {
    // Offered all along (the server says why a skip is early), with the
    // time left until it will count.
    const left = Math.ceil((v.skipAt - Date.now()) / 1000);
    $("#skip").textContent = t("skipButton", up.name, left);
    if (left > 0) v.skipTimer = setTimeout(render, 1000);
  }

  const who = enteringFor();
  renderPad(b, who, state.seat, !!who && !state.pending && !state.flush && !state.conflict, !!state.pending || !!state.flush);
  if (v.turnCame) focusPad();
  renderBoard(b);
  renderSeries(b);
  renderTeams(b);
  renderLog(b);
  renderOutbox(b);
  $("#correct-hint").hidden = !b.players.some((p) => p.frames.length > 0 && mayCorrect(p));
  $("#correct-hint").textContent = t("correctHint", host);
  renderCorrection();
  renderPlayerMenu();
}

// focusPad takes the keyboard's focus to the pad as the player's turn
// comes (the pins, which say what to tap), unless a dialog has it.
function focusPad() {
  if (document.querySelector("dialog[open]") || $("#pad").hidden) return;
  ($("#deck-pad").hidden ? $("#pins") : $("#pin-deck")).focus();
}

// focusBoard takes the keyboard's focus to the board once the page's
// player joined or started the game: not back to the top of the page.
// If it is their turn, to the pad.
function focusBoard() {
  if (document.querySelector("dialog[open]")) return;
  if (myTurn() && !$("#pad").hidden) return focusPad();
  $(".board-wrap").focus();
}

// renderBanner says, large enough to read across the lane, who is up,
// the frame and ball, and the pins standing; once the game is over, who
// won and the ranking.
function renderBanner(b, mine) {
  const up = upPlayer();
  const banner = $("#banner");
  banner.hidden = b.phase === "waiting";
  // My turn with no connection: the pad is off, and the banner says why.
  const offline = mine && !sock.connected();
  banner.className = "banner " + (up ? (mine ? (offline ? "offline" : "mine") : "other") : b.phase);
  $("#turn-detail").hidden = !up;
  // The pins standing, drawn only when the server knows which: after a
  // ball entered as a count, the detail line says how many, and no pins
  // are made up.
  $("#deck").hidden = !up || !Array.isArray(b.up.deck);
  $("#ranking").hidden = b.phase !== "finished";
  const highs = highsOf(b);
  $("#highs").hidden = highs.length === 0;
  $("#highs").replaceChildren(...highs.map((h) => el("li", { text: highText(h) })));
  if (up) {
    $("#turn").textContent = offline ? t("yourTurnOffline", up.name) : mine ? t("yourTurn", up.name) : t("isUp", up.name, up.connected);
    $("#turn-detail").textContent = t("turnDetail", b.up.frame, b.up.ball, b.up.standing);
    const deck = Array.isArray(b.up.deck) ? b.up.deck : [];
    for (const pin of $("#deck").querySelectorAll("i")) {
      pin.classList.toggle("down", !deck.includes(Number(pin.dataset.pin)));
    }
  } else if (b.phase === "finished") {
    $("#turn").textContent = result(b);
    $("#ranking").replaceChildren(...rankingItems(b));
  } else {
    $("#turn").textContent = "";
  }
}

// The board is the seeds-style table everywhere. On a narrow screen the
// name column and the total stay put (sticky) while the frames between
// them scroll, if they must, to the frame in play: a name and its total
// are always seen together.
function renderBoard(b) {
  $("#board thead").replaceChildren(boardHead());
  $("#board tbody").replaceChildren(...boardRows(b, {
    seat: state.seat, host: isHost(), mayCorrect, onName: openPlayerMenu, onFrame: openCorrection,
  }));
  showFrame(b);
}

// showFrame scrolls the frames, when they do not all fit, to the one in
// play (the tenth once the game is over); only when that frame changes,
// so as not to fight a finger scrolling the board.
function showFrame(b) {
  const frame = b.phase === "playing" && b.up ? b.up.frame : b.phase === "finished" ? 10 : 1;
  const wrap = $(".board-wrap");
  const key = `${b.phase} ${frame} ${wrap.clientWidth}`;
  if (state.view.scrolledTo === key) return;
  state.view.scrolledTo = key;
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
  if (shown === state.view.logShown) return;
  state.view.logShown = shown;
  $("#log").replaceChildren(...log.map((text) => el("li", { text })));
}

// renderTeams shows a league night's two teams: the game in play's
// scratch and total with handicap, and the points won tonight.
function renderTeams(b) {
  const teams = b.teams || [];
  $("#teams").hidden = teams.length === 0;
  $("#teams-table tbody").replaceChildren(...teams.map((tm) => el("tr", { "data-team": tm.name },
    el("th", { scope: "row", text: tm.name }),
    el("td", { class: "scratch", text: String(tm.scratch) }),
    el("td", { class: "total", text: String(tm.total) }),
    el("td", { class: "points", text: t("points", tm.points) }))));
  // Tonight's games, game by game, as the league counted them.
  const games = teams.length ? Math.max(...teams.map((tm) => (tm.games || []).length)) : 0;
  $("#team-games").hidden = games === 0;
  $("#team-games thead tr").replaceChildren(el("th", { scope: "col", text: t("colTeam") }),
    ...Array.from({ length: games }, (_, g) => el("th", { scope: "col", text: t("gameN", g + 1) })));
  $("#team-games tbody").replaceChildren(...teams.map((tm) => el("tr", { "data-team": tm.name },
    el("th", { scope: "row", text: tm.name }),
    ...Array.from({ length: games }, (_, g) => el("td", { text: tm.games && g < tm.games.length ? String(tm.games[g]) : "" })))));
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

// relabel says the lane again in the page's language of the moment.
function relabel() {
  relabelConn();
  $("#notices").replaceChildren(...news.map((line) => el("li", { text: line() })));
  $("#lane-error").textContent = laneError();
  $("#new-invite-done").textContent = inviteDone();
  renderInvite();
  if ($("#join-name").getAttribute("aria-invalid")) $("#join-error").textContent = joinError();
  state.view.logShown = "";
  if (state.closed && !state.kept) document.title = t("titleClosed");
  render();
  numbers.render();
}

// ---------------------------------------------------------------- start

applyStatic();
startWorker();
confirmPendingKeys(true); // a bowler made while this page was closed
const m = location.pathname.match(/^\/lanes\/([^/]+)$/);
if (m) {
  startLane(decodeURIComponent(m[1]));
  langSwitch(relabel);
} else {
  startLobby();
  langSwitch(() => { relabelConn(); relabelLobby(); });
}
