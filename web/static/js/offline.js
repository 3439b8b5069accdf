// The page offline: the service worker that keeps its shell (sw.js,
// served at the root), and the offer of a new version. A page is of one
// version, its files all from that version's cache: a new version
// installs beside it and waits, and the page offers a reload, which
// hands the page over to it.
import { $ } from "./dom.js";

let registration = null;
let reloading = false;

// startWorker registers the service worker and shows the offer of a new
// version (#update) whenever one waits.
export function startWorker() {
  if (!("serviceWorker" in navigator)) return;
  $("#update-reload").addEventListener("click", () => {
    const waiting = registration && registration.waiting;
    if (!waiting) return;
    reloading = true;
    waiting.postMessage("take-over");
  });
  // The new worker took over because the bowler asked: load the page
  // from it. (The first worker claims the page that installed it too,
  // and that is no reason to reload.)
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (reloading) location.reload();
  });
  navigator.serviceWorker.register("/sw.js").then((reg) => {
    registration = reg;
    offer();
    reg.addEventListener("updatefound", () => {
      const w = reg.installing;
      if (w) w.addEventListener("statechange", offer);
    });
  }).catch(() => { /* no worker: the page works online as before */ });
}

// checkVersion asks the server whether a new version is out: on every
// connection, since a server that was away may be back as a new release.
export function checkVersion() {
  if (registration) registration.update().catch(() => { /* offline: later */ });
}

// offer shows the offer of a new version while one waits for this page,
// which a worker already serves (a first install needs no reload).
function offer() {
  const r = registration;
  $("#update").hidden = !(r && r.waiting && navigator.serviceWorker.controller);
}
