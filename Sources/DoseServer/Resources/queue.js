"use strict";
// Taps made while DoseTap's server cannot be reached, kept on the phone (IndexedDB) and replayed once it can be.
// Each tap keeps its own time, a client event id and an Idempotency-Key, so the server judges it at the moment it
// was made (as for every `--at` action) and a replay sent twice is recorded once. Shared by the page and the worker.
(function (root) {
  const DATABASE = "dosetap", STORE = "queue", REFUSED = "refused";
  // The API route and body of each Tonight action that can wait; Snooze and Undo need the server now.
  const ROUTES = {
    dose1: (tap) => ["/v1/doses/take", { type: "dose1" }],
    dose2: (tap) => ["/v1/doses/take", { type: "dose2" }],
    skip: (tap) => ["/v1/doses/skip", { sequence: 2 }],
    log: (tap) => ["/v1/events/log", { type: tap.event }],
    wake: (tap) => ["/v1/events/log", { type: "wake_final" }],
  };
  function open() {
    return new Promise((resolve, reject) => {
      const request = indexedDB.open(DATABASE, 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore(STORE, { keyPath: "id" });
        request.result.createObjectStore(REFUSED, { keyPath: "id" });
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }
  function run(store, mode, work) {
    return open().then((db) => new Promise((resolve, reject) => {
      const transaction = db.transaction(store, mode), result = work(transaction.objectStore(store));
      transaction.oncomplete = () => resolve(result && "result" in result ? result.result : undefined);
      transaction.onerror = () => reject(transaction.error);
    }));
  }
  // What a person calls each action; a log is called by its button, or its event.
  const LABELS = { dose1: "Dose 1", dose2: "Dose 2", skip: "Skip" };
  const uuid = () => (root.crypto && crypto.randomUUID ? crypto.randomUUID() : null);
  // Keeps a tap: `action` and its `event` (for a log) and `confirm` list, made at `at` (an instant on the server's clock).
  // At most one dose action of each kind waits: a second one is refused with the one already waiting (`waiting`).
  async function add(tap) {
    if (!ROUTES[tap.action]) throw new Error("not queueable");
    if (LABELS[tap.action]) {
      const twin = (await all(STORE)).find((t) => t.action === tap.action);
      if (twin) throw Object.assign(new Error("already waiting"), { waiting: twin });
    }
    const id = uuid(), key = uuid();
    if (!id || !key) throw new Error("no secure random ids here");
    const entry = { id: id, key: key, action: tap.action, event: tap.event || null, confirm: tap.confirm || [], at: tap.at, label: tap.label || LABELS[tap.action] || tap.event || tap.action, csrf: tap.csrf || "" };
    await run(STORE, "readwrite", (store) => store.put(entry));
    return entry;
  }
  // The refusals that mean the tap's twin is already recorded (the same dose from another tap or device): what the
  // person wanted is saved, so it is said as saved, never as "not saved".
  const TWINS = { dose1: "409_ALREADY_TAKEN", dose2: "409_ALREADY_TAKEN", skip: "409_ALREADY_SKIPPED" };
  const twinSaved = (tap, error) => !!error && TWINS[tap.action] === error.code && (tap.action !== "dose1" || (error.details || {}).dose === "Dose 1")
    && (tap.action !== "dose2" || (error.details || {}).dose === "Dose 2");
  const all = (store) => run(store, "readonly", (s) => s.getAll()).then((list) => (list || []).sort((a, b) => (a.at < b.at ? -1 : 1)));
  const remove = (store, id) => run(store, "readwrite", (s) => s.delete(id));
  // Sends every waiting tap, oldest first. A tap the server records (or already had) leaves the queue; one it refuses
  // leaves it too and is kept as refused, to be shown, never retried; a network failure or a busy server stops the
  // replay, keeping the rest for later. Resolves to { saved, savedLabels, refused, waiting }.
  async function replay(csrf) {
    const result = { saved: 0, savedLabels: [], refused: 0, waiting: 0 };
    const taps = await all(STORE);
    for (let i = 0; i < taps.length; i++) {
      const tap = taps[i], [path, body] = ROUTES[tap.action](tap);
      body.timestamp = tap.at;
      body.id = tap.id;
      if (tap.confirm.length) body.confirm = tap.confirm;
      let response;
      try {
        response = await fetch(path, {
          method: "POST", credentials: "same-origin", body: JSON.stringify(body),
          headers: { "Content-Type": "application/json", "Idempotency-Key": tap.key, "X-CSRF-Token": csrf || tap.csrf },
        });
      } catch (e) { result.waiting = taps.length - i; return result; }
      if (response.ok) { await remove(STORE, tap.id); result.saved++; result.savedLabels.push(tap.label); continue; }
      let error = null;
      try { error = (await response.json()).error || null; } catch (e) {}
      if (twinSaved(tap, error)) {
        await remove(STORE, tap.id); result.saved++;
        result.savedLabels.push(tap.label + " (already recorded at " + ((error.details || {}).taken_at_local || (error.details || {}).skipped_at_local || "an earlier tap") + ")");
        continue;
      }
      // Busy, or this device's request limit: the same tap may pass later. An event's cooldown is judged at the tap's
      // own time, so it is a refusal like any other (its details name the event).
      const later = response.status >= 500 || (response.status === 429 && !(error && error.details && error.details.event));
      if (later) { result.waiting = taps.length - i; return result; }
      const message = error ? error.message : "the server refused it (" + response.status + ")";
      await run(REFUSED, "readwrite", (s) => s.put({ id: tap.id, label: tap.label, at: tap.at, message: message }));
      await remove(STORE, tap.id);
      result.refused++;
    }
    return result;
  }
  root.DoseTapQueue = { add: add, waiting: () => all(STORE), refused: () => all(REFUSED), dismiss: (id) => remove(REFUSED, id), replay: replay, queueable: (action) => !!ROUTES[action] };
})(typeof window === "undefined" ? self : window);
