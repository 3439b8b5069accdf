// tenpin's service worker. The server writes two constants before this
// script: version (of the page's files, which names the cache) and shell
// (the assets a lane's page needs, under /static/). It keeps the page's
// shell so that a lane's link opens with no network: the lobby's and the
// lanes' page ("/", "/lanes/{id}") and their assets come from this
// version's cache, never some from one version and some from another. A
// new version installs beside this one and waits: the page offers a
// reload, and the new worker takes over when the bowler says so.
/* global version, shell */

const cacheName = "tenpin-" + version;

// page reports whether path is the page this worker serves: the lobby's
// or a lane's (not a lane's TV view, nor the other pages).
function page(path) {
  return path === "/" || /^\/lanes\/[^/]+$/.test(path);
}

self.addEventListener("install", (ev) => {
  // "/" is the page itself: a lane's address is the same page.
  ev.waitUntil(caches.open(cacheName).then((c) => c.addAll(["/", ...shell])));
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("tenpin-") && name !== cacheName) await caches.delete(name);
    }
    // The first worker takes the page that installed it: that page was
    // loaded from the network, of this version.
    await self.clients.claim();
  })());
});

// The page says when to take over (the bowler chose to reload).
self.addEventListener("message", (ev) => {
  if (ev.data === "take-over") self.skipWaiting();
});

self.addEventListener("fetch", (ev) => {
  const req = ev.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.mode === "navigate") {
    if (page(url.pathname)) ev.respondWith(cached("/", req));
    return;
  }
  if (!shell.includes(url.pathname)) return;
  // An asset comes from the cache for the page this worker serves only:
  // the TV's or a league's page, loaded from the network, takes its
  // assets from there too, all of one version.
  ev.respondWith((async () => {
    const client = ev.clientId ? await self.clients.get(ev.clientId) : null;
    if (client && page(new URL(client.url).pathname)) return cached(url.pathname, req);
    return fetch(req);
  })());
});

// cached answers key from this version's cache, or from the network if
// the cache lost it (the browser may evict it).
async function cached(key, req) {
  const hit = await caches.match(key, { cacheName });
  return hit || fetch(req);
}
