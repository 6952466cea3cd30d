public import DoseApp
public import DoseCore
import DoseStore
public import Foundation
import Mustache

/// The clinician report: one self-contained HTML file (inline SVG, embedded CSS, no scripts, nothing fetched) with a
/// print stylesheet for A4 or Letter. The Report page and `dosetap report` both write it from the same figures.
public enum ClinicianReport {
    /// The paper the print stylesheet is laid out for.
    public enum Paper: String, Sendable, CaseIterable {
        case a4, letter

        /// A paper by name, case-insensitive; anything else is refused with the names allowed.
        public static func named(_ name: String) throws(DoseError) -> Paper {
            guard let paper = Paper(rawValue: name.lowercased()) else {
                throw .invalidInput(field: "paper", problem: "'\(name)'", allowed: "a4, letter")
            }
            return paper
        }

        /// The CSS `@page` size.
        var cssSize: String { self == .a4 ? "A4" : "letter" }
    }

    /// What the report's own response allows: its inline styles and nothing else (no script, no fetch).
    public static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

    /// What every report says about itself.
    public static let disclaimer =
        "DoseTap is a record-keeping and reminder tool, not a medical device, and this report is not medical advice. Its figures come only "
        + "from what was logged; the time awake after Dose 1 is an estimate from logged events. Discuss any change to the regimen with the "
        + "prescriber."

    /// `DoseTap_Report_2026-10-25_to_2026-11-23.html`.
    public static func fileName(_ period: InsightsPeriod) -> String { "DoseTap_Report_\(period.from)_to_\(period.to).html" }

    /// The report of the period chosen as for `InsightsService.insights`, dated `generatedAt` in `zone`, and the figures
    /// it shows.
    public static func html(
        _ service: InsightsService, nights: Int?, from: SessionKey?, to: SessionKey?, paper: Paper, generatedAt: Date, zone: TimeZone
    ) throws -> (html: String, result: InsightsResult) {
        let (result, rows) = try service.report(nights: nights, from: from, to: to) { record, result in
            ReportView.row(record, targetMinutes: result.settings.targetIntervalMinutes)
        }
        let view = ReportView(result, nights: rows, paper: paper, generatedAt: generatedAt, zone: zone)
        return (Templates.library.render(view, withTemplate: "report") ?? "", result)
    }
}

/// The report's view model: plain text only, escaped by the template.
struct ReportView {
    struct Fact {
        let name, value: String
    }

    struct NightRow {
        let date, dose1, dose2, interval, timing, taken, flags, events, checkIn, sleep: String
        /// Early or late: outside the window, shown as a warning (D18).
        let warning: Bool
    }

    struct Line {
        let date, text: String
    }

    let paperSize: String
    let paperName: String
    let period: String
    let generated: String
    let regimen: [Fact]
    let figures: [InsightFigure]
    let charts: [RenderedChart]
    let nights: [NightRow]
    let hasNights: Bool
    let medications: [Fact]
    let hasMedications: Bool
    let notable: [Line]
    let hasNotable: Bool
    let correlations: [String]
    let hasCorrelations: Bool
    let caveat: String
    let disclaimer: String
    let insufficient: String?

    init(_ result: InsightsResult, nights: [NightRow], paper: ClinicianReport.Paper, generatedAt: Date, zone: TimeZone) {
        let insights = result.insights
        let settings = result.settings
        paperSize = paper.cssSize
        paperName = paper == .a4 ? "A4" : "Letter"
        period =
            "\(insights.period.from) to \(insights.period.to) "
            + "(\(insights.period.length == nil ? "chosen dates" : insights.period.label.lowercased()))"
        generated = "\(ISO8601.string(generatedAt).prefix(10)) \(LocalClock.hourMinute(generatedAt, in: zone)) \(zone.identifier)"
        let tonight = settings.regimen(on: SessionKey(for: generatedAt, in: zone))
        regimen = [
            Fact(
                name: "Medication",
                value: RegimenWords.summary(tonight) + " (tonight; each night's regimen is its own)"
            ),
            Fact(
                name: "Prescribed amounts",
                value:
                    "\(RegimenWords.amounts(tonight)) (\(Self.grams(tonight.nightlyMilligrams)) a night"
                    + (tonight.titrationStep.map { ", titration step of \($0)" } ?? "")
                    + "); each night's amounts as logged are in the table"
            ),
            Fact(
                name: "Titration plan",
                value: settings.titrationPlan.steps.isEmpty
                    ? "none"
                    : settings.titrationPlan.text + " (before the first step: \(RegimenWords.amounts(settings.regimen)))"
            ),
            Fact(
                name: "Target interval",
                value:
                    "\(settings.targetIntervalMinutes) min (on target: within ±\(DoseWindow.onTimeToleranceMinutes) min; early "
                    + "\(RegimenWords.early(.label)), late \(RegimenWords.late(.label)))"
            ),
            Fact(name: "Snoozes", value: settings.allowSnoozing ? "up to \(settings.maxSnoozes) of \(DoseWindow.snoozeMinutes) min a night" : "off"),
            Fact(name: "Time zone", value: zone.identifier),
            Fact(
                name: "Nights recorded",
                value: "\(insights.nightsRecorded) (\(insights.nightsWithDose1) with Dose 1"
                    + (insights.onceNightlyNights > 0 ? ", \(insights.onceNightlyNights) of them once nightly)" : ")")),
        ]
        figures = InsightFigure.all(insights)
        charts = [InsightCharts.interval(insights), InsightCharts.calendar(insights), InsightCharts.wellness(insights)]
        self.nights = nights
        hasNights = !nights.isEmpty
        medications = insights.medications.map { Fact(name: $0.name, value: "\($0.nightsTaken) of \(insights.nightsRecorded) nights") }
        hasMedications = !medications.isEmpty
        notable = insights.notable.map { Line(date: $0.date.description, text: $0.text) }
        hasNotable = !notable.isEmpty
        correlations = insights.shownCorrelations.compactMap(\.sentence)
        hasCorrelations = !correlations.isEmpty
        caveat = FactorComparison.caveat
        disclaimer = ClinicianReport.disclaimer
        let needed = insights.nightsNeeded
        insufficient =
            insights.state == .insufficientData
            ? "Too few nights for the figures to mean much: \(needed) more night\(needed == 1 ? "" : "s") with Dose 1 needed." : nil
    }

    /// The product's name from the catalogue ("XYWAV"), or its id when the catalogue lacks it.
    static func productName(_ id: String) -> String { (try? MedicationCatalogue.medication(id: id).name) ?? id }

    /// Milligrams as grams for a clinician: `2.25 g`.
    static func grams(_ milligrams: Int) -> String { "\(NumberText.plain(Double(milligrams) / 1000)) g" }

    /// One night as a table row, times in the zone each event was logged in.
    static func row(_ record: NightRecord, targetMinutes: Int) -> NightRow {
        let facts = record.session.facts
        // Read per session, not per date: a date with two nights (a nap, an early close) gets each its own figures.
        let night = Adherence.Night(record.session, targetMinutes: targetMinutes)
        func time(_ event: NightEvent?) -> String {
            guard let event else { return "—" }
            return LocalClock.hourMinute(event.occurredAt, in: TimeZone(identifier: event.timeZoneID) ?? TimeZone(secondsFromGMT: 0)!)
        }
        // Flags are what a clinician should notice; the amounts have their own column (Taken).
        var flags: [String] = []
        // D20: a night past its maximum, or with a dose recorded as taken anyway, is the first thing to see.
        // A night from before nights kept their regimen counts the amounts it recorded, against the largest label's maximum.
        let regimen = facts.regimen ?? DoseRegimen(kind: .twiceNightly, product: "", dosesMilligrams: [0], targetMinutes: nil)
        if facts.isPastMaximum(regimen: regimen) {
            flags.append(
                "⚠ past the nightly maximum (\(grams(facts.takenMilligrams(regimen: regimen))) of \(grams(regimen.nightlyMaximumMilligrams)))"
                    + (facts.hasDoseTakenAnyway ? ", recorded as taken anyway" : ""))
        }
        if !facts.extraDoses.isEmpty { flags.append("\(facts.extraDoses.count) extra dose\(facts.extraDoses.count == 1 ? "" : "s")") }
        if facts.snoozes.count > 0 { flags.append("\(facts.snoozes.count) snooze\(facts.snoozes.count == 1 ? "" : "s")") }
        if night?.naturalWake == true { flags.append("natural wake") }
        let doses = [facts.dose1, facts.dose2].compactMap { $0 } + facts.extraDoses
        let taken = doses.compactMap { $0.metadata.amountMilligrams }.map(grams).joined(separator: " + ")
        if let night, night.intervalMinutes != nil, !night.insideWindow, let window = facts.window {
            flags.append("outside \(RegimenWords.minutes(window))")
        }
        var counts: [String: Int] = [:]
        for event in record.session.events {
            if case .sleep = event.kind { counts[event.kind.label, default: 0] += 1 }
        }
        var events = counts.sorted { $0.key < $1.key }.map { $0.value == 1 ? $0.key : "\($0.key) ×\($0.value)" }
        events += record.medications.map { "\($0.name) \($0.doseMg) mg" }
        let checkIn = record.checkIn.map { "quality \($0.sleepQuality)/5, wellness \($0.wellnessScore)" } ?? "—"
        return NightRow(
            date: record.session.date.description, dose1: time(facts.dose1),
            dose2: facts.dose2 != nil
                ? time(facts.dose2)
                : night?.timing == .endedWithoutDose2 ? "not taken" : facts.skip != nil ? (facts.sleptThrough ? "slept through" : "skipped") : "—",
            interval: night?.intervalMinutes.map { "\($0) min" } ?? "—",
            timing: night.map { ($0.timing.isWarning ? "⚠ " : "") + InsightCharts.words($0.timing) } ?? "no Dose 1",
            taken: taken.isEmpty ? "—" : taken,
            flags: flags.isEmpty ? "—" : flags.joined(separator: ", "), events: events.isEmpty ? "—" : events.joined(separator: ", "),
            checkIn: checkIn,
            sleep: record.sleep.map { SleepText.short($0.figures) } ?? "—", warning: night?.timing.isWarning ?? false)
    }
}
