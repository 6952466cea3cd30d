public import DoseCore
import Foundation

/// One supply entry, as the API and `--json` show it.
public struct InventoryEntryResponse: Encodable, Sendable {
    var id, kind: String
    var occurredAt: Date
    var timeZone: String
    var changeML, countedML: Double?
    var bottles: Int?
    var reason: String?

    enum CodingKeys: String, CodingKey {
        case id, kind, occurredAt = "occurred_at", timeZone = "time_zone", changeML = "change_ml", countedML = "counted_ml", bottles, reason
    }

    /// The response for an entry.
    public init(_ entry: InventoryEntry) {
        (id, kind, occurredAt, timeZone) = (entry.id, entry.kind.rawValue, entry.occurredAt, entry.timeZoneID)
        (changeML, countedML, bottles, reason) = (entry.changeML, entry.countedML, entry.bottles, entry.reason)
    }
}

/// The supply: its figures, the words for them, and the ledger.
public struct SupplyResponse: Encodable, Sendable {
    var tracked, low: Bool
    var product: String
    var remainingML, remainingGrams, shortfallML: Double
    var concentrationMgPerML, nightlyMg, pendingTonightMg, nightsLeft, lowThresholdNights, dosesCounted: Int
    var runsOutOn: String?
    var summary: String
    var entries: [InventoryEntryResponse]

    enum CodingKeys: String, CodingKey {
        case tracked, low, product, remainingML = "remaining_ml", remainingGrams = "remaining_g", shortfallML = "shortfall_ml"
        case concentrationMgPerML = "concentration_mg_per_ml", nightlyMg = "nightly_mg", pendingTonightMg = "pending_tonight_mg"
        case nightsLeft = "nights_left", lowThresholdNights = "low_threshold_nights", dosesCounted = "doses_counted", runsOutOn = "runs_out_on"
        case summary, entries
    }

    /// The response for a report.
    public init(_ report: SupplyReport) {
        let status = report.status
        (tracked, low, product) = (status.isTracked, status.isLow, report.settings.medicationProduct)
        (remainingML, remainingGrams, shortfallML) = status.shown
        (concentrationMgPerML, nightlyMg, pendingTonightMg) = (status.concentrationMgPerML, status.nightlyMilligrams, status.pendingTonightMilligrams)
        (nightsLeft, lowThresholdNights, dosesCounted) = (status.nightsLeft, status.lowThresholdNights, status.dosesCounted)
        runsOutOn = status.runsOutOn?.description
        summary = SupplyText.summary(report)
        entries = report.entries.reversed().map(InventoryEntryResponse.init)
    }
}

/// The supply in words, the same on every surface.
public enum SupplyText {
    /// One entry of the ledger: `Refill +360 mL (2 bottles)`, `Adjusted −10 mL`, `Counted: 150 mL left`.
    public static func entry(_ entry: InventoryEntry) -> String {
        if let counted = entry.countedML { return "Counted: \(NumberText.plain(counted)) mL left" }
        let change = entry.changeML ?? 0
        if entry.kind == .refill {
            return "Refill +\(NumberText.plain(change)) mL" + (entry.bottles.map { " (\($0) bottle\($0 == 1 ? "" : "s"))" } ?? "")
        }
        return "Adjusted \(change > 0 ? "+" : "−")\(NumberText.plain(abs(change))) mL"
    }

    /// One or two sentences: what is in hand, how long it lasts, and whether to order.
    public static func summary(_ report: SupplyReport) -> String {
        let status = report.status
        guard status.isTracked else {
            return "No supply logged yet. Log a refill (the bottles you have now) and DoseTap counts each dose down from it."
        }
        let ml = NumberText.plain(status.shown.ml)
        let grams = NumberText.plain(status.shown.grams)
        var text = "\(ml) mL (\(grams) g) of \(report.productName) left: "
        text += status.nightsLeft == 1 ? "1 full night" : "\(status.nightsLeft) full nights"
        text += " at \(RegimenWords.grams(status.nightlyMilligrams)) a night"
        if let runsOut = status.runsOutOn, report.settings.titrationPlan.steps.contains(where: { $0.from < runsOut && $0.from > status.firstNight }) {
            text += ", then as the titration plan's steps say"
        }
        if let runsOut = status.runsOutOn { text += "; it runs out on the night of \(runsOut)" }
        text += "."
        if status.pendingTonightMilligrams > 0 { text += " Tonight's Dose 2 is already set aside." }
        if status.shortfallML > 0 {
            text +=
                " The doses logged use \(NumberText.plain(status.shown.shortfallML)) mL more than the supply recorded: count the bottles and "
                + "log what is left."
        }
        if status.isLow {
            text +=
                " Order a refill now: the pharmacy needs about \(report.settings.pharmacyLeadDays) days, and you keep "
                + "\(report.settings.refillMarginDays) days in hand."
        }
        return text
    }
}

/// A supply entry just written or deleted, and the supply after it.
public struct SupplyEntryResponse: Encodable, Sendable {
    var entry: InventoryEntryResponse
    var supply: SupplyResponse

    public init(entry: InventoryEntryResponse, supply: SupplyResponse) {
        self.entry = entry
        self.supply = supply
    }
}
