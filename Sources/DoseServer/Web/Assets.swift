/// The web UI's stylesheet and script, compiled into the binary.
enum Assets {
    /// True black, a red night palette, targets of at least 48 px, contrast of at least 7:1 on actions
    /// (#ff6b5f on black is 7.5:1; black on #ff6b5f the same).
    static let css = """
        :root { --bg: #000; --fg: #ffb3ab; --accent: #ff6b5f; --muted: #d98f86; --line: #5c1f1a; --warn: #ffd0c9; }
        * { box-sizing: border-box; }
        html, body { margin: 0; background: var(--bg); color: var(--fg); font: 17px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
        body { min-height: 100vh; padding: env(safe-area-inset-top) 0 env(safe-area-inset-bottom); }
        a { color: var(--accent); }
        .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .tabs { display: flex; justify-content: space-around; border-bottom: 1px solid var(--line); }
        .tabs a { flex: 1; text-align: center; padding: 14px 2px; min-height: 48px; text-decoration: none; color: var(--muted); font-size: 15px; }
        .tabs a[aria-current="page"] { color: var(--accent); border-bottom: 3px solid var(--accent); }
        main { max-width: 480px; margin: 0 auto; padding: 10px 14px; }
        h1 { font-size: 20px; margin: 4px 0 8px; color: var(--fg); text-align: center; }
        h2 { font-size: 17px; margin: 14px 0 6px; }
        .ring { display: block; margin: 0 auto; width: 160px; height: 160px; }
        .ring .track { stroke: var(--line); }
        .ring .progress { stroke: var(--accent); transition: stroke-dashoffset 1s linear; }
        .ring text { fill: var(--fg); font-size: 26px; text-anchor: middle; }
        .ring .small { font-size: 13px; fill: var(--muted); }
        .times { text-align: center; color: var(--muted); margin: 2px 0 8px; font-size: 15px; }
        .button, button { display: inline-flex; align-items: center; justify-content: center; min-height: 48px; min-width: 48px; padding: 0 18px;
            border-radius: 12px; border: 2px solid var(--accent); background: var(--bg); color: var(--accent); font-size: 17px; font-weight: 600; cursor: pointer; }
        .button.primary { background: var(--accent); color: #000; width: 100%; min-height: 64px; font-size: 21px; }
        .row { display: flex; gap: 8px; margin: 8px 0; }
        .row > * { flex: 1 1 0; }
        .row.compact .button, .row.compact button { font-size: 15px; padding: 0 2px; white-space: nowrap; }
        button[disabled] { opacity: 0.5; border-style: dashed; cursor: not-allowed; }
        [data-undo-count] { margin-left: 6px; }
        a.button { text-decoration: none; }
        .row .button, .row button { width: 100%; }
        form.inline { margin: 0; }
        .grid { display: grid; grid-template-columns: repeat(4, 1fr); gap: 6px; margin: 8px 0; }
        .grid .button { width: 100%; padding: 0 4px; font-size: 14px; font-weight: 500; }
        .grid.dense { gap: 4px; margin: 4px 0; }
        fieldset { border: 1px solid var(--line); border-radius: 12px; margin: 12px 0; padding: 8px; }
        .checks { display: grid; grid-template-columns: repeat(2, 1fr); gap: 4px; }
        label.check { display: flex; align-items: center; gap: 8px; min-height: 48px; margin: 0; }
        label.check input { width: 24px; min-height: 24px; }
        .night { border-bottom: 1px solid var(--line); padding: 4px 0; }
        .night h2 { display: flex; justify-content: space-between; }
        .events { font-size: 14px; color: var(--muted); margin: 4px 0; }
        .grid.dense .button { font-size: 13px; }
        [data-live]:has(.grid.dense) .ring { width: 110px; height: 110px; }
        [data-live]:has(.grid.dense) .times { margin: 0 0 4px; }
        .notice { border: 2px solid var(--accent); border-radius: 12px; padding: 10px 12px; margin: 8px 0; color: var(--warn); }
        .warning { color: var(--warn); font-size: 15px; margin: 4px 0; }
        .snackbar { display: flex; align-items: center; justify-content: space-between; gap: 8px; border: 1px solid var(--line); border-radius: 12px; padding: 6px 10px; margin: 8px 0; }
        dialog { background: #000; color: var(--fg); border: 2px solid var(--accent); border-radius: 14px; max-width: 360px; }
        table { width: 100%; border-collapse: collapse; font-size: 15px; }
        td, th { border-bottom: 1px solid var(--line); padding: 6px 4px; text-align: left; }
        label { display: block; margin: 8px 0 4px; }
        input, select, textarea { background: #000; color: var(--fg); border: 1px solid var(--accent); border-radius: 8px; min-height: 44px; padding: 6px 8px; font-size: 17px; width: 100%; }
        .chart rect { fill: var(--accent); }
        .chart .target { stroke: var(--warn); stroke-dasharray: 4 4; }
        .chart text { fill: var(--muted); font-size: 11px; }
        """

    /// Live countdown, screen-reader announcements, alarms from the reminder stream, the undo countdown, and
    /// confirmation dialogs that name the risk. Everything works without it.
    static let javascript = """
        "use strict";
        (function () {
          const announce = (text) => { const node = document.getElementById("announcer"); if (node) { node.textContent = ""; setTimeout(() => { node.textContent = text; }, 50); } };
          const pad = (n) => String(n).padStart(2, "0");
          const format = (seconds) => { seconds = Math.max(0, Math.floor(seconds)); const h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60; return (h ? h + ":" + pad(m) : m) + ":" + pad(s); };
          const ring = document.querySelector("[data-ring]");
          const skew = ring ? Date.now() - Date.parse(ring.dataset.now) : 0;
          function tick() {
            if (!ring) return;
            const now = Date.now() - skew, start = Date.parse(ring.dataset.start), end = Date.parse(ring.dataset.end);
            const left = (end - now) / 1000, total = (end - start) / 1000;
            const label = ring.querySelector("[data-countdown]");
            if (label) label.textContent = format(left);
            const progress = ring.querySelector(".progress");
            if (progress) { const length = Number(progress.dataset.length); progress.style.strokeDashoffset = String(length * Math.min(1, Math.max(0, 1 - left / total))); }
            if (left <= 0 && !ring.dataset.reloaded) { ring.dataset.reloaded = "1"; setTimeout(() => location.reload(), 1500); }
          }
          if (ring) { tick(); setInterval(tick, 1000); }
          const undo = document.querySelector("[data-undo-until]");
          if (undo) {
            const until = Date.parse(undo.dataset.undoUntil), label = undo.querySelector("[data-undo-count]");
            const step = () => { const left = Math.ceil((until - (Date.now() - skew)) / 1000); if (left <= 0) { undo.remove(); return; } if (label) label.textContent = left + " s"; setTimeout(step, 250); };
            step();
          }
          document.querySelectorAll("form[data-risk]").forEach((form) => {
            form.addEventListener("submit", (event) => {
              if (form.dataset.confirmed) return;
              event.preventDefault();
              const dialog = document.getElementById("risk-dialog");
              if (!dialog || !dialog.showModal) { form.dataset.confirmed = "1"; form.submit(); return; }
              dialog.querySelector("[data-risk-text]").textContent = form.dataset.risk;
              dialog.showModal();
              dialog.querySelector("[data-risk-yes]").onclick = () => { dialog.close(); const input = document.createElement("input"); input.type = "hidden"; input.name = "confirm"; input.value = form.dataset.confirm; form.appendChild(input); form.dataset.confirmed = "1"; form.submit(); };
              dialog.querySelector("[data-risk-no]").onclick = () => dialog.close();
            });
          });
          let audio;
          function ring_alarm() {
            try { audio = audio || new AudioContext(); const o = audio.createOscillator(), g = audio.createGain(); o.frequency.value = 660; g.gain.value = 0.2; o.connect(g); g.connect(audio.destination); o.start(); o.stop(audio.currentTime + 1.2); } catch (e) {}
          }
          if (window.EventSource && document.body.querySelector("[data-live]")) {
            const source = new EventSource("/v1/stream");
            source.addEventListener("reminder", (event) => {
              const notice = JSON.parse(event.data);
              announce(notice.message);
              if (notice.rings) ring_alarm();
              if (window.Notification && Notification.permission === "granted") new Notification("DoseTap", { body: notice.message });
              const banner = document.getElementById("reminder-banner");
              if (banner) { banner.textContent = notice.message; banner.hidden = false; }
            });
            // Another phone, the CLI or a link changed tonight: show it, unless a decision is open on this page.
            source.addEventListener("status", (event) => {
              const live = document.querySelector("[data-live]"), change = JSON.parse(event.data);
              if (live && live.dataset.revision !== change.revision && !document.querySelector("dialog[open]")) location.reload();
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
          const enable = document.querySelector("[data-enable-alarms]");
          // Sound needs one tap on the page before the browser allows it; notifications need permission.
          if (enable && (window.Notification || window.AudioContext)) {
            enable.hidden = false;
            enable.addEventListener("click", () => { if (window.Notification) Notification.requestPermission(); ring_alarm(); enable.textContent = "Alarms on"; enable.setAttribute("aria-label", "Alarms on"); enable.disabled = true; announce("Alarms on"); });
          }
        })();
        """
}
