// Sentio's service worker (issue 36, item 5): keeps the shell — pages, styles, scripts, icons —
// so an installed app opens without the network and pages open fast on a slow one.
//
// What it never keeps: anything under /api/ (answers, photos, personal data: they always go to
// the server, and are marked no-store there too), /metrics, and anything but a plain GET of this
// origin. Network first: a page or script changed on the server is used at once; the copy
// answers only when the network does not.
const CACHE = "sentio-shell-v1";
/** The shell fetched at install: the home page and what every page loads. Others join the cache as they are opened. */
const SHELL = ["/", "/css/sentio.css", "/favicon.svg", "/manifest.webmanifest", "/icons/icon-192.png", "/js/account.js", "/js/install.js", "/js/stream.js"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
    .then(() => self.clients.claim()));
});

/** Whether a request may be answered from, and kept in, the shell cache. */
function isShell(request) {
  if (request.method !== "GET") return false;
  const url = new URL(request.url);
  return url.origin === self.location.origin && !url.pathname.startsWith("/api/") && url.pathname !== "/metrics";
}

self.addEventListener("fetch", (event) => {
  if (!isShell(event.request)) return;  // the browser's own handling, untouched
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok && response.type === "basic" && !/no-store/.test(response.headers.get("Cache-Control") || "")) {
      const copy = response.clone();
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(event.request, copy)));
    }
    return response;
  }, () => caches.match(event.request, { ignoreSearch: true }).then((hit) => hit || Response.error())));
});
