// The invitation: the lane's link to share, copied with a tap, and the
// server's addresses for it that a phone can open, with a QR code.
import { $, el, say } from "./dom.js";
import { t } from "./i18n.js";

let copiedTimer = 0;
let invited = false; // the invitation was asked for

// startInvite shows this page's own address, until the server says
// which one a phone can open (see invite), and wires the copy button.
export function startInvite(laneID) {
  $("#share-url").value = location.origin + "/lanes/" + encodeURIComponent(laneID);
  $("#copy").addEventListener("click", copyLink);
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
  const text = copied ? t("linkCopied") : t("linkSelect");
  $("#copied").textContent = text;
  say(text);
  clearTimeout(copiedTimer);
  copiedTimer = setTimeout(() => { $("#copied").textContent = ""; }, 5000);
}

// invite asks the server, once, for the lane's invitation: the address a
// phone on the same network can open (this page's may be localhost) and a
// QR code of it. Without one (an older server, an error) the page keeps
// its own address and shows no QR code.
export async function invite(laneID) {
  if (invited) return;
  invited = true;
  let inv = null;
  try {
    const res = await fetch("/api/lanes/" + encodeURIComponent(laneID) + "/invite", { cache: "no-store" });
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
