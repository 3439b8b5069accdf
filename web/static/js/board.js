// The board as pure functions of a board message (and of who looks at
// it): its rows, the result, the ranking, the roll log and what changed
// from one board to the next. Nothing here reads or keeps state.
import { el } from "./dom.js";
import { t, list } from "./i18n.js";

// best is the highest total of the players still in the game, or null.
export function best(b) {
  const still = b.players.filter((p) => !p.left);
  return still.length ? Math.max(...still.map((p) => p.total)) : null;
}

// result says who won: "CCC wins with 300", "CAT, DOG and EEL tie with
// 300", or for a player alone "AAA scored 136".
export function result(b) {
  const still = b.players.filter((p) => !p.left);
  const top = best(b);
  if (top === null) return t("gameOverShort");
  const names = still.filter((p) => p.total === top).map((p) => p.name).sort();
  if (still.length === 1) return t("scored", names[0], top);
  return names.length > 1 ? t("tie", list(names), top) : t("wins", names[0], top);
}

// rankingItems lists the players by total, ties sharing a place; those
// who left the game come last, without one.
export function rankingItems(b) {
  const still = b.players.filter((p) => !p.left).sort((p, q) => q.total - p.total || p.name.localeCompare(q.name));
  const items = still.map((p) => {
    const place = still.findIndex((q) => q.total === p.total) + 1;
    return el("li", { "data-player": p.name, class: place === 1 ? "winner" : "" },
      el("span", { class: "place", text: t("ordinal", place) }), " ",
      el("span", { class: "who", text: p.name }), " ",
      el("span", { class: "total", text: String(p.total) }));
  });
  for (const p of b.players.filter((q) => q.left)) {
    items.push(el("li", { "data-player": p.name, class: "left" },
      el("span", { class: "place", text: "—" }), " ",
      el("span", { class: "who", text: p.name }), " ",
      el("span", { class: "total", text: t("totalLeft", p.total, !!p.removed) })));
  }
  return items;
}

// marksNode draws a frame's marks as the server writes them ("8|1",
// "(8)|1" for a split, "F|/" for a foul): the text stays the marks, and
// a split's count is circled as lane scoring does (its parentheses are
// kept in the text but not drawn).
export function marksNode(marks) {
  const frag = document.createDocumentFragment();
  for (const part of marks.split(/(\(\d+\))/)) {
    if (!part) continue;
    const m = part.match(/^\((\d+)\)$/);
    if (m) {
      frag.append(el("span", { class: "split", title: t("splitTitle") },
        el("span", { class: "paren", text: "(" }), m[1], el("span", { class: "paren", text: ")" })));
    } else {
      frag.append(part);
    }
  }
  return frag;
}

// boardHead is the board's header row.
export function boardHead() {
  const head = el("tr", {}, el("th", { scope: "col", class: "name", text: t("colName") }));
  for (let f = 1; f <= 10; f++) head.append(el("th", { scope: "col", "data-frame": String(f), text: String(f).padStart(2, "0") }));
  head.append(el("th", { scope: "col", class: "total", text: t("colTotal") }));
  return head;
}

// boardRows is the board's two rows per player (marks, then running
// scores). view says who looks: seat (their name), host (whether they
// are), mayCorrect(p), and what a tap on a name or a frame opens.
export function boardRows(b, view) {
  const rows = [];
  const top = b.phase === "finished" ? best(b) : null;
  b.players.forEach((p, seat) => {
    const isUp = b.phase === "playing" && b.up && b.up.seat === seat;
    const won = top !== null && !p.left && p.total === top;
    const cls = [isUp ? "up" : "", p.left ? "left" : "", p.away ? "away" : "", won ? "winner" : ""].join(" ").trim();
    // The host's menu for another player (remove; readmit, once
    // removed; free the seat, once left) opens from their name.
    const menu = view.host && p.name !== view.seat;
    const name = menu
      ? el("button", { type: "button", class: "name", text: p.name, title: t("optionsFor", p.name),
        onclick: () => view.onName(p.name) })
      : el("span", { class: "who", text: p.name });
    const nameCell = el("th", { scope: "row", class: "name", rowSpan: 2 }, name);
    if (name.tagName === "BUTTON") name.setAttribute("aria-haspopup", "dialog");
    // Every status has a short form for a narrow screen (the long one is
    // then read to screen readers only).
    const status = (cl, long, short, title) => {
      nameCell.append(el("span", { class: cl, text: long, title }),
        el("span", { class: "short", text: short, title, "aria-hidden": "true" }));
    };
    if (p.name === b.host) nameCell.append(" ", el("span", { class: "badge", text: t("badgeHost"), title: t("badgeHostTitle") }));
    if (won) nameCell.append(" ", el("span", { class: "badge win", text: t("badgeWinner") }));
    if (p.removed) status("status removed", t("statusRemoved"), t("statusRemovedShort"), t("statusRemovedTitle"));
    else if (p.left) status("status", t("statusLeft"), t("statusLeftShort"), t("statusLeftTitle"));
    else if (p.away) status("away", t("statusAway"), t("statusAwayShort"), t("statusAwayTitle"));
    else if (!p.connected) status("offline", t("statusOffline"), t("statusOfflineShort"), t("statusOfflineTitle"));
    if (p.late) nameCell.append(" ", el("span", { class: "late", text: t("late"), title: t("lateTitle") }));
    if (typeof p.average === "number") nameCell.append(" ", el("span", { class: "avg", text: t("averageShort", p.average), title: t("averageTitle", p.name, p.average) }));
    // A league night: the player's team, and the handicap their games get.
    if (p.team) nameCell.append(" ", el("span", { class: "team", text: p.team }));
    if (typeof p.handicap === "number") nameCell.append(" ", el("span", { class: "hcp", text: t("handicapShort", p.handicap), title: t("handicapTitle", p.name, p.handicap) }));
    if (isUp) nameCell.setAttribute("aria-current", "true");
    const marks = el("tr", { class: cls, "data-player": p.name, "data-row": "marks" }, nameCell);
    const scores = el("tr", { class: cls, "data-player": p.name, "data-row": "scores" });
    const correctable = view.mayCorrect(p);
    for (let f = 0; f < 10; f++) {
      const fr = p.frames[f];
      const cell = el("td", { class: "marks", "data-frame": String(f + 1) });
      if (fr && fr.corrected) {
        cell.classList.add("corrected");
        cell.title = t("corrected");
      }
      if (fr && fr.split) cell.classList.add("has-split");
      if (fr && correctable && fr.rolls.length > 0) {
        // A frame one may correct is a button: tap it to pick the ball. Its
        // name says the marks it shows too, as drawn (a split's count
        // without the parentheses it is not drawn with), for those who
        // speak to their device what they see.
        const btn = el("button", { type: "button", class: "frame", onclick: () => view.onFrame(p.name, f + 1) }, marksNode(fr.marks));
        btn.setAttribute("aria-label", t("correctFrameLabel", p.name === view.seat ? "" : p.name, f + 1, ballMarks(fr).join("|"), frameBalls(fr), !!fr.corrected));
        btn.setAttribute("aria-haspopup", "dialog");
        cell.append(btn);
      } else if (fr) {
        cell.append(marksNode(fr.marks));
        cell.setAttribute("aria-label", frameLabel(fr, f + 1));
      }
      marks.append(cell);
      scores.append(el("td", { class: "score", "data-frame": String(f + 1),
        text: fr && fr.score !== null ? String(fr.score) : "" }));
    }
    marks.append(el("td", { class: "total", rowSpan: 2, text: String(p.total) }));
    rows.push(marks, scores);
  });
  return rows;
}

// frameLabel is what a frame is read out as: "frame 3: 7 then spare,
// 38", its score once it is known; a split and a foul are said.
export function frameLabel(fr, frame) {
  return t("frameLabel", frame, frameBalls(fr));
}

// frameBalls is a frame's balls and score in words: "7 then spare, 38".
function frameBalls(fr) {
  const balls = fr.rolls.map((n, i) => {
    const mark = ballMarks(fr)[i];
    const what = isFoul(fr, i) ? t("foul") : mark === "X" ? t("strike") : mark === "/" ? t("spare") : n === 0 ? t("gutter") : String(n);
    return i === 0 && fr.split ? t("withSplit", what) : what;
  });
  return t("frameBalls", balls, fr.score);
}

// isFoul reports whether ball i (from 0) of a frame was a foul.
function isFoul(fr, i) {
  return Array.isArray(fr.fouls) && fr.fouls.includes(i + 1);
}

// describeBall says what ball i (from 0) of frame fr was, from its mark
// on the board: a split is said, as the board circles it.
function describeBall(fr, i) {
  const what = ballWords(ballMarks(fr)[i], fr.rolls[i], isFoul(fr, i));
  return i === 0 && fr.split ? t("withSplit", what) : what;
}

function ballWords(mark, n, foul) {
  if (foul) return t("foul");
  if (mark === "X") return t("strike");
  if (mark === "/") return t("spare");
  if (n === 0) return t("gutter");
  return t("pins", n);
}

// ballMarks is a frame's marks ball by ball: "(8)|1" is ["8", "1"].
function ballMarks(fr) {
  return fr.marks.replace(/[()]/g, "").split("|");
}

// changes says what changed from one board to the next: said, for the
// live region (a ball bowled); news, for the lane's news as well (a ball
// corrected, a player skipped, back, gone, late), as functions that say
// it in the page's language of the moment.
export function changes(before, after) {
  const said = [];
  const news = [];
  after.players.forEach((p) => {
    const old = before.players.find((q) => q.name === p.name);
    if (!old) {
      if (p.late) news.push(() => t("newsLate", p.name));
      return;
    }
    if (p.away !== old.away) {
      news.push(p.away ? () => t("newsAway", p.name) : () => t("newsBack", p.name));
    }
    if (p.left && !old.left) news.push(p.removed ? () => t("newsRemoved", p.name) : () => t("newsLeft", p.name));
    if (old.removed && !p.removed) news.push(() => t("newsReadmitted", p.name));
    p.frames.forEach((f, i) => {
      const was = old.frames[i];
      if (was && was.rolls.length === f.rolls.length && (was.rolls.join() !== f.rolls.join() || (was.fouls || []).join() !== (f.fouls || []).join())) {
        news.push(() => t("newsCorrected", p.name, i + 1, f.marks));
      }
    });
    const count = (pl) => pl.frames.reduce((n, f) => n + f.rolls.length, 0);
    if (count(p) <= count(old) || p.frames.length === 0) return;
    const f = p.frames[p.frames.length - 1];
    const i = f.rolls.length - 1;
    said.push(t("said", p.name, describeBall(f, i)));
  });
  for (const h of highsOf(after)) {
    if (!highsOf(before).some((o) => o.name === h.name && o.game === h.game && o.series === h.series)) news.push(() => highText(h));
  }
  return { said, news };
}

// highsOf is a board's new personal bests, [] for none.
export function highsOf(b) {
  return Array.isArray(b && b.highs) ? b.highs : [];
}

// highText says a new personal best: "New high game for 홍길동: 187".
export function highText(h) {
  if (h.game && h.series) return t("newHighBoth", h.name, h.game, h.series);
  return h.game ? t("newHighGame", h.name, h.game) : t("newHighSeries", h.name, h.series);
}

// calls is what a screen above the lane calls out for the balls bowled
// from one board to the next: [{ name, call }], call being "strike",
// "spare" or "split" (the first ball of a rack that left one); a ball
// that is none of these is not called.
export function calls(before, after) {
  const out = [];
  after.players.forEach((p) => {
    const old = before.players.find((q) => q.name === p.name);
    if (!old || p.frames.length === 0) return;
    const count = (pl) => pl.frames.reduce((n, f) => n + f.rolls.length, 0);
    if (count(p) <= count(old)) return;
    const f = p.frames[p.frames.length - 1];
    const i = f.rolls.length - 1;
    const mark = ballMarks(f)[i];
    if (isFoul(f, i)) return;
    if (mark === "X") out.push({ name: p.name, call: "strike" });
    else if (mark === "/") out.push({ name: p.name, call: "spare" });
    else if (i === 0 && f.split) out.push({ name: p.name, call: "split" });
  });
  return out;
}

// rollLog is every ball on the board, newest first, with its frame and
// ball: a reload shows the same log. Balls go in turn order, frame by
// frame and seat by seat (a player catching up after being away bowled
// theirs later than the log shows).
export function rollLog(b) {
  const log = [];
  for (let f = 0; f < 10; f++) {
    for (const p of b.players) {
      const fr = p.frames[f];
      if (!fr) continue;
      fr.rolls.forEach((n, i) => log.push(t("logLine", p.name, f + 1, i + 1, describeBall(fr, i))));
    }
  }
  return log.reverse();
}
