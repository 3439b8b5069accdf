// The TV view: a lane's live board on a screen above it ("/lanes/{id}/tv"),
// or up to four lanes on a house screen ("/tv?lanes=a,b,c,d"). It only
// watches: it never joins, has nothing to press, and reconnects on its
// own for as long as it is shown. It draws the board with board.js's pure
// functions and connects with socket.js, as the lane's page does.
// "?lang=ko" or "?lang=en" picks its language; otherwise the browser's.
// "/tv?league={id}" shows a league's standings, beside the lanes if
// "&lanes=" names some (league-tv.js).
import { el } from "./dom.js";
import { t, applyStatic, setLang, num, pct } from "./i18n.js";
import { createSocket } from "./socket.js";
import { boardHead, boardRows, result, calls, highsOf, highText } from "./board.js";
import { leaguePanel } from "./league-tv.js";
import { fitName } from "./fit.js";
import { qrImage, validInvite } from "./invite.js";

// maxLanes is the most lanes a house screen shows: four quarters of a
// screen still read from the approach.
const maxLanes = 4;

// callFor is how long a call-out stays up, in ms (its animation's length).
const callFor = 2400;

// arriveFor is how long a game's end takes to arrive, in ms: the
// longest of its animations (the winner's, three times a second after
// the panel's).
const arriveFor = 4000;

const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

// watcher is how the board looks to the TV: nobody's seat, nothing to
// correct or open.
const watcher = { seat: null, host: false, mayCorrect: () => false, onName() {}, onFrame() {} };

// lanePanel builds one lane's panel and connects it; it returns the
// panel's element. With the lane's invitation (a lane's own TV, opened by
// a link with "#invite=") its QR code seats whoever scans it; without,
// it lets them watch.
function lanePanel(id, single, invite = "") {
  const heading = single ? "h1" : "h2";
  const name = el(heading, { class: "tv-name", id: "tv-name-" + id });
  const phase = el("p", { class: "tv-phase" });
  const up = el("p", { class: "tv-up" });
  const ball = el("p", { class: "tv-ball" });
  const conn = el("p", { class: "tv-conn", role: "status" });
  // While the server is away the board stays as it was last, marked as
  // such: a screen above a lane never goes blank.
  const away = el("p", { class: "tv-badge", text: t("tvReconnecting"), hidden: true });
  const table = el("table", { class: "tv-board", "aria-label": t("scoreboard") },
    el("thead", {}, boardHead()), el("tbody"));
  const deck = el("div", { class: "tv-deck", "aria-hidden": "true", hidden: true });
  for (const row of [[7, 8, 9, 10], [4, 5, 6], [2, 3], [1]]) {
    deck.append(el("span", { class: "row" }, ...row.map((n) => el("i", { "data-pin": String(n) }))));
  }
  const call = el("p", { class: "tv-call", hidden: true });
  const qr = el("img", { class: "tv-qr", alt: t(invite ? "tvQRAlt" : "tvQRAltWatch"), hidden: true, width: 256, height: 256, "data-invite": String(!!invite) });
  const scan = el("p", { class: "tv-scan", text: t(invite ? "tvScan" : "tvScanWatch"), hidden: true });
  qr.onload = () => { qr.hidden = panel.classList.contains("missing"); scan.hidden = qr.hidden; };
  qr.onerror = () => { qr.hidden = true; scan.hidden = true; };
  const qrPath = "/api/lanes/" + encodeURIComponent(id) + "/qr.png";
  if (invite) qrImage(qrPath, invite).then((src) => { if (src) qr.src = src; });
  else qr.src = qrPath;
  const end = gameEnd(id, single ? "h2" : "h3");
  const missing = el("p", { class: "tv-missing", hidden: true });
  const panel = el("section", { class: "tv-lane", "data-lane": id, "aria-labelledby": name.id },
    el("div", { class: "tv-inner" },
      el("div", { class: "tv-head" }, name, phase, up, ball, away, conn),
      el("div", { class: "tv-board-side" }, table),
      end.element, missing,
      el("div", { class: "tv-side" }, deck, qr, scan),
      call));

  let board = null;
  let callTimer = 0;

  function render(b, before) {
    name.replaceChildren(el("span", { class: "fit", text: b.name }));
    if (single) document.title = t("titleLane", b.name);
    panel.style.setProperty("--n", String(Math.max(3, b.players.length)));
    const upP = b.phase === "playing" && b.up ? b.players[b.up.seat] : null;
    const over = b.phase === "finished";
    // A league night: the two teams' totals with handicap, and points.
    const teams = (b.teams || []).map((tm) => t("tvTeam", tm.name, tm.total, tm.points)).join("  ·  ");
    const said = teams || (b.phase === "waiting" ? t("phaseWaiting") : "");
    phase.replaceChildren(...(said ? [el("span", { class: "fit", text: said })] : []));
    phase.classList.toggle("teams", !!teams);
    table.tBodies[0].replaceChildren(...boardRows(b, watcher));
    if (upP) {
      const cell = table.querySelector(`tbody tr.up[data-row=marks] td.marks[data-frame="${b.up.frame}"]`);
      if (cell) cell.classList.add("ball-up");
    }
    up.replaceChildren(...(upP ? [el("span", { class: "fit", text: t("isUp", upP.name, upP.connected) })] : []));
    ball.textContent = upP ? t("turnDetail", b.up.frame, b.up.ball, b.up.standing) : "";
    // The pins standing, drawn only when the server says which: after a
    // ball entered as a count none are made up.
    const pins = upP && Array.isArray(b.up.deck) ? b.up.deck : null;
    deck.hidden = !pins;
    for (const pin of deck.querySelectorAll("i")) {
      pin.classList.toggle("down", !pins || !pins.includes(Number(pin.dataset.pin)));
    }
    // A game's end is an event: it arrives (unless the viewers asked for
    // less motion) when the game ends before the screen's eyes, and is
    // simply there for a screen that comes to a game already over.
    panel.classList.toggle("over", over);
    if (over) {
      clearTimeout(callTimer);
      call.hidden = true;
    }
    end.show(over ? b : null, over && !!before && before.phase !== "finished" && !reduceMotion.matches);
    fitNames();
  }

  // fitNames fits the names shown to their cells, to be read whole,
  // never cut (fit.js): the bowlers' on the board and at the game's end
  // on two lines at most, who is up on one, the head's height being the
  // board's to keep, and the lane's and the teams' in the head.
  function fitNames() {
    for (const who of table.querySelectorAll("th.name .who")) fitName(who.parentElement, who);
    for (const who of end.element.querySelectorAll("tbody th.who")) fitName(who, who.firstElementChild);
    if (up.firstElementChild) fitName(up, up.firstElementChild, 1);
    // The lane's name and a league night's teams: in the head, whose
    // height is the board's to keep, so on two lines only as small.
    for (const head of [name, phase]) {
      if (head.firstElementChild) fitName(head, head.firstElementChild);
    }
  }
  new ResizeObserver(fitNames).observe(panel);

  // callOut shows a strike, spare or split for a moment; never for a
  // screen whose viewers asked for less motion.
  function callOut(c) {
    panel.dataset.called = c.call;
    if (reduceMotion.matches) return;
    call.replaceChildren(el("span", { class: "who", text: c.name }), el("br"),
      t({ strike: "callStrike", spare: "callSpare", split: "callSplit" }[c.call]));
    call.hidden = false;
    // A new call starts its animation again.
    call.style.animation = "none";
    void call.offsetWidth;
    call.style.animation = "";
    clearTimeout(callTimer);
    callTimer = setTimeout(() => { call.hidden = true; }, callFor);
  }

  const sock = createSocket(id, {
    status(say, ok) {
      conn.textContent = ok ? "" : say();
      away.hidden = ok || !board || panel.classList.contains("closed");
      panel.classList.toggle("away", !away.hidden);
    },
    open() {}, // a spectator: nothing to resume
    message(msg) {
      if (msg.type === "board") {
        sock.taken();
        const before = board;
        board = msg;
        render(msg, before);
        // The ball that ends a game is called by the game's end.
        const cs = before && msg.phase !== "finished" ? calls(before, msg) : [];
        if (cs.length) callOut(cs[cs.length - 1]);
        return;
      }
      if (msg.type !== "error") return;
      if ((msg.code === "spectators_full" || msg.code === "rate_limited") && !msg.ref) sock.turnedAway(msg.code);
      else if (msg.code === "server_restarting") sock.restarting();
      else if (msg.code === "lane_closed" || msg.code === "lane_idle") closed();
    },
    closed() {},
    // A lane the server does not have: one this screen showed has
    // closed; one it never had is not there, and the screen says so.
    gone() {
      if (board) closed();
      else missingLane();
    },
    // A lane that closed and whose night is kept: its last board.
    kept(b) {
      board = b;
      render(b, null);
      closed();
    },
    visited() {},
    token: () => "", // no seat to take along
    invite: () => invite, // but its QR code's invitation
  });

  function closed() {
    sock.stop();
    panel.classList.add("closed");
    panel.classList.remove("away");
    away.hidden = true;
    conn.textContent = t("connClosed");
    up.textContent = "";
    ball.textContent = "";
    deck.hidden = true;
  }

  function missingLane() {
    sock.stop();
    panel.classList.add("missing");
    name.textContent = t("tvNoSuchLane");
    if (single) document.title = t("titleLane", t("tvNoSuchLane"));
    missing.textContent = t("tvNoSuchLaneWhy", id);
    missing.hidden = false;
    conn.textContent = "";
    qr.hidden = true;
    scan.hidden = true;
  }

  sock.visit();
  return panel;
}

// gameEnd is a lane's panel at the end of a game: who won, every
// bowler's score, and the night's numbers (GET /api/lanes/{id}/stats,
// asked once a game's end). show(b, arrive) shows the end of board b
// (or hides it, for null); arrive makes it arrive as an event.
function gameEnd(id, heading) {
  const titleID = "tv-end-" + id;
  const title = el(heading, { class: "tv-end-title", id: titleID });
  const highs = el("p", { class: "tv-end-highs" });
  const body = el("tbody");
  const element = el("section", { class: "tv-end", "aria-labelledby": titleID, hidden: true },
    el("p", { class: "tv-end-kicker", text: t("gameOverShort") }),
    title, highs,
    el("table", { class: "tv-end-table" },
      el("thead", {},
        el("tr", { class: "group" },
          el("td", { colSpan: 3 }),
          el("th", { scope: "colgroup", colSpan: 5, class: "night", text: t("statsTitle") })),
        el("tr", {},
          el("th", { scope: "col", class: "place", text: t("tvPlace") }),
          el("th", { scope: "col", class: "who", text: t("colPlayer") }),
          el("th", { scope: "col", class: "game", text: t("tvThisGame") }),
          ...["statGames", "statAverage", "statHigh", "statStrikes", "statSpares"].map((k) =>
            el("th", { scope: "col", class: "night", "data-stat": k, text: t(k) })))),
      body));

  let shown = null; // the board shown
  let stats = null; // the night's numbers, for the game's end asked of
  let statsFor = ""; // which game's end they were asked for
  let asking = false;
  let rowsOf = ""; // the bowlers and scores the rows show
  let arrived = 0; // the timer that ends the arrival

  // draw draws the end of the board shown: its rows are made again only
  // when its bowlers or scores changed (a row made again would arrive
  // again), and the night's numbers go in as they come.
  function draw() {
    const b = shown;
    title.textContent = result(b);
    highs.textContent = highsOf(b).map(highText).join(" · ");
    const still = b.players.filter((p) => !p.left).sort((p, q) => q.total - p.total || p.name.localeCompare(q.name));
    const order = [...still, ...b.players.filter((p) => p.left)];
    const key = JSON.stringify(order.map((p) => [p.name, p.total, !!p.left]));
    if (key !== rowsOf) {
      rowsOf = key;
      const top = still.length ? still[0].total : null;
      body.replaceChildren(...order.map((p, i) => {
        const place = p.left ? "—" : t("ordinal", still.findIndex((q) => q.total === p.total) + 1);
        const row = el("tr", { "data-player": p.name, class: p.left ? "left" : p.total === top ? "winner" : "" },
          el("td", { class: "place", text: place }),
          el("th", { scope: "row", class: "who" }, el("span", { class: "fit", text: p.name })),
          el("td", { class: "game", text: num(p.total) }),
          ...[1, 2, 3, 4, 5].map(() => el("td", { class: "night" })));
        row.style.setProperty("--i", String(i));
        return row;
      }));
    }
    for (const row of body.rows) {
      const s = stats && Array.isArray(stats.players) ? stats.players.find((q) => q.name === row.dataset.player) : null;
      const figures = s ? [num(s.games), typeof s.average === "number" ? num(s.average, 1) : "—", s.games ? num(s.high) : "—",
        pct(s.strikes, s.strike_chances), pct(s.spares, s.spare_chances)] : ["", "", "", "", ""];
      [...row.querySelectorAll("td.night")].forEach((td, i) => { td.textContent = figures[i]; });
    }
    element.dataset.numbers = stats ? "shown" : "asked";
  }

  // ask asks for the night's numbers once a game's end: the series its
  // board carries names it.
  async function ask(b) {
    const key = JSON.stringify(b.series || []);
    if (statsFor === key || asking) return;
    statsFor = key;
    stats = null;
    asking = true;
    try {
      const res = await fetch("/api/lanes/" + encodeURIComponent(id) + "/stats", { cache: "no-store" });
      if (!res.ok) throw new Error(res.statusText);
      const body = await res.json();
      if (statsFor === key) stats = body;
    } catch {
      statsFor = ""; // the next board asks again
    }
    asking = false;
    if (shown) draw();
  }

  return {
    element,
    show(b, arrive) {
      shown = b;
      element.hidden = !b;
      if (!b) {
        element.classList.remove("arrive");
        rowsOf = "";
        return;
      }
      if (arrive) {
        // Once arrived it stays as it is: rows drawn again later do not
        // arrive again.
        rowsOf = "";
        element.classList.add("arrive");
        clearTimeout(arrived);
        arrived = setTimeout(() => element.classList.remove("arrive"), arriveFor);
      }
      draw();
      ask(b);
    },
  };
}

// lanesOf is the lanes the address names: "/lanes/{id}/tv", or up to
// maxLanes in "/tv?lanes=a,b,c".
function lanesOf() {
  const m = location.pathname.match(/^\/lanes\/([^/]+)\/tv$/);
  if (m) return [decodeURIComponent(m[1])];
  const ids = (new URLSearchParams(location.search).get("lanes") || "").split(",").map((s) => s.trim()).filter(Boolean);
  return [...new Set(ids)].slice(0, maxLanes);
}

const params = new URLSearchParams(location.search);
if (params.get("lang")) setLang(params.get("lang"));
applyStatic();
const single = /\/tv$/.test(location.pathname) && location.pathname !== "/tv";
const league = single ? "" : (params.get("league") || "").trim();
// A league's standings take one of the screen's quarters.
const ids = lanesOf().slice(0, league ? maxLanes - 1 : maxLanes);
const grid = document.getElementById("tv");
grid.dataset.lanes = String(Math.max(1, ids.length + (league ? 1 : 0)));
if (!single) {
  document.title = t("tvHouseTitle");
  // Inside the main landmark; placed absolutely, it takes no quarter.
  grid.prepend(el("h1", { class: "visually-hidden", text: t("tvHouseTitle") }));
}
if (league) grid.append(leaguePanel(league));
if (ids.length === 0 && !league) {
  grid.append(el("p", { class: "tv-none", text: t("tvNoLanes") }));
} else {
  // A lane's own TV may carry the lane's invitation in its fragment
  // (the lane page's TV link, for the host's screen): kept in the address,
  // as a screen above the lane reloads by itself and has no one to type
  // it again; a house screen's lanes show the QR codes to watch.
  const code = single ? (new URLSearchParams(location.hash.slice(1)).get("invite") || "").trim().toUpperCase() : "";
  grid.append(...ids.map((id) => lanePanel(id, single, validInvite(code) ? code : "")));
}
