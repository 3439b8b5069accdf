// The invitation: the lane's link to share, copied with a tap, and the
// server's addresses for it that a phone can open, with a QR code. A lane
// seats only who has its invitation, a code that rides in the link's
// fragment (/lanes/{id}#invite=CODE), which no server log or Referer
// sees. A page that has it (its creator's, or one opened by such a link)
// shares the link with it, and its QR code; a page without it shares a
// link to watch. The page keeps the code on this device (localStorage),
// as it keeps the host key.
import { $, el, say } from "./dom.js";
import { t } from "./i18n.js";

let copiedTimer = 0;
let invited = false; // the server's addresses were asked for
let laneID = "";
let bases = []; // the lane's links, without the invitation: the first is the one to share
let qrPath = ""; // the lane's QR code, from the server
let qrAsked = 0; // the last QR code asked for: an older answer is not shown

// inviteHeader is the request header by which the server draws the QR
// code of the link with the invitation (protocol.InviteHeader): never in
// the URL, which servers and proxies log.
const inviteHeader = "Tenpin-Invite";

// inviteKey is where this device keeps lane id's invitation.
export function inviteKey(id) { return "tenpin-invite-" + id; }

// validInvite reports whether s has an invitation's shape: 26 letters
// A–Z and digits 2–7 (protocol.ValidInvite).
export function validInvite(s) { return typeof s === "string" && /^[A-Z2-7]{26}$/.test(s); }

// storedInvite is lane id's invitation as this device keeps it, or "".
export function storedInvite(id) {
  try { return localStorage.getItem(inviteKey(id)) || ""; } catch { return ""; }
}

// keepInvite keeps lane id's invitation on this device.
export function keepInvite(id, code) {
  try { localStorage.setItem(inviteKey(id), code); } catch { /* storage off: the link in the address bar is lost on reload */ }
}

// forgetInvite forgets lane id's invitation: the server no longer takes it.
export function forgetInvite(id) {
  try { localStorage.removeItem(inviteKey(id)); } catch { /* storage off */ }
}

// inviteFragment is what a link to lane id carries to seat its opener:
// "#invite=CODE", or "" if this page has no invitation.
export function inviteFragment(id) {
  const code = storedInvite(id);
  return code ? "#invite=" + code : "";
}

// startInvite shows this page's own address, until the server says
// which one a phone can open (see invite), and wires the copy button.
export function startInvite(id) {
  laneID = id;
  bases = [location.origin + "/lanes/" + encodeURIComponent(id)];
  $("#copy").addEventListener("click", copyLink);
  $("#tv-link").href = "/lanes/" + encodeURIComponent(id) + "/tv";
  renderInvite();
}

// renderInvite shows the lane's link and QR code with the invitation, if
// this page has it, or the ones to watch with; and says which they are.
// Called again when the invitation changes, and in another language.
export function renderInvite() {
  const code = storedInvite(laneID);
  const frag = code ? "#invite=" + code : "";
  $("#share-url").value = bases[0] + frag;
  $("#invite-title").textContent = t(code ? "inviteTitle" : "watchTitle");
  $("#share-label").textContent = t(code ? "shareLabelInvite" : "shareLabelWatch");
  $("#invite-note").textContent = t(code ? "inviteNoteSeat" : "inviteNoteWatch");
  $("#qr").alt = t(code ? "qrAltInvite" : "qrAltWatch");
  $("#other-urls ul").replaceChildren(...bases.slice(1).map((u) => el("li", {}, el("a", { href: u + frag, text: u + frag }))));
  $("#other-urls").hidden = bases.length < 2;
  // The lane's own TV view, for the screen above the lane: with the
  // invitation its QR code seats whoever scans it.
  $("#tv-link").href = "/lanes/" + encodeURIComponent(laneID) + "/tv" + frag;
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

// invite asks the server, once, for the lane's addresses: the one a
// phone on the same network can open (this page's may be localhost) and
// a QR code of it. Without them (an older server, an error) the page
// keeps its own address and shows no QR code.
export async function invite(id) {
  if (invited) return;
  invited = true;
  let inv = null;
  try {
    const res = await fetch("/api/lanes/" + encodeURIComponent(id) + "/invite", { cache: "no-store" });
    if (res.ok) inv = await res.json();
  } catch {
    inv = null;
  }
  const isURL = (u) => typeof u === "string" && /^https?:\/\//.test(u);
  if (!inv || !isURL(inv.url)) return;
  bases = [inv.url, ...(Array.isArray(inv.urls) ? inv.urls : []).filter((u) => isURL(u) && u !== inv.url)];
  renderInvite();
  if (typeof inv.qr === "string" && inv.qr.startsWith("/api/")) {
    qrPath = inv.qr;
    drawQR();
  }
}

// drawQR shows the QR code of the link the page shares.
async function drawQR() {
  const qr = $("#qr");
  if (!qrPath) return;
  const code = storedInvite(laneID);
  const asked = ++qrAsked;
  const src = await qrImage(qrPath, code);
  if (asked !== qrAsked) return; // a newer invitation's is on its way
  qr.dataset.invite = src && code ? "true" : "false"; // which link it draws (for tests)
  if (!src) {
    qr.hidden = true;
    qr.removeAttribute("src");
    return;
  }
  qr.onload = () => { qr.hidden = false; };
  qr.onerror = () => { qr.hidden = true; };
  qr.src = src;
}

// qrImage fetches the QR code at path (a lane's …/qr.png) of the lane's
// link with the invitation code in its fragment ("" for the link to
// watch), and answers it as a data: URL for an <img>, or "" if the
// server would not draw it. The invitation goes to the server in a
// header, which an <img src> cannot send; a data: URL is what the page's
// Content-Security-Policy already allows for images (blob: it does not).
export async function qrImage(path, code) {
  try {
    const res = await fetch(path, { cache: "no-cache", headers: code ? { [inviteHeader]: code } : {} });
    if (!res.ok) return "";
    const blob = await res.blob();
    return await new Promise((resolve, reject) => {
      const r = new FileReader();
      r.onload = () => resolve(String(r.result));
      r.onerror = () => reject(r.error);
      r.readAsDataURL(blob);
    });
  } catch {
    return "";
  }
}

// setInvite takes a new invitation for the lane (the host's new_invite),
// or "" for none (the server refused the one kept): the link, the QR
// code and the TV's link change with it.
export function setInvite(code) {
  if (code) keepInvite(laneID, code);
  else forgetInvite(laneID);
  renderInvite();
  drawQR();
}
