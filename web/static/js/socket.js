// The lane's connection: visit (is the lane there?), connect, reconnect
// with capped backoff on the page's own address for as long as it takes,
// move to another node of the cluster only once that node has answered
// the page, and send. It keeps
// only what the connection needs; the lane's state is main's, told
// through hooks:
//
//	status(say, ok)    what to show as the connection's state: say() says it
//	open()             the socket opened (resume now)
//	message(msg)       a message of the server's
//	closed(ev)         the socket closed (answers in flight are lost)
//	gone()             the lane does not exist (any more)
//	kept(board)        the lane has closed, and its night is kept: its last board, read-only
//	token()            the seat's token to take along to another node
import { t } from "./i18n.js";

// moveAfter is how many visits in a row must find this page's node down
// before the page looks for another node: two (the second about 1.2 s
// after the socket dropped) when the node went without a word, as a
// crash does, so that the page is on another node within 2 s of the
// death; four (about 4 s of backoff) when it said it was restarting (a
// close going away, 1001), as a node that restarts is back sooner.
const moveAfter = 2;
const moveAfterRestart = 4;

// backoffCap is the longest the page waits between two visits, in ms,
// when the server turned it away (all the watchers it takes, or too many
// connections from its network): it is up, and asked to be let be.
const backoffCap = 15000;

// downCap is the longest it waits while the server does not answer, or
// is restarting: a visit is one small request, and a page must be back
// within 2 s of its server, however long the server was down.
const downCap = 2000;

// probeTimeout bounds the page's question to another node, in ms: an
// address the browser cannot reach may not even refuse.
const probeTimeout = 3000;

export function createSocket(laneID, hooks) {
  const conn = {
    ws: null,
    retry: 0,
    // The other nodes of the server's cluster, as the server last said
    // (GET /api/nodes): their addresses, best first each. When this
    // page's own node stops answering, the page moves to the next.
    nodes: [],
    unreachable: 0, // visits in a row that found this page's node down
    timer: 0, // the pending reconnect, if any
    tick: 0, // the countdown to it, said every second
    waited: 0, // the backoff waited (planned) since the page last had the lane, in ms
    restarting: false, // the server said it is restarting: it will be back
    stopped: false, // the lane is gone for good, or the page is leaving: no reconnecting
    hidden: false, // the page was left (it may be in the back/forward cache): no reconnecting
    turnedAway: "", // why the server is about to close with 1013: spectators_full or rate_limited
    nextID: 1,
  };

  // visit asks the lobby whether the lane still exists before opening its
  // socket: a socket to a lane that is gone fails just as one to a server
  // that is down does, and only the lobby's 404 tells the two apart. Gone:
  // say so. A network error or a 5xx: the server may be restarting, so
  // try again later. Otherwise connect.
  async function visit() {
    conn.timer = 0;
    clearInterval(conn.tick);
    hooks.status(() => conn.restarting ? t("connRestarting") : t("connConnecting"), false);
    let res = null;
    try {
      res = await fetch("/api/lanes/" + encodeURIComponent(laneID), { cache: "no-store" });
    } catch {
      // res stays null: the network or the server is down
    }
    const kept = res && res.ok ? await closedBoard(res) : null;
    if (res && res.status === 404 && (await errorCode(res)) === "lane_not_found") {
      hooks.gone();
    } else if (kept) {
      // The lane has closed, and its night is kept: nothing to connect to.
      conn.stopped = true;
      hooks.kept(kept);
    } else if (res && res.ok) {
      conn.unreachable = 0;
      conn.waited = 0;
      connect();
      hooks.visited();
      nodes();
    } else if (!res && ++conn.unreachable >= (conn.restarting ? moveAfterRestart : moveAfter) && conn.nodes.length && await moveNode()) {
      // Only a node that does not answer at all is left: one that answers
      // 503 is up, and busy taking the lane over or waiting for its store.
      hooks.status(() => t("connMoving"), false);
    } else if (conn.stopped || conn.hidden) {
      // left while asking: nothing to retry
    } else {
      reconnectLater(conn.restarting ? "whyRestarting" : "whyUnreachable");
    }
  }

  // nodes asks which other nodes the server's cluster has, for the page
  // to move to if this one goes down.
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
      conn.nodes = others.slice(at).concat(others.slice(0, at));
    } catch {
      // keep what the server said last
    }
  }

  // moveNode opens the page on the first node of those the cluster had
  // (alive when the page last asked) that answers the page now: an
  // address the browser cannot reach (localhost for another device, a
  // network address the browser is not on) is never navigated to, and
  // the page keeps trying its own. It takes the seat's token along in the
  // fragment, which is never sent to a server: a page's storage is its
  // own address's. It reports whether the page is leaving.
  async function moveNode() {
    hooks.status(() => t("connProbing"), false);
    for (const next of conn.nodes) {
      if (!(await answers(next)) || conn.stopped || conn.hidden) continue;
      conn.stopped = true; // this page stops reconnecting: it is leaving
      clearTimeout(conn.timer);
      const frag = new URLSearchParams();
      const token = hooks.token();
      if (token) frag.set("token", token);
      const invite = hooks.invite ? hooks.invite() : "";
      if (invite) frag.set("invite", invite);
      location.replace(new URL(location.pathname + location.search, next).href + (String(frag) ? "#" + frag : ""));
      return true;
    }
    return false;
  }

  // answers reports whether the node at origin answers this page: its
  // /healthz, which answers any origin (and the page's
  // Content-Security-Policy lets it ask no other path of another node).
  async function answers(origin) {
    try {
      const res = await fetch(new URL("/healthz", origin), { mode: "cors", cache: "no-store", credentials: "omit", signal: AbortSignal.timeout(probeTimeout) });
      return res.ok;
    } catch {
      return false;
    }
  }

  // reconnectLater backs off — 0.5 s, 1 s, 2 s … up to backoffCap, less
  // up to a quarter at random, so that the pages of a server that comes
  // back do not all come at once — then visits the lane again, for as
  // long as it takes; why is the key of the reason. Until then the status
  // counts down the seconds to the next try.
  function reconnectLater(why, cap = downCap) {
    const delay = Math.min(cap, 500 * 2 ** conn.retry) * (0.75 + Math.random() / 4);
    conn.retry++;
    conn.waited += delay;
    const at = Date.now() + delay;
    const say = () => t("reconnectingIn", t(why), Math.max(1, Math.ceil((at - Date.now()) / 1000)));
    hooks.status(say, false);
    clearInterval(conn.tick);
    conn.tick = setInterval(() => hooks.status(say, false), 1000);
    clearTimeout(conn.timer);
    conn.timer = setTimeout(visit, delay);
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/lanes/${encodeURIComponent(laneID)}`);
    conn.ws = ws;
    ws.onopen = () => {
      // The backoff starts again only once the lane has taken this socket
      // (its first board): a socket it turns away opens first too.
      conn.restarting = false;
      hooks.status(() => t("connConnected"), true);
      hooks.open();
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      hooks.message(msg);
    };
    ws.onclose = (ev) => {
      conn.ws = null;
      if (conn.stopped || conn.hidden) return;
      hooks.closed(ev);
      // Everything is retried, with backoff: a dropped network, a server
      // going away to restart (1001), a lane that failed (1011), a lane
      // that has all the watchers it takes (1013: try again later; a
      // seat's resume always gets in). visit tells a lane that is gone
      // from a server that is down.
      if (ev.code === 1001) conn.restarting = true;
      if (ev.code === 1013) {
        reconnectLater(conn.turnedAway === "rate_limited" ? "whyRateLimited" : "whyWatchers", backoffCap);
        conn.turnedAway = "";
        return;
      }
      reconnectLater(conn.restarting ? "whyRestarting" : "whyDisconnected");
    };
  }

  return {
    visit,
    nodes,
    // waiting reports whether a visit is planned: the page is down.
    waiting: () => !!conn.timer,
    // retryNow visits at once, rather than when the backoff says ("Try
    // now").
    retryNow() {
      if (!conn.timer || conn.stopped || conn.hidden) return;
      clearTimeout(conn.timer);
      clearInterval(conn.tick);
      visit();
    },
    // connected reports whether a socket is open to send on.
    connected: () => !!conn.ws && conn.ws.readyState === WebSocket.OPEN,
    // has reports whether the page has a socket at all (open or not).
    has: () => !!conn.ws,
    // send sends a message with a fresh id and returns the id, or "" when
    // there is no connection to send it on.
    send(msg) {
      if (!conn.ws || conn.ws.readyState !== WebSocket.OPEN) return "";
      msg.id = String(conn.nextID++);
      conn.ws.send(JSON.stringify(msg));
      return msg.id;
    },
    // taken: the lane took this socket (its first board, or a welcome).
    taken() { conn.retry = 0; },
    restarting() { conn.restarting = true; },
    turnedAway(code) { conn.turnedAway = code; },
    // close closes the socket (it reconnects, unless stopped).
    close(code, why) { if (conn.ws) conn.ws.close(code, why); },
    // stop stops for good: the lane is gone.
    stop() {
      conn.stopped = true;
      clearTimeout(conn.timer);
      clearInterval(conn.tick);
      if (conn.ws) conn.ws.close();
    },
    // hide closes the socket as the page is left; nothing of it may
    // arrive once the page is back.
    hide() {
      conn.hidden = true;
      clearTimeout(conn.timer);
      clearInterval(conn.tick);
      const ws = conn.ws;
      if (!ws) return;
      ws.onclose = ws.onmessage = null;
      ws.close(1000, "page hidden");
      conn.ws = null;
    },
    // show connects again as the page is shown from the cache.
    show() {
      conn.hidden = false;
      conn.retry = 0;
      visit();
    },
    live: () => !conn.stopped && !conn.hidden && !!conn.ws,
    // knownNodes is the other nodes the page would move to, in order.
    knownNodes: () => conn.nodes.slice(),
    // backoff is how the reconnecting goes: the tries in a row and the
    // time waited (planned) since the page last had the lane, in ms.
    backoff: () => ({ tries: conn.retry, waited: conn.waited, unreachable: conn.unreachable }),
  };
}

// closedBoard is the board a lane's answer carries if the lane has closed
// and its night is kept (closed_at is set), else null.
async function closedBoard(res) {
  try {
    const b = await res.json();
    return b && b.closed_at ? b : null;
  } catch {
    return null;
  }
}

// errorCode is the code of an API error's body, or "" if it has none (a
// 404 from a proxy in front of the server says nothing about the lane).
export async function errorCode(res) {
  try { return (await res.json()).code || ""; } catch { return ""; }
}
