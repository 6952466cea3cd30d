"use strict";
(function () {
  const announce = (text) => { const node = document.getElementById("announcer"); if (node) { node.textContent = ""; setTimeout(() => { node.textContent = text; }, 50); } };
  const pad = (n) => String(n).padStart(2, "0");
  const format = (seconds) => { seconds = Math.max(0, Math.floor(seconds)); const h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60; return (h ? h + ":" + pad(m) : m) + ":" + pad(s); };
  const ring = document.querySelector("[data-ring]");
  // The dose action kept on this phone while the server cannot be reached (offline), once there is one.
  let keptDose = null;
  // Set by the service worker on a Tonight it kept from the last visit: the server cannot be reached.
  const offlineSince = document.documentElement.dataset.offlineSince;
  const store = (key, value) => { try { if (value === undefined) return localStorage.getItem(key); localStorage.setItem(key, value); } catch (e) { return null; } };
  const liveNow = (document.querySelector("[data-live]") || { dataset: {} }).dataset.now;
  // The server's clock minus this phone's, learnt online from the page and kept for offline use (tests run the server on
  // --now; a phone a few minutes off still counts the undo window and the ring right).
  const drawnAt = ring ? ring.dataset.now : liveNow;
  let skew = drawnAt ? Date.now() - Date.parse(drawnAt) : 0;
  if (offlineSince) skew = Number(store("dosetap-skew") || 0); else if (drawnAt) store("dosetap-skew", String(skew));
  const periods = window.DoseTapPeriods ? DoseTapPeriods.fromPage(document) : [];
  const hhmm = (date) => pad(date.getHours()) + ":" + pad(date.getMinutes());
  // Offline, the ring follows the periods the server sent, on this phone's clock: to the window's opening, then to
  // its close; after that it says the window has closed. The rules stay on the server.
  function offlineRing(now) {
    const period = DoseTapPeriods.at(periods, now);
    if (!period || (period.kind !== "before_window" && period.kind !== "window")) {
      const caption = ring.querySelector("[data-caption]"), label = ring.querySelector("[data-countdown]");
      if (label) label.textContent = "—";
      if (caption) caption.textContent = period ? "the window has closed" : "";
      return null;
    }
    const caption = ring.querySelector("[data-caption]");
    if (caption) caption.textContent = period.kind === "window" ? "left to take Dose 2" : "until Dose 2 opens";
    return { start: Date.parse(period.kind === "window" ? period.from : periods[0].from), end: Date.parse(period.until) };
  }
  // Said to screen readers once each: the window opening, 30, 15, 5 and 1 minutes before its close, and the close.
  const cues = [["open", 0, "The Dose 2 window is open."], ["30", 30, "30 minutes left to take Dose 2."], ["15", 15, "15 minutes left to take Dose 2."],
    ["5", 5, "5 minutes left to take Dose 2."], ["1", 1, "1 minute left to take Dose 2."], ["close", 0, "The Dose 2 window has closed."]];
  function windowCues(now) {
    const window_ = periods.find((p) => p.kind === "window");
    if (!window_) return;
    const opens = Date.parse(window_.from), closes = Date.parse(window_.until), key = "dosetap-cues-" + window_.from;
    const said = (store(key) || "").split(",");
    for (const [name, minutes, words] of cues) {
      const at = name === "open" ? opens : closes - minutes * 60000;
      if (now >= at && now < at + 60000 && !said.includes(name)) { said.push(name); store(key, said.join(",")); announce(words); }
    }
    document.body.classList.toggle("urgent", now >= closes - 30 * 60000 && now < closes);
  }
  function tick() {
    if (!ring || keptDose) return;
    const now = Date.now() - skew;
    windowCues(now);
    let start = Date.parse(ring.dataset.start), end = Date.parse(ring.dataset.end);
    if (offlineSince) { const span = offlineRing(now); if (!span) return; start = span.start; end = span.end; }
    const left = (end - now) / 1000, total = (end - start) / 1000;
    const label = ring.querySelector("[data-countdown]");
    if (label) label.textContent = format(left);
    const progress = ring.querySelector(".progress");
    if (progress) { const length = Number(progress.dataset.length); progress.style.strokeDashoffset = String(length * Math.min(1, Math.max(0, 1 - left / total))); }
    const near = ring.dataset.near && now >= Date.parse(ring.dataset.near), final = ring.dataset.final && now >= Date.parse(ring.dataset.final);
    const level = final ? "final" : near ? "near" : "";
    if (level && !ring.classList.contains(level)) {
      ring.classList.remove("near", "final"); ring.classList.add(level);
      const words = final ? "Under 5 minutes left: take Dose 2 now or skip it." : "Under 15 minutes left: snooze is off.";
      let urgency = document.querySelector("[data-urgency]");
      if (!urgency) { urgency = document.createElement("p"); urgency.className = "urgency"; urgency.dataset.urgency = ""; ring.after(urgency); }
      urgency.textContent = words; announce(words);
    }
    if (left <= 0 && !offlineSince && !ring.dataset.reloaded) { ring.dataset.reloaded = "1"; setTimeout(() => location.reload(), 1500); }
  }
  if (ring) { tick(); setInterval(tick, 1000); }
  // The night's stretches (before the window, the window, after it, past the expiry) as the server drew them: at each
  // boundary the heading, the big button and its words change with the periods, online or off (period.js).
  const variants = Array.from(document.querySelectorAll("[data-variant]"));
  const heading = document.querySelector("main h1");
  function showVariant() {
    if (variants.length < 2 || !window.DoseTapPeriods || keptDose) return;
    const now = Date.now() - skew, period = DoseTapPeriods.at(periods, now);
    const next = period && variants.find((v) => v.dataset.variant === period.kind);
    if (!next) return;
    const near = next.dataset.nearAt && now >= Date.parse(next.dataset.nearAt);
    const words = near ? next.dataset.nearHeading : next.dataset.heading;
    if (heading && words && heading.textContent !== words) heading.textContent = words;
    if (!next.hidden) return;
    variants.forEach((v) => { v.hidden = v !== next; });
    announce(words || "");
  }
  if (variants.length > 1) { showVariant(); setInterval(showVariant, 1000); }
  const live = document.querySelector("[data-live]");
  // A grantee's Tonight for someone who shares with them sends its calls to that person's routes (/v1/people/{id}).
  const here = live ? live.dataset : {}, api = here.api || "/v1", home = here.home || "/", grantee = "grantee" in here;
  const queue = window.DoseTapQueue && window.indexedDB && live ? window.DoseTapQueue : null;
  const banner = document.getElementById("offline-banner");
  const zoneName = ((document.querySelector("[data-periods]") || {}).dataset || {}).zone;
  const local = (date) => { try { return date.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: zoneName }); } catch (e) { return hhmm(date); } };
  const csrfToken = () => { const field = document.querySelector("input[name=csrf]"); return field ? field.value : ""; };
  // A line on the offline banner, said to screen readers too.
  const say = (words) => { if (banner) { banner.textContent = words; banner.hidden = false; } announce(words); };
  // What is waiting on this phone, and what the server refused on replay: said on Tonight, loudly for a refusal.
  async function showQueue(lead) {
    if (!queue || !banner) return;
    const waiting = await queue.waiting().catch(() => []), refused = await queue.refused().catch(() => []);
    const parts = lead ? [lead] : [];
    if (waiting.length) parts.push(waiting.length + (waiting.length === 1 ? " action is" : " actions are") + " waiting to be saved: " + waiting.map((t) => t.label + " " + local(new Date(t.at))).join(", ") + ".");
    if (parts.length) { banner.textContent = parts.join(" "); banner.hidden = false; }
    const list = document.getElementById("refused-replays");
    if (list) {
      list.replaceChildren(...refused.map((tap) => {
        const item = document.createElement("p"); item.className = "notice refusal"; item.setAttribute("role", "alert");
        item.textContent = "Not recorded: " + tap.label + " tapped at " + local(new Date(tap.at)) + ". " + tap.message + " ";
        const dismiss = document.createElement("button"); dismiss.type = "button"; dismiss.className = "button"; dismiss.textContent = "Dismiss";
        dismiss.onclick = () => queue.dismiss(tap.id).then(() => item.remove());
        item.appendChild(dismiss); return item;
      }));
      if (refused.length) { announce(list.textContent); cue("error"); if (window.DoseTapTap) DoseTapTap.hold(list); }
    }
  }
  // Offline, once a dose action is kept on the phone, Tonight says so where the dose was offered, and offers no dose:
  // the ring and the alarm line stop saying it is due.
  async function showKept() {
    if (!queue) return;
    const waiting = await queue.waiting().catch(() => []);
    const tap = waiting.find((t) => t.action === "dose1" || t.action === "dose2" || t.action === "skip");
    if (!tap) return;
    keptDose = tap;
    const what = tap.action === "skip" ? "Skipping Dose 2" : tap.label;
    const sentence = what + " kept on this phone at " + local(new Date(tap.at)) + "; it will be sent when DoseTap's server is back.";
    document.querySelectorAll("[data-variant]").forEach((variant) => {
      const spot = variant.querySelector("[data-spot]"), row = variant.querySelector("[data-row]");
      const words = document.createElement("p"); words.className = "spot-text kept"; words.dataset.kept = ""; words.textContent = sentence;
      if (spot) spot.replaceChildren(words);
      if (row) row.replaceChildren();
    });
    const alarms = document.querySelector("[data-alarms]");
    if (alarms) alarms.textContent = what + " kept on this phone, so its alarm has stopped here; it is sent when DoseTap's server is back.";
    if (ring) {
      const caption = ring.querySelector("[data-caption]"), label = ring.querySelector("[data-countdown]");
      if (caption) caption.textContent = "kept on this phone";
      if (label) label.textContent = local(new Date(tap.at));
      ring.setAttribute("aria-label", sentence);
    }
    const urgency = document.querySelector("[data-urgency]");
    if (urgency) urgency.textContent = "";
    announce(sentence);
  }
  // Online again: send what waited, oldest first, then show tonight as the server now has it.
  async function replay() {
    if (!queue) return;
    const result = await queue.replay(csrfToken()).catch(() => null);
    if (result && result.saved) { try { sessionStorage.setItem("dosetap-replayed", result.savedLabels.join(", ")); } catch (e) {} }
    if (result && (result.saved || result.refused)) location.reload();
  }
  // What the last replay saved, said once on the page it reloaded.
  let replayed = null;
  try { replayed = sessionStorage.getItem("dosetap-replayed"); sessionStorage.removeItem("dosetap-replayed"); } catch (e) {}
  if (replayed && banner && !offlineSince) say("Saved: " + replayed + ".");
  if (offlineSince) {
    // "Since" is the server's own time when it drew this copy, in the night's zone, like every other time on the page.
    const drawn = ring ? new Date(Date.parse(ring.dataset.now)) : new Date(Date.parse(offlineSince) - skew);
    const words = "Offline: no news from DoseTap's server since " + (isNaN(drawn) ? "the last visit" : local(drawn)) + ". The countdown runs on this phone.";
    say(words);
    showQueue(words).then(showKept);
    // A tap is kept on the phone with its time; a Dose 2 outside the window asks first, from the periods the server sent.
    document.querySelectorAll("form[action$='/ui/act']").forEach((form) => form.addEventListener("submit", (event) => {
      event.preventDefault(); event.stopImmediatePropagation();
      const action = (form.querySelector("[name=action]") || {}).value, label = (form.querySelector("button[type=submit]") || {}).textContent || action;
      // The phone's queue replays as its own person; a tap for someone else waits for the server instead.
      if (!queue || grantee || !queue.queueable(action)) { say(label.trim() + " needs the server: not saved. Try again when it is back."); cue("error"); return; }
      const now = Date.now() - skew, given = Array.from(form.querySelectorAll("[name=confirm]")).map((i) => i.value);
      const keep = (confirm) => queue.add({ action: action, event: (form.querySelector("[name=event]") || {}).value, confirm: confirm, at: new Date(now).toISOString(), label: action === "log" || action === "wake" ? label.trim() : null, csrf: csrfToken() })
        .then((tap) => showQueue("Kept on this phone: " + tap.label + " at " + local(new Date(tap.at)) + ". It is sent when DoseTap's server is back.").then(showKept))
        .catch((error) => {
          // One dose action of a kind waits at most: a second tap is never a second dose.
          if (error && error.waiting) { say(error.waiting.label + " is already waiting to be sent (tapped at " + local(new Date(error.waiting.at)) + "); nothing more was kept."); cue("warning"); return; }
          say("Not kept: this browser cannot keep it offline."); cue("error");
        });
      // Asks as the page would online, the safe choice filled; yes keeps the tap with the confirmations it needs.
      const ask = (risk, yesLabel, noLabel, needed) => {
        const dialog = document.getElementById("risk-dialog");
        if (!dialog || !dialog.showModal) return;
        dialog.querySelector("[data-risk-text]").textContent = risk;
        const yes = dialog.querySelector("[data-risk-yes]"), no = dialog.querySelector("[data-risk-no]"), skip = dialog.querySelector("[data-risk-skip]");
        yes.textContent = yesLabel; no.textContent = noLabel; skip.hidden = true;
        openDialog(dialog, no);
        yes.onclick = () => { dialog.close(); keep(given.concat(needed)); };
        no.onclick = () => dialog.close();
      };
      const current = window.DoseTapPeriods ? DoseTapPeriods.at(periods, now) : null;
      // Every Wake Up asks offline as it does online: D16 while Dose 2 is still to take, by the periods the server sent;
      // D15 within 2 hours of Dose 2, as the page was drawn.
      const isWake = action === "wake" || (action === "log" && (form.querySelector("[name=event]") || {}).value === "wake_final");
      if (isWake && current && current.kind !== "expired" && !given.includes("end_night")) {
        ask("Dose 2 is not taken or skipped yet. Logging Wake Up now would end the night and cancel its Dose 2 alarms.", "End the night", "Keep the night", ["end_night"]);
        return;
      }
      if (isWake && form.dataset.confirm === "early_wake" && !given.includes("early_wake")) { ask(form.dataset.risk, "Yes, I'm up", "Keep sleeping", ["early_wake"]); return; }
      const period = action === "dose2" ? current : null;
      const needed = period ? period.confirm.filter((c) => !given.includes(c)) : [];
      if (!needed.length) { keep(given); return; }
      const risk = { before_window: "The Dose 2 window opens at " + local(new Date(period.until)) + ". Taking Dose 2 early is unsafe.",
        after_window: "The Dose 2 window closed at " + local(new Date(period.from)) + ". Taking Dose 2 this late can leave you drowsy into the day.",
        expired: "Dose 2 counts as skipped since " + local(new Date(period.from)) + ", when tonight's window ran out. Taking it now is very late." }[period.kind];
      ask(risk, "Take it anyway", "Cancel", needed);
    }, true));
    // Back online: send what waited, then load the real Tonight.
    const retry = () => fetch("/health", { cache: "no-store" }).then((r) => { if (r.ok) return replay().then(() => location.reload()); }).catch(() => {});
    window.addEventListener("online", retry);
    setInterval(retry, 30000);
  } else if (queue) {
    showQueue("");
    replay();
  }
  // A question opened by a tap (D15): at the top of the screen, far from the control that opened it; it takes no answer in
  // its first second, and an answer that came to lie under the settling finger stays hidden until the tap has settled.
  function openDialog(dialog, safe) {
    const answers = Array.from(dialog.querySelectorAll("button"));
    answers.forEach((button) => { button.disabled = true; });
    dialog.showModal();
    if (window.DoseTapTap) DoseTapTap.hold(dialog);
    dialog.dataset.answering = "";
    setTimeout(() => { answers.forEach((button) => { button.disabled = false; }); delete dialog.dataset.answering; safe.focus(); }, 1000);
  }
  // An invitation's link: copied, or handed to the phone's share sheet (each only where the browser can).
  document.querySelectorAll("[data-copy]").forEach((button) => {
    if (!navigator.clipboard || !window.isSecureContext) return;
    button.hidden = false;
    button.addEventListener("click", () => navigator.clipboard.writeText(button.dataset.copy)
      .then(() => { button.textContent = "Copied"; announce("The invitation link is copied."); })
      .catch(() => { button.textContent = "Copy failed: select the link"; }));
  });
  document.querySelectorAll("[data-share]").forEach((button) => {
    if (!navigator.share) return;
    button.hidden = false;
    button.addEventListener("click", () => navigator.share({ title: "DoseTap invitation", text: "An invitation to DoseTap", url: button.dataset.share }).catch(() => {}));
  });
  // Setup and Settings: a product whose label allows one regimen chooses it (Lumryz is once nightly); the server applies
  // the same rule without script.
  document.querySelectorAll("[data-products] input[name=medication_product]").forEach((product) => product.addEventListener("change", () => {
    const kinds = (product.dataset.kinds || "").split(",").filter(Boolean);
    const chosen = document.querySelector("input[name=regimen]:checked");
    if (kinds.length && (!chosen || !kinds.includes(chosen.value))) {
      const only = document.querySelector("input[name=regimen][value='" + kinds[0] + "']");
      if (only) { only.checked = true; announce(product.parentElement.textContent.trim() + " is taken " + only.parentElement.textContent.trim().toLowerCase() + "."); }
    }
  }));
  const undo = document.querySelector("[data-undo-until]");
  if (undo) {
    const until = Date.parse(undo.dataset.undoUntil), label = undo.querySelector("[data-undo-count]");
    const step = () => { const left = Math.ceil((until - (Date.now() - skew)) / 1000); if (left <= 0) { const form = undo.querySelector("form"); if (form) form.remove(); return; } if (label) label.textContent = left + " s"; setTimeout(step, 250); };
    step();
  }
  // Risk dialogs: the safe choice (Cancel, or Skip after the window) is the filled button; the risky one is outlined.
  document.querySelectorAll("form[data-risk]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (form.dataset.confirmed) return;
      event.preventDefault();
      const dialog = document.getElementById("risk-dialog");
      if (!dialog || !dialog.showModal) { form.dataset.confirmed = "1"; form.submit(); return; }
      dialog.querySelector("[data-risk-text]").textContent = form.dataset.risk;
      const yes = dialog.querySelector("[data-risk-yes]"), no = dialog.querySelector("[data-risk-no]"), skip = dialog.querySelector("[data-risk-skip]");
      yes.textContent = form.dataset.yes || "Take it anyway";
      no.textContent = form.dataset.no || "Cancel";
      skip.hidden = !("offerSkip" in form.dataset);
      openDialog(dialog, no);
      yes.onclick = () => { dialog.close(); const input = document.createElement("input"); input.type = "hidden"; input.name = "confirm"; input.value = form.dataset.confirm; form.appendChild(input); form.dataset.confirmed = "1"; form.submit(); };
      no.onclick = () => dialog.close();
      skip.onclick = () => { dialog.close(); const action = form.querySelector("[name=action]"); action.value = "skip"; form.dataset.confirmed = "1"; form.submit(); };
    });
  });
  const refusalBanner = document.querySelector("[data-banner]");
  if (refusalBanner) announce(refusalBanner.textContent);
  let audio;
  // One tone: `frequency` Hz at `gain`, `delay` s from now for `length` s. Sound is a help, never a requirement.
  function tone(frequency, gain, delay = 0, length = 1.2, type = "sine") {
    try {
      audio = audio || new AudioContext();
      const o = audio.createOscillator(), g = audio.createGain();
      o.type = type; o.frequency.value = frequency; g.gain.value = gain;
      o.connect(g); g.connect(audio.destination); o.start(audio.currentTime + delay); o.stop(audio.currentTime + delay + length);
    } catch (e) {}
  }
  const ring_alarm = () => tone(660, 0.2);
  if (window.EventSource && document.body.querySelector("[data-live]")) {
    const source = new EventSource(api + "/stream");
    source.addEventListener("reminder", (event) => {
      const notice = JSON.parse(event.data);
      announce(notice.message);
      if (notice.rings && "rings" in here) startAlarm();
      if (window.Notification && Notification.permission === "granted") new Notification("DoseTap", { body: notice.message });
      // In the notices, where it moves nothing: an alarm rings while a finger may be on its way to a button.
      const banner = document.getElementById("reminder-banner"), text = banner && banner.querySelector("[data-reminder-text]");
      if (text) { text.textContent = notice.message; banner.hidden = false; }
      // An alarm may ring just after a tap (an undone Dose 2 brings its alarms back): its I'm up must not appear under
      // that finger while it settles.
      if (banner && window.DoseTapTap) DoseTapTap.hold(banner);
    });
    // This page's access ended (its device was unpaired, or the person's share was revoked): the stream says why and
    // closes; the page says so and takes no more taps.
    source.addEventListener("ended", (event) => {
      let message = "This page no longer has access.";
      try { message = JSON.parse(event.data).message || message; } catch (e) {}
      source.close();
      const notices = document.querySelector("[data-notices]"), line = document.createElement("p");
      line.className = "refusal"; line.setAttribute("role", "alert"); line.dataset.ended = ""; line.textContent = message;
      if (notices) notices.replaceChildren(line);
      document.querySelectorAll("[data-live] form button, [data-live] a.button").forEach((node) => { node.disabled = true; node.setAttribute("aria-disabled", "true"); node.classList.add("ended"); });
      document.body.dataset.ended = "";
      announce(message);
      cue("error");
    });
    // A tap being sent brings tonight back itself, with its Undo; the change it causes must not reload this page
    // first, which would cancel that answer and lose the Undo (seen in CI: Dose 1 saved, no snackbar).
    let leaving = false;
    window.addEventListener("beforeunload", () => { leaving = true; source.close(); });
    // Another phone, the CLI or a link changed tonight: show it, unless a decision is open on this page.
    source.addEventListener("status", (event) => {
      const live = document.querySelector("[data-live]"), change = JSON.parse(event.data);
      if (!leaving && live && live.dataset.revision !== change.revision && !document.querySelector("dialog[open], [data-question-layer]")) location.reload();
    });
  }
  const importer = document.querySelector("form[data-import]");
  if (importer) importer.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = importer.querySelector("input[type=file]").files[0], report = importer.querySelector("[data-import-report]");
    if (!file) { report.textContent = "Choose a file first."; return; }
    report.textContent = "Importing…";
    try {
      const response = await fetch("/v1/import", { method: "POST", body: file, headers: { "X-CSRF-Token": importer.querySelector("[name=csrf]").value } });
      const body = await response.json();
      if (!response.ok) { report.textContent = body.error ? body.error.message : "The import failed; nothing was changed."; return; }
      const total = (counts) => Object.values(counts).reduce((sum, n) => sum + n, 0);
      report.textContent = "Imported " + total(body.imported) + " rows, skipped " + total(body.skipped) + " already present, rejected " + body.rejected.length + ".";
    } catch (e) { report.textContent = "The import failed; nothing was changed."; }
  });
  // Over plain HTTP the browser withholds notifications, the wake lock and offline use; Settings says so.
  const insecure = document.getElementById("insecure-context");
  if (insecure && window.isSecureContext === false) insecure.hidden = false;
  const enable = document.querySelector("[data-enable-alarms]");
  // Sound needs one tap on the page before the browser allows it; notifications need permission.
  if (enable && (window.Notification || window.AudioContext)) {
    enable.hidden = false;
    enable.addEventListener("click", () => { if (window.Notification) Notification.requestPermission(); ring_alarm(); enable.textContent = "Alarms on"; enable.setAttribute("aria-label", "Alarms on"); enable.disabled = true; announce("Alarms on"); });
  }
  // Sound cues (seed 003): a rising pair for a saved action, a falling pair for a refusal, a low buzz for an error.
  // Per device, on unless turned off on Settings.
  const soundsOn = () => store("dosetap-sounds") !== "off";
  function cue(kind) {
    if (!soundsOn()) return;
    const notes = { success: [[660, 0], [880, 0.12]], warning: [[660, 0], [440, 0.16]], error: [[220, 0], [220, 0.2]] }[kind];
    for (const [frequency, delay] of notes) tone(frequency, 0.15, delay, 0.12, kind === "error" ? "square" : "sine");
  }
  if (location.search.includes("did=")) cue("success");
  if (refusalBanner) cue("warning");
  const soundToggle = document.querySelector("[data-sounds]");
  if (soundToggle) {
    soundToggle.hidden = false;
    const box = soundToggle.querySelector("input");
    box.checked = soundsOn();
    box.addEventListener("change", () => { store("dosetap-sounds", box.checked ? "on" : "off"); if (box.checked) cue("success"); });
  }
  // The alarm rings louder and more often until someone answers it: any action, or "I'm up" (which records nothing).
  const imUpRow = document.querySelector("[data-imup]");
  let alarmTimer = null, alarmStep = 0;
  function stopAlarm() { if (alarmTimer) clearTimeout(alarmTimer); alarmTimer = null; alarmStep = 0; if (imUpRow) imUpRow.hidden = true; document.body.dataset.alarm = "answered"; }
  function startAlarm() {
    if (alarmTimer) return;
    if (imUpRow) imUpRow.hidden = false;
    document.body.dataset.alarm = "ringing";
    const ringOnce = () => {
      alarmStep++;
      tone(660, Math.min(1, 0.2 + 0.1 * alarmStep));
      if (navigator.vibrate) navigator.vibrate([400, 200, 400]);
      document.body.dataset.alarmRings = String(alarmStep);
      alarmTimer = setTimeout(ringOnce, Math.max(2000, 8000 - 1000 * alarmStep));
    };
    ringOnce();
  }
  // "I'm up" is recorded as the answer to tonight's alarms (from this page, or from a notification that opened it).
  const acknowledge = (via) => fetch(api + "/alarm/ack", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() },
    body: JSON.stringify(via ? { via: via } : {}) }).catch(() => {});
  const imUp = document.querySelector("[data-imup]");
  if (imUp) imUp.addEventListener("click", () => { stopAlarm(); acknowledge(); announce("Alarm answered."); });
  const asked = new URLSearchParams(location.search);
  if (asked.get("ack") === "push" && live && !offlineSince) { acknowledge("push"); history.replaceState(null, "", home); }
  // A notification's Take Dose 2 that the rules call risky opens Tonight here, at the same dialog a tap would show.
  if (asked.get("ask") === "take" && live) {
    history.replaceState(null, "", home);
    const form = Array.from(document.querySelectorAll("form[data-risk]")).find((f) => (f.querySelector("[name=action]") || {}).value === "dose2");
    if (form && form.requestSubmit) form.requestSubmit(); else say("Take Dose 2 from here if it is still time; the notification could not.");
  }
  document.querySelectorAll("form").forEach((form) => form.addEventListener("submit", stopAlarm));
  // Nightstand: while Dose 2 is to take and the page is visible, keep the screen on; where the browser will not, say
  // so and name what reaches a sleeping phone instead.
  const nightOpen = !!(live && live.hasAttribute("data-night-open"));
  const lockLine = document.querySelector("[data-wakelock]");
  let lock = null;
  async function holdScreen() {
    if (!nightOpen || document.visibilityState !== "visible" || lock || !lockLine) return;
    const fallback = " Keep this page open and the phone plugged in; push alarms (Settings) and ntfy or webhook reminders reach a sleeping phone.";
    if (!("wakeLock" in navigator)) { lockLine.textContent = "This browser cannot keep the screen on." + fallback; lockLine.hidden = false; document.body.dataset.wakeLock = "unsupported"; return; }
    try {
      lock = await navigator.wakeLock.request("screen");
      lock.addEventListener("release", () => { lock = null; document.body.dataset.wakeLock = "released"; });
      lockLine.textContent = "The screen stays on until Dose 2."; lockLine.hidden = false; document.body.dataset.wakeLock = "held";
    } catch (e) {
      lockLine.textContent = "This browser refused to keep the screen on (" + e.name + ")." + fallback; lockLine.hidden = false; document.body.dataset.wakeLock = "refused";
    }
  }
  document.addEventListener("visibilitychange", holdScreen);
  holdScreen();
  const nightstand = document.querySelector("[data-nightstand]");
  if (nightstand) {
    const apply = (on) => { document.body.classList.toggle("nightstand", on); nightstand.setAttribute("aria-pressed", String(on)); nightstand.textContent = on ? "Full view" : "Dim"; };
    apply(store("dosetap-nightstand") === "on");
    nightstand.addEventListener("click", () => { const on = !document.body.classList.contains("nightstand"); store("dosetap-nightstand", on ? "on" : "off"); apply(on); });
  }
  // The installed app: the worker keeps the shell and the last Tonight (browsers allow it only in a secure context).
  if ("serviceWorker" in navigator && window.isSecureContext) navigator.serviceWorker.register("/sw.js").catch(() => {});
  const testReport = document.querySelector("[data-test-report]");
  if (testReport && !testReport.hidden) testReport.scrollIntoView({ block: "center" });
  // The test alarm rings on this page itself (the tap allows its sound), then says what every other channel did. Sent
  // without leaving the page, so the page asking is an open page; without script the form posts as before.
  document.querySelectorAll("form[data-test-alarm]").forEach((form) => form.addEventListener("submit", async (event) => {
    if (!window.fetch || !testReport) return;
    event.preventDefault();
    [0, 0.5, 1].forEach((delay) => tone(660, 0.3, delay, 0.35));
    if (navigator.vibrate) navigator.vibrate([400, 200, 400]);
    const list = testReport.querySelector("ul") || testReport;
    const show = (lines) => { list.replaceChildren(...lines.map((line) => { const item = document.createElement("li"); item.textContent = line; return item; })); testReport.hidden = false; announce(lines.join(" ")); };
    show(["This page: ringing now. Sending to the other channels…"]);
    try {
      const response = await fetch("/v1/alarm/test", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() }, body: "{}" });
      const report = await response.json();
      if (!response.ok) { show(["This page: rang.", (report.error || {}).message || "The server refused the test."]); return; }
      show(["This page: rang (you should have heard it).", report.message].concat(report.lines || []));
    } catch (e) { show(["This page: rang.", "DoseTap's server could not be reached, so no other channel was tried."]); }
    testReport.scrollIntoView({ block: "center" });
  }));
  // Settings: Web Push on this phone, for tonight's alarms or as the escalation contact's phone.
  const pushBox = document.querySelector("[data-push]");
  if (pushBox) {
    const status = pushBox.querySelector("[data-push-status]");
    const tell = (words) => { status.textContent = words; announce(words); };
    if (!window.isSecureContext) tell("Push alarms need this page over HTTPS (see /setup).");
    else if (!("serviceWorker" in navigator) || !("PushManager" in window) || !window.Notification) tell("This browser cannot take push alarms. Keep Tonight open, or use ntfy.");
    else {
      pushBox.querySelectorAll("[data-push-subscribe]").forEach((button) => {
        button.hidden = false;
        button.addEventListener("click", async () => {
          const role = button.dataset.pushSubscribe;
          try {
            if (await Notification.requestPermission() !== "granted") { tell("Notifications are blocked for this site: allow them in the browser's site settings, then try again."); return; }
            const registration = await navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready);
            const key = Uint8Array.from(atob(pushBox.dataset.vapidKey.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
            let subscription = await registration.pushManager.getSubscription();
            // One made for another key (before Clear All Data) cannot be used: replace it.
            if (subscription && subscription.options && subscription.options.applicationServerKey
                && btoa(String.fromCharCode(...new Uint8Array(subscription.options.applicationServerKey))) !== btoa(String.fromCharCode(...key))) {
              await subscription.unsubscribe(); subscription = null;
            }
            // A browser whose push service cannot be reached never answers: say so rather than wait all night.
            const late = new Promise((resolve, reject) => setTimeout(() => reject(Object.assign(new Error("its push service did not answer within 20 s; is the phone online?"), { name: "Timeout" })), 20000));
            tell("Asking this browser's push service…");
            subscription = subscription || await Promise.race([registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }), late]);
            const body = Object.assign(subscription.toJSON(), { role: role });
            const response = await fetch("/v1/push/subscriptions", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": pushBox.dataset.csrf }, body: JSON.stringify(body) });
            const answer = await response.json().catch(() => ({}));
            if (!response.ok) { tell("Not subscribed: " + ((answer.error || {}).message || "the server refused it.")); return; }
            tell(role === "contact" ? "This phone will be told if Dose 2 is still pending at the escalation point." : "This phone will get tonight's alarms. Send a test alarm to be sure.");
            setTimeout(() => location.reload(), 1500);
          } catch (error) { tell("This browser could not subscribe (" + (error.name || "error") + ": " + (error.message || "") + ")."); }
        });
      });
    }
  }
})();
