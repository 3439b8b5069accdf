// The bowler's pad: the pin deck, with the real pins standing, to tap
// the pins knocked down; quick buttons for a strike or a spare, a gutter
// and a foul; and the count pad, 0 to 10, for those who prefer it (and
// for a ball whose pins standing are not known). Or the keyboard.
import { $, el } from "./dom.js";
import { t } from "./i18n.js";

// rows is the deck seen from the foul line: the head pin in front.
const rows = [[7, 8, 9, 10], [4, 5, 6], [2, 3], [1]];

// knocked is the pins tapped down on the deck for the ball up (ball
// names it): tapped again, a pin stands again. It is the pad's own: a new
// ball up starts it afresh.
const knocked = { ball: "", pins: new Set() };

// buildPad makes the pad's buttons; roll(fields) is called with what a
// tap rolls: { pins }, { deck } or { foul }.
export function buildPad(roll, current) {
  const deck = $("#pin-deck");
  for (const row of rows) {
    deck.append(el("span", { class: "row" }, ...row.map((n) => el("button", {
      type: "button", class: "pin-spot", "data-pin": String(n), text: String(n),
      onclick: () => {
        if (knocked.pins.has(n)) knocked.pins.delete(n);
        else knocked.pins.add(n);
        current();
      },
    }))));
  }
  $("#deck-roll").addEventListener("click", () => {
    const up = current();
    if (!up || !up.deck || knocked.pins.size === 0) return;
    roll({ deck: up.deck.filter((p) => !knocked.pins.has(p)) });
  });
  // A strike or a spare, a gutter: by the deck when it is known, so that
  // the next ball's pins are known too.
  $("#quick-all").addEventListener("click", () => {
    const up = current();
    if (up) roll(up.deck ? { deck: [] } : { pins: up.standing });
  });
  $("#quick-gutter").addEventListener("click", () => {
    const up = current();
    if (up) roll(up.deck ? { deck: up.deck.slice() } : { pins: 0 });
  });
  $("#quick-foul").addEventListener("click", () => {
    if (current()) roll({ foul: true });
  });
  const pad = $("#pins");
  for (let n = 0; n <= 10; n++) {
    pad.append(el("button", { type: "button", class: "pin", "data-pins": String(n), text: String(n),
      onclick: () => roll({ pins: n }) }));
  }
}

// renderPad shows whose ball the pad is for (the host must never enter a
// ball for the wrong player) and offers only what can be: the deck only
// when the pins standing are known (never invented), only those pins, and
// only the counts up to those standing. who is the player whose ball the
// page enters, or "" for none; ready, whether it may send one now.
export function renderPad(b, who, seat, ready, pending) {
  $("#pad").hidden = !who;
  if (!who) return;
  const up = b.up;
  $("#entering").textContent = who === seat ? t("yourBall", up.frame, up.ball) : t("enteringFor", who, up.frame, up.ball);
  $("#entering").classList.toggle("other", who !== seat);
  for (const id of ["#pins", "#pin-deck", "#quick"]) $(id).setAttribute("aria-busy", String(pending));
  for (const btn of $("#pins").children) {
    btn.disabled = !ready || Number(btn.dataset.pins) > up.standing;
  }
  // The ball up, told from the next (and from a correction that changes
  // its pins) but not by boards that change something else: a watcher
  // coming, a player's connection.
  const bowled = b.players.reduce((n, p) => n + p.frames.reduce((m, f) => m + f.rolls.length, 0), 0);
  const ball = `${b.phase} ${bowled} ${up.seat} ${up.frame} ${up.ball} ${up.deck}`;
  if (knocked.ball !== ball) {
    knocked.ball = ball;
    knocked.pins.clear();
  }
  const deck = Array.isArray(up.deck) ? up.deck : null;
  $("#deck-pad").hidden = !deck;
  for (const btn of $("#pin-deck").querySelectorAll("button")) {
    const n = Number(btn.dataset.pin);
    const standing = !!deck && deck.includes(n);
    const down = knocked.pins.has(n);
    btn.disabled = !ready || !standing;
    btn.classList.toggle("down", !standing);
    btn.classList.toggle("knocked", down);
    btn.setAttribute("aria-pressed", String(down));
    btn.setAttribute("aria-label", t("pinLabel", n, !standing ? "down" : down ? "knocked" : "standing"));
  }
  $("#deck-roll").disabled = !ready || knocked.pins.size === 0;
  $("#deck-roll").textContent = t("deckRoll", knocked.pins.size);
  const all = freshRack(b) ? "X" : "/";
  $("#quick-all").replaceChildren(el("b", { text: all }), " ", el("small", { text: all === "X" ? t("strike") : t("spare") }));
  $("#quick-gutter").replaceChildren(el("b", { text: "-" }), " ", el("small", { text: t("gutter") }));
  $("#quick-foul").replaceChildren(el("b", { text: "F" }), " ", el("small", { text: t("foul") }));
  for (const id of ["#quick-all", "#quick-gutter", "#quick-foul"]) $(id).disabled = !ready;
}

// freshRack reports whether the ball up is a rack's first ball, so that
// all its pins are a strike: a frame's first ball, or in the tenth one
// after a strike or a spare. Ten pins standing do not say it: after a
// gutter or a foul on the first ball the second faces ten, and all ten
// are a spare (F|/, -|/).
export function freshRack(b) {
  const fr = b.players[b.up.seat].frames[b.up.frame - 1];
  if (!fr || fr.rolls.length === 0) return true;
  const last = fr.marks.replace(/[()]/g, "").split("|")[fr.rolls.length - 1];
  return last === "X" || last === "/";
}

// keyRoll reads a key as a ball with standing pins up: a digit, X for a
// strike, / for a spare, - for a gutter, F for a foul; fresh says whether
// the ball is a rack's first (freshRack). It returns the roll's fields
// ({ pins } or { foul }), { problem } for a key that cannot be this ball,
// or null for a key that is not a ball's.
export function keyRoll(key, standing, fresh = standing === 10) {
  if (/^[0-9]$/.test(key)) {
    const n = Number(key);
    return n > standing ? { problem: t("keyTooMany", standing, n) } : { pins: n };
  }
  if (key === "x" || key === "X") {
    return standing < 10 ? { problem: t("keyNoStrike", standing) } : { pins: 10 };
  }
  if (key === "/") {
    return fresh ? { problem: t("keyNoSpare") } : { pins: standing };
  }
  if (key === "-") return { pins: 0 };
  if (key === "f" || key === "F") return { foul: true };
  return null;
}
