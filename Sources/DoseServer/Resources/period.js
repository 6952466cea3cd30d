"use strict";
// The Dose 2 period at an instant, looked up in the periods the server last sent (its status's dose2_periods, or
// Tonight's [data-periods]). The phone never copies the rules: it only compares its clock with the server's
// instants, `from` inclusive and `until` exclusive, exactly as DoseCore's Dose2Period.period(at:in:) does.
(function (root) {
  function at(periods, now) {
    for (const period of periods) {
      const from = Date.parse(period.from), until = period.until ? Date.parse(period.until) : Infinity;
      if (from <= now && now < until) return period;
    }
    return null;
  }
  // Tonight's periods, read from the page.
  function fromPage(doc) {
    return Array.from(doc.querySelectorAll("[data-periods] i")).map((node) => ({
      kind: node.dataset.kind, from: node.dataset.from, until: node.dataset.until || null,
      confirm: node.dataset.confirm ? node.dataset.confirm.split(",") : [],
    }));
  }
  root.DoseTapPeriods = { at: at, fromPage: fromPage };
})(typeof window === "undefined" ? globalThis : window);
