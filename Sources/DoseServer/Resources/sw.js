"use strict";
// DoseTap's service worker: the app shell in a cache named for its version (the server writes the version in), and
// Tonight kept from its last visit, so the phone still shows the night and counts down when the server is unreachable.
importScripts("/assets/queue.js");
const VERSION = "dosetap-shell-__SHELL_VERSION__";
const SHELL = ["/assets/app.css", "/assets/app.js", "/assets/period.js", "/assets/queue.js", "/assets/icon.svg", "/assets/icon-192.png", "/assets/icon-512.png", "/manifest.webmanifest"];
const TONIGHT = "/";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(VERSION).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith("dosetap-") && name !== VERSION).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()));
});

// The last Tonight this phone saw, marked with when it was fetched, for the page to say how old it is.
async function offlineTonight() {
  const cache = await caches.open(VERSION);
  const cached = await cache.match(TONIGHT);
  if (!cached) {
    return new Response("<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'><title>DoseTap offline</title>"
      + "<body style='background:#000;color:#ffb3ab;font:18px system-ui;padding:16px'><p>DoseTap cannot reach its server, and this phone has no saved copy of Tonight yet.</p>",
      { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
  }
  const fetched = cached.headers.get("X-DoseTap-Fetched") || "";
  const html = (await cached.text()).replace("<html", '<html data-offline-since="' + fetched.replace(/[^0-9TZ:.\-]/g, "") + '"');
  return new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } });
}

async function keepTonight(response) {
  const html = await response.text();
  const cache = await caches.open(VERSION);
  await cache.put(TONIGHT, new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8", "X-DoseTap-Fetched": new Date().toISOString() } }));
}

// A Tonight tap whose post cannot reach the server: kept on the phone with its time and its confirmations as the
// person gave them, to be replayed (and judged at that time) when the server is back.
async function keepTap(request) {
  const form = await request.formData();
  const action = form.get("action");
  if (DoseTapQueue.queueable(action)) {
    await DoseTapQueue.add({ action: action, event: form.get("event"), confirm: form.getAll("confirm"), at: new Date().toISOString(), csrf: form.get("csrf") || "" }).catch(() => {});
  }
  return offlineTonight();
}

self.addEventListener("fetch", (event) => {
  const request = event.request, url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && request.mode === "navigate" && url.pathname === "/ui/act") {
    const copy = request.clone();
    event.respondWith(fetch(request).catch(() => keepTap(copy)));
    return;
  }
  if (request.method !== "GET") return;
  if (SHELL.includes(url.pathname)) {
    event.respondWith(caches.match(request).then((hit) => hit || fetch(request)));
    return;
  }
  if (request.mode !== "navigate") return;
  event.respondWith(
    fetch(request).then((response) => {
      if (url.pathname === TONIGHT && response.ok && !response.redirected) event.waitUntil(keepTonight(response.clone()));
      return response;
    }).catch(() => offlineTonight()));
});
