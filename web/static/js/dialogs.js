// The dialogs: the correction of a ball bowled, and the host's menu for
// a player. Both are native <dialog>s: modal, closed by Escape, and the
// pin keys do not bowl while one is open.
//
// lane is main's: { state, send, mayCorrect, isHost }.
import { $, el } from "./dom.js";
import { t } from "./i18n.js";

let lane = null;

export function startDialogs(l) {
  lane = l;
  startCorrections();
  startPlayerMenu();
}

// ---------------------------------------------------------------- corrections

// startCorrections builds the correction dialog's pin choices and wires
// its buttons.
function startCorrections() {
  // The counts, and F: the ball was a foul.
  const choices = $("#correct-pins");
  for (const n of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "F"]) {
    choices.append(el("button", { type: "button", "data-pins": String(n), text: String(n),
      onclick: () => {
        const c = lane.state.correcting;
        if (!c) return;
        c.pins = n;
        c.byDeck = false;
        $("#correct-error").textContent = "";
        renderCorrection();
      } }));
  }
  // Or, when the pins standing before the ball are known, the pins it
  // knocked down, tapped on a deck.
  for (const row of [[7, 8, 9, 10], [4, 5, 6], [2, 3], [1]]) {
    $("#correct-deck").append(el("span", { class: "row" }, ...row.map((n) => el("button", {
      type: "button", class: "pin-spot", "data-pin": String(n), text: String(n),
      onclick: () => {
        const c = lane.state.correcting;
        if (!c || !c.knocked) return;
        if (c.knocked.has(n)) c.knocked.delete(n);
        else c.knocked.add(n);
        c.byDeck = true;
        c.pins = c.knocked.size;
        $("#correct-error").textContent = "";
        renderCorrection();
      },
    }))));
  }
  $("#correct-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const c = lane.state.correcting;
    if (!c || c.id || !c.ball || c.pins === null) return;
    const msg = c.byDeck ? { type: "correct", frame: c.frame, ball: c.ball, deck: c.before.filter((p) => !c.knocked.has(p)) }
      : c.pins === "F" ? { type: "correct", frame: c.frame, ball: c.ball, foul: true }
        : { type: "correct", frame: c.frame, ball: c.ball, pins: c.pins };
    if (c.player !== lane.state.seat) msg.name = c.player;
    c.id = lane.send(msg);
    if (!c.id) $("#correct-error").textContent = t("notConnected");
    renderCorrection();
  });
  $("#correct-cancel").addEventListener("click", closeDialogs);
  // Escape closes the dialog too. (The close event comes a task later:
  // by then the dialog may be open again for another frame.)
  $("#correct-dialog").addEventListener("close", () => {
    if (!$("#correct-dialog").open) lane.state.correcting = null;
  });
}

export function openCorrection(player, frame) {
  closeDialogs();
  // The ball chosen (from 1; 0 before), the pins it should be (a count,
  // "F" for a foul), the answer awaited (id); when the pins standing
  // before it are known (before), those tapped down on the deck
  // (knocked), and whether the deck is what is sent (byDeck).
  lane.state.correcting = { player, frame, ball: 0, pins: null, id: "", shown: "", knocked: null, byDeck: false, before: null };
  $("#correct-error").textContent = "";
  renderCorrection();
  if (lane.state.correcting) $("#correct-dialog").showModal();
}

// correctionFrame is the frame the dialog corrects, on the latest board,
// or null if this page may no longer correct it.
function correctionFrame() {
  const c = lane.state.correcting;
  const b = lane.state.board;
  const p = c && b && b.players.find((q) => q.name === c.player);
  const fr = p && lane.mayCorrect(p) ? p.frames[c.frame - 1] : null;
  return fr && fr.rolls.length > 0 ? fr : null;
}

export function renderCorrection() {
  const c = lane.state.correcting;
  if (!c) return;
  const fr = correctionFrame();
  if (!fr) { // the game moved on (a rematch), or the seat is gone
    closeDialogs();
    return;
  }
  if (fr.rolls.length === 1 && !c.ball) c.ball = 1;
  if (c.ball > fr.rolls.length) c.ball = 0;
  const fouls = Array.isArray(fr.fouls) ? fr.fouls : [];
  const was = !c.ball ? null : fouls.includes(c.ball) ? "F" : fr.rolls[c.ball - 1];
  if (c.ball && c.pins === null) c.pins = was;
  // The deck: the pins standing before the ball, the ones it knocked down
  // tapped (at first, as the board has them).
  const before = c.ball ? standingBefore(fr, c.frame, c.ball) : null;
  const decks = Array.isArray(fr.decks) ? fr.decks : [];
  const after = c.ball ? decks[c.ball - 1] : null;
  if (before && !c.knocked) {
    c.before = before;
    c.knocked = new Set(Array.isArray(after) ? before.filter((p) => !after.includes(p)) : []);
  }
  $("#correct-deck-wrap").hidden = !before;
  for (const btn of $("#correct-deck").querySelectorAll("button")) {
    const n = Number(btn.dataset.pin);
    const standing = !!before && before.includes(n);
    const down = standing && c.knocked.has(n);
    btn.disabled = !standing || !!c.id;
    btn.classList.toggle("down", !standing);
    btn.classList.toggle("knocked", down);
    btn.setAttribute("aria-pressed", String(down));
    btn.setAttribute("aria-label", t("pinLabel", n, !standing ? "down" : down ? "knocked" : "standing"));
  }
  const deckNow = Array.isArray(after) ? after.join() : null;
  const deckNew = c.byDeck ? before.filter((p) => !c.knocked.has(p)).join() : null;
  const changed = c.byDeck ? deckNew !== deckNow : c.pins !== was;
  const whose = c.player === lane.state.seat ? "" : c.player;
  $("#correct-title").textContent = t("correctTitle", whose, c.frame);
  $("#correct-now").textContent = t("correctNow", fr.marks, !!fr.corrected);
  // The ball choices change only with the frame's balls (and the
  // language): rebuilding them on every board would take the focus away.
  const shown = fr.rolls.join() + fouls.join() + document.documentElement.lang;
  if (c.shown !== shown) {
    c.shown = shown;
    $("#correct-balls").replaceChildren(...fr.rolls.map((n, i) => el("button", { type: "button",
      "data-ball": String(i + 1), text: t("ballChoice", i + 1, fouls.includes(i + 1) ? "F" : n),
      onclick: () => {
        c.ball = i + 1;
        c.pins = null;
        c.knocked = null;
        c.byDeck = false;
        $("#correct-error").textContent = "";
        renderCorrection();
      } })));
  }
  for (const btn of $("#correct-balls").children) {
    btn.setAttribute("aria-pressed", String(Number(btn.dataset.ball) === c.ball));
  }
  for (const btn of $("#correct-pins").children) {
    btn.disabled = !c.ball || !!c.id;
    btn.setAttribute("aria-pressed", String(!!c.ball && btn.dataset.pins === String(c.pins)));
  }
  $("#correct-save").disabled = !c.ball || c.pins === null || !changed || !!c.id;
  $("#correct-save").textContent = c.ball && c.pins !== null && changed
    ? t("makeBall", c.ball, c.pins) : t("saveCorrection");
}

const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

// standingBefore is the pins standing before ball (from 1) of frame fr
// (frame, from 1), when the board tells them: ten on a fresh rack (a
// frame's first ball, the tenth's after a strike or a spare, or after a
// foul on a rack's first ball), else the deck the ball before left. It
// is null when a ball before was entered as a count that left pins.
function standingBefore(fr, frame, ball) {
  const decks = Array.isArray(fr.decks) ? fr.decks : [];
  const fouls = Array.isArray(fr.fouls) ? fr.fouls : [];
  let standing = ten;
  for (let j = 1; j < ball; j++) {
    if (fouls.includes(j)) continue; // a foul knocks nothing down: the pins stand (set again after a first ball)
    const deck = decks[j - 1];
    const left = Array.isArray(deck) ? deck : fr.rolls[j - 1] === standing.length ? [] : null;
    if (left === null) return null;
    standing = left.length === 0 && frame === 10 ? ten : left;
  }
  return standing;
}

// correctionAnswered handles the server's answer to the correction sent,
// and reports whether msg was that answer. Accepted, the dialog closes:
// the board with the correction shows it to everyone, this page included
// (and the live region says so). Refused, nothing changed: the dialog
// says why, and stays open for another try.
export function correctionAnswered(msg, why) {
  const c = lane.state.correcting;
  if (!c || !c.id || msg.ref !== c.id) return false;
  if (msg.type === "ack") {
    closeDialogs();
    return true;
  }
  c.id = "";
  $("#correct-error").textContent = why;
  renderCorrection();
  return true;
}

// ---------------------------------------------------------------- the host's player menu

function startPlayerMenu() {
  $("#player-close").addEventListener("click", closeDialogs);
  $("#player-dialog").addEventListener("close", () => {
    if (!$("#player-dialog").open) lane.state.menuFor = "";
  });
  $("#remove").addEventListener("click", () => {
    const name = lane.state.menuFor;
    if (!name) return;
    const b = lane.state.board;
    const playing = b && b.phase !== "waiting";
    if (!window.confirm(t("confirmRemove", name, playing))) return;
    lane.send({ type: "remove", name });
    closeDialogs();
  });
  // Freeing a left seat drops that player's frames of this game: ask.
  $("#free").addEventListener("click", () => {
    const name = lane.state.menuFor;
    if (!name || !window.confirm(t("confirmFree", name))) return;
    lane.send({ type: "free", name });
    closeDialogs();
  });
  // Letting a removed player back undoes a removal: no question.
  $("#readmit").addEventListener("click", () => {
    const name = lane.state.menuFor;
    if (!name) return;
    lane.send({ type: "readmit", name });
    closeDialogs();
  });
}

export function openPlayerMenu(name) {
  closeDialogs();
  lane.state.menuFor = name;
  renderPlayerMenu();
  if (lane.state.menuFor) $("#player-dialog").showModal();
}

export function renderPlayerMenu() {
  const name = lane.state.menuFor;
  if (!name) return;
  const b = lane.state.board;
  const p = b && b.players.find((q) => q.name === name);
  if (!p || !lane.isHost()) {
    closeDialogs();
    return;
  }
  $("#player-title").textContent = name;
  $("#player-status").textContent = p.removed ? t("menuRemoved", name) : p.left ? t("menuLeft", name)
    : p.away ? t("menuAway", name) : p.connected ? t("menuConnected", name) : t("menuOffline", name);
  // A seat its player left (or the host removed them from) stays theirs,
  // frames and all, until the host frees it for a late friend.
  $("#free").hidden = !p.left;
  $("#free").textContent = t("freeButton", name);
  $("#remove").hidden = !!p.left;
  $("#remove").textContent = t("removeButton", name);
  $("#readmit").hidden = !p.removed;
  $("#readmit").textContent = t("readmitButton", name);
}

export function closeDialogs() {
  for (const d of document.querySelectorAll("dialog[open]")) d.close();
  if (lane) {
    lane.state.correcting = null;
    lane.state.menuFor = "";
  }
}
