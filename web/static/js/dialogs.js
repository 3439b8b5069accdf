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
        $("#correct-error").textContent = "";
        renderCorrection();
      } }));
  }
  $("#correct-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const c = lane.state.correcting;
    if (!c || c.id || !c.ball || c.pins === null) return;
    const msg = c.pins === "F" ? { type: "correct", frame: c.frame, ball: c.ball, foul: true }
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
  lane.state.correcting = { player, frame, ball: 0, pins: null, id: "", shown: "" };
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
  $("#correct-save").disabled = !c.ball || c.pins === null || c.pins === was || !!c.id;
  $("#correct-save").textContent = c.ball && c.pins !== null && c.pins !== was
    ? t("makeBall", c.ball, c.pins) : t("saveCorrection");
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
  if (!p || (p.left && !p.removed) || !lane.isHost()) {
    closeDialogs();
    return;
  }
  $("#player-title").textContent = name;
  $("#player-status").textContent = p.removed ? t("menuRemoved", name) : p.away ? t("menuAway", name)
    : p.connected ? t("menuConnected", name) : t("menuOffline", name);
  $("#remove").hidden = !!p.removed;
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
