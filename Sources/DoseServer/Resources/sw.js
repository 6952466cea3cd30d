"use strict";
// DoseTap's service worker: the app shell in a cache named for its version (the server writes the version in), and
// Tonight kept from its last visit, so the phone still shows the night and counts down when the server is unreachable.
importScripts("/assets/queue.js");
const VERSION = "dosetap-shell-__SHELL_VERSION__";
const SHELL = ["/assets/app.css", "/assets/app.js", "/assets/tap.js", "/assets/period.js", "/assets/queue.js", "/assets/icon.svg", "/assets/icon-192.png", "/assets/icon-512.png", "/manifest.webmanifest"];
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

// Web Push: the reminder as a notification that stays until answered, vibrating, with the reminder's one-time
// action links as its buttons (the escalation contact's notice has none).
self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (error) { data = { body: event.data ? event.data.text() : "" }; }
  const actions = Array.isArray(data.actions) ? data.actions : [];
  const options = {
    body: data.body || "DoseTap", tag: data.tag || "dosetap", renotify: true, requireInteraction: true,
    vibrate: data.rings === false ? [300] : [800, 200, 800, 200, 800, 200, 1600],
    icon: "/assets/icon-192.png", badge: "/assets/icon-192.png", timestamp: Date.parse(data.fire_at) || Date.now(),
    actions: actions.map((item) => ({ action: item.action, title: item.title })),
    data: { links: Object.fromEntries(actions.map((item) => [item.action, item.url])), audience: data.audience || "sleeper" },
  };
  event.waitUntil(self.registration.showNotification(data.title || "DoseTap", options));
});

async function openApp(path) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const mine = windows.find((client) => new URL(client.url).origin === self.location.origin);
  if (mine) { await mine.focus().catch(() => {}); return mine.navigate ? mine.navigate(path).catch(() => self.clients.openWindow(path)) : null; }
  return self.clients.openWindow(path);
}

// A button runs its link once, marked as coming from the notification. A dose the rules call risky is never confirmed
// from here: the app opens at its confirmation dialog. Tapping the notification itself opens the app and says "I'm up".
async function answer(action, data) {
  const link = (data.links || {})[action];
  if (!link) return openApp(data.audience === "contact" ? "/" : "/?ack=push");
  let response = null, body = {};
  try {
    response = await fetch(link + "?via=push", { method: "POST", headers: { Accept: "application/json" }, credentials: "omit" });
    body = await response.json().catch(() => ({}));
  } catch (error) {
    return self.registration.showNotification("DoseTap", { body: "Could not reach DoseTap's server: nothing was recorded. Open Tonight.", tag: "dosetap-answer" });
  }
  if (response.ok) return self.registration.showNotification("DoseTap", { body: body.message || "Done.", tag: "dosetap-answer", vibrate: [100] });
  const error = body.error || {};
  if (error.confirm) return openApp("/?ask=" + encodeURIComponent(action));
  await self.registration.showNotification("DoseTap — not done", { body: error.message || "That reminder's button no longer works. Open Tonight.", tag: "dosetap-answer" });
  return openApp("/");
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(answer(event.action, event.notification.data || {}));
});
