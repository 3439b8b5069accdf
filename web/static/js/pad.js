// The bowler's pad: the pins knocked down, from 0 to 10, tapped or typed.
import { $, el } from "./dom.js";
import { t } from "./i18n.js";

// buildPad makes the count buttons; roll(n) is called with the count
// tapped.
export function buildPad(roll) {
  const pad = $("#pins");
  for (let n = 0; n <= 10; n++) {
    pad.append(el("button", { type: "button", class: "pin", "data-pins": String(n), text: String(n),
      onclick: () => roll(n) }));
  }
}

// renderPad shows whose ball the pad is for (the host must never enter a
// ball for the wrong player) and offers only the counts that can be.
// who is the player whose ball the page enters, or "" for none; ready,
// whether it may send one now.
export function renderPad(b, who, seat, ready, pending) {
  $("#pad").hidden = !who;
  if (!who) return;
  $("#entering").textContent = who === seat ? t("yourBall", b.up.frame, b.up.ball) : t("enteringFor", who, b.up.frame, b.up.ball);
  $("#entering").classList.toggle("other", who !== seat);
  $("#pins").setAttribute("aria-busy", String(pending));
  for (const btn of $("#pins").children) {
    btn.disabled = !ready || Number(btn.dataset.pins) > b.up.standing;
  }
}

// keyRoll reads a key as a ball with standing pins up: a digit, X for a
// strike, / for a spare, - for a gutter. It returns { n } for a roll,
// { problem } for a key that cannot be this ball, or null for a key that
// is not a ball's.
export function keyRoll(key, standing) {
  if (/^[0-9]$/.test(key)) {
    const n = Number(key);
    return n > standing ? { problem: t("keyTooMany", standing, n) } : { n };
  }
  if (key === "x" || key === "X") {
    return standing < 10 ? { problem: t("keyNoStrike", standing) } : { n: 10 };
  }
  if (key === "/") {
    return standing === 10 ? { problem: t("keyNoSpare") } : { n: standing };
  }
  if (key === "-") return { n: 0 };
  return null;
}
