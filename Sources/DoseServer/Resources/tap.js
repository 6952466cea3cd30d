"use strict";
// One tap, one action (D15), on every page. A half-asleep finger taps twice, up to 2.5 s apart, and the second tap lands
// where the first did, often on the page the first tap brought. So for 3 s after a tap on a control:
//   - a tap within that control's area or 48 px around it does nothing, on this page or the next;
//   - on the next page, a control there that was there before the tap is held (it looks the same and does nothing), and
//     one that was not (Undo, a question's answer, a button the page moved) stays hidden until the 3 s are over.
// The server keeps its own half of the rule: a page drawn after a tap takes no tap but Undo for 3 s, and a question no
// answer in its first second (TapGuard in DoseCore); Tonight's CSS shield holds it even before this script has run.
(function (root) {
  const KEY = "dosetap-last-tap", SETTLE = 3000, MARGIN = 48;
  // What acts: a field, a choice or a disclosure only changes the page, and takes its taps as they come.
  const CONTROLS = "button, a[href], [role=button]";
  const visible = (node) => node.getClientRects().length > 0 && getComputedStyle(node).visibility !== "hidden";
  const box = (node) => {
    const rect = node.getBoundingClientRect();
    return { x: rect.left, y: rect.top, w: rect.width, h: rect.height, text: (node.textContent || node.value || "").trim().slice(0, 60) };
  };
  const near = (zone, x, y) => x >= zone.x - MARGIN && x <= zone.x + zone.w + MARGIN && y >= zone.y - MARGIN && y <= zone.y + zone.h + MARGIN;
  const overlaps = (zone, r) =>
    r.x < zone.x + zone.w + MARGIN && r.x + r.w > zone.x - MARGIN && r.y < zone.y + zone.h + MARGIN && r.y + r.h > zone.y - MARGIN;
  // The last tap while it settles: its time, the tapped control's box, and the controls around it then.
  function last() {
    let tap = null;
    try { tap = JSON.parse(sessionStorage.getItem(KEY) || "null"); } catch (e) {}
    const age = tap ? Date.now() - tap.t : Infinity;
    return age >= 0 && age < SETTLE ? tap : null;
  }
  // Holds the controls under the settling finger: the same ones inert, new ones hidden, until the tap has settled.
  function hold(scope) {
    const tap = last();
    if (!tap) return;
    const held = [];
    (scope || document).querySelectorAll(CONTROLS).forEach((node) => {
      if (!visible(node) || node.closest(".tap-new, .tap-held")) return;
      const mine = box(node);
      if (!overlaps(tap.zone, mine)) return;
      const same = (tap.around || []).some((r) => Math.abs(r.x - mine.x) < 4 && Math.abs(r.y - mine.y) < 4 && r.text === mine.text);
      node.classList.add(same ? "tap-held" : "tap-new");
      node.setAttribute("aria-disabled", "true");
      held.push(node);
    });
    if (!held.length) return;
    setTimeout(() => held.forEach((node) => { node.classList.remove("tap-held", "tap-new"); node.removeAttribute("aria-disabled"); }),
      Math.max(0, SETTLE - (Date.now() - tap.t)));
  }
  document.addEventListener("click", (event) => {
    const control = event.target.closest && event.target.closest(CONTROLS);
    if (!control) return;
    // A click from the keyboard has no point: it is where its control is.
    const own = box(control), x = event.detail === 0 ? own.x + own.w / 2 : event.clientX, y = event.detail === 0 ? own.y + own.h / 2 : event.clientY;
    const tap = last();
    if ((tap && near(tap.zone, x, y)) || control.closest(".tap-held, .tap-new")) {
      event.preventDefault(); event.stopImmediatePropagation();
      return;
    }
    const around = Array.from(document.querySelectorAll(CONTROLS)).filter(visible).map(box).filter((r) => overlaps(own, r));
    try { sessionStorage.setItem(KEY, JSON.stringify({ t: Date.now(), zone: own, around: around })); } catch (e) {}
  }, true);
  // A page the tap brought: hold what is under the finger now, and again as late content (a dialog's answers) appears.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => hold()); else hold();
  root.DoseTapTap = { hold: hold, settle: SETTLE, last: last };
})(window);
