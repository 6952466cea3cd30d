public import Foundation

/// What changed the supply: a refill from the pharmacy, or a correction (a spill, a count of the bottles).
public enum InventoryKind: String, Sendable, Codable, CaseIterable {
    case refill = "refill_logged"
    case adjustment = "inventory_adjustment"
}

/// One entry of the supply ledger. A refill adds mL; an adjustment either adds or removes mL (`changeML`) or states
/// what a count of the bottles found (`countedML`), which the ledger then trusts over everything before it.
public struct InventoryEntry: Hashable, Sendable, Identifiable {
    /// Its id.
    public var id: String
    /// Refill or adjustment.
    public var kind: InventoryKind
    /// When it happened.
    public var occurredAt: Date
    /// The zone in use then.
    public var timeZoneID: String
    /// mL added (positive) or removed (negative); nil for a count.
    public var changeML: Double?
    /// The mL a count found; nil for a change.
    public var countedML: Double?
    /// Bottles of a refill, when it was logged in bottles.
    public var bottles: Int?
    /// Why (a refill's pharmacy note, an adjustment's reason).
    public var reason: String?

    /// An entry; exactly one of `changeML` and `countedML` is set (``InventoryEntry/validated()`` checks it).
    public init(
        id: String, kind: InventoryKind, occurredAt: Date, timeZoneID: String, changeML: Double?, countedML: Double? = nil, bottles: Int? = nil,
        reason: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.occurredAt = occurredAt
        self.timeZoneID = timeZoneID
        self.changeML = changeML
        self.countedML = countedML
        self.bottles = bottles
        self.reason = reason
    }

    /// The most one entry may hold: ten bottles of a litre, far beyond any dispensing.
    public static let largestML = 10_000.0
    /// How many bottles a refill may hold.
    public static let bottlesRange = 1...12

    /// The entry if it is one the ledger can hold, or an error naming the field and what is allowed.
    public func validated() throws(DoseError) -> InventoryEntry {
        var entry = self
        entry.reason = try TextLimits.validated(reason, field: "reason", limit: TextLimits.otherText)
        switch (kind, changeML, countedML) {
        case (.refill, let change?, nil):
            guard change.isFinite, change > 0, change <= Self.largestML else {
                throw .invalidInput(field: "ml", problem: "a refill of \(NumberText.plain(change)) mL", allowed: "more than 0 and at most 10000 mL")
            }
        case (.adjustment, let change?, nil):
            guard change.isFinite, change != 0, abs(change) <= Self.largestML else {
                throw .invalidInput(field: "ml", problem: "a change of \(NumberText.plain(change)) mL", allowed: "-10000 to 10000 mL, not 0")
            }
        case (.adjustment, nil, let counted?):
            guard counted.isFinite, counted >= 0, counted <= Self.largestML else {
                throw .invalidInput(field: "counted_ml", problem: "a count of \(NumberText.plain(counted)) mL", allowed: "0 to 10000 mL")
            }
        case (.refill, _, _):
            throw .invalidInput(field: "ml", problem: "a refill needs the mL (or bottles) it added", allowed: "more than 0 and at most 10000 mL")
        case (.adjustment, _, _):
            throw .invalidInput(
                field: "ml", problem: "an adjustment needs either a change or a count, and not both", allowed: "ml (±mL) or counted_ml (what is left)"
            )
        }
        if let bottles, !Self.bottlesRange.contains(bottles) {
            throw .invalidInput(field: "bottles", problem: "\(bottles) bottles", allowed: "1–12")
        }
        return entry
    }
}

/// A dose as the supply sees it: when, and how much.
public struct DoseUse: Hashable, Sendable {
    public var at: Date
    public var milligrams: Int

    public init(at: Date, milligrams: Int) {
        self.at = at
        self.milligrams = milligrams
    }
}

/// A dose as it was recorded: when, which, and the amount recorded with it (nil for a dose logged before amounts were).
public struct TakenDose: Hashable, Sendable {
    public var at: Date
    public var kind: EventKind
    public var recordedMilligrams: Int?

    public init(at: Date, kind: EventKind, recordedMilligrams: Int?) {
        self.at = at
        self.kind = kind
        self.recordedMilligrams = recordedMilligrams
    }

    /// The amount the supply counts: the one recorded with it, else the profile's for its kind.
    public func use(settings: DoseSettings) -> DoseUse {
        DoseUse(at: at, milligrams: recordedMilligrams ?? (kind == .dose1 ? settings.dose1Milligrams : settings.dose2Milligrams))
    }
}

/// The supply now, worked out from the ledger and the doses taken since it began.
public struct SupplyStatus: Hashable, Sendable {
    /// Whether anything was ever logged; without an entry there is nothing to count down from.
    public var isTracked: Bool
    /// mL in hand (never below 0).
    public var remainingML: Double
    /// mL the logged doses exceed the supply by: a refill or count is missing.
    public var shortfallML: Double
    /// The concentration the figures use.
    public var concentrationMgPerML: Int
    /// What the first night to come takes, at its titration step's amounts.
    public var nightlyMilligrams: Int
    /// mg still owed tonight (Dose 2 of a night whose Dose 1 is taken), already set aside from the nights left.
    public var pendingTonightMilligrams: Int
    /// Full nights the supply covers after tonight's pending dose.
    public var nightsLeft: Int
    /// The first night still to come that needs a full night's supply.
    public var firstNight: SessionKey
    /// The first night the supply cannot cover in full (session date: the evening it starts).
    public var runsOutOn: SessionKey?
    /// The nights left at which the refill reminder starts: the pharmacy lead time plus the margin.
    public var lowThresholdNights: Int
    /// Doses counted against the supply.
    public var dosesCounted: Int
    /// When the ledger begins (its first entry).
    public var trackedSince: Date?

    /// Grams in hand.
    public var remainingGrams: Double { remainingML * Double(concentrationMgPerML) / 1000 }

    /// What an oral syringe and a label can show, for every surface: mL to a tenth, grams to a hundredth.
    public var shown: (ml: Double, grams: Double, shortfallML: Double) {
        ((remainingML * 10).rounded() / 10, (remainingGrams * 100).rounded() / 100, (shortfallML * 10).rounded() / 10)
    }

    /// Whether it is time to order: tracked and no more nights left than the lead time plus the margin.
    public var isLow: Bool { isTracked && nightsLeft <= lowThresholdNights }
}

/// The supply ledger (seed 003 "Inventory Management"): pure, so every surface shows the same figures.
public enum Supply {
    /// Works the supply out.
    ///
    /// Doses before the first entry are not counted: history imported from before the ledger began must not drain it.
    /// A count resets the level to what was counted; doses and changes after it apply on top. A dose's own amount is
    /// used, else the profile's.
    ///
    /// - Parameters:
    ///   - doses: every dose taken (Dose 1, Dose 2, extra doses).
    ///   - firstNight: the first night still to come that needs a full night's supply.
    ///   - pendingTonightMilligrams: what tonight still needs when its Dose 1 is taken but Dose 2 is not.
    public static func status(
        entries: [InventoryEntry], doses: [DoseUse], settings: DoseSettings, firstNight: SessionKey, pendingTonightMilligrams: Int = 0
    ) -> SupplyStatus {
        let ordered = entries.sorted { ($0.occurredAt, $0.id) < ($1.occurredAt, $1.id) }
        let concentration = Double(settings.concentrationMgPerML)
        var level = 0.0
        var counted = 0
        if let start = ordered.first?.occurredAt {
            // Entries and doses in time order; at the same instant the entry first (a count states what is left then).
            var doseIndex = 0
            let uses = doses.filter { $0.at >= start }.sorted { $0.at < $1.at }
            for entry in ordered {
                while doseIndex < uses.count, uses[doseIndex].at < entry.occurredAt {
                    level -= Double(uses[doseIndex].milligrams) / concentration
                    doseIndex += 1
                }
                if let countedML = entry.countedML { level = countedML } else { level += entry.changeML ?? 0 }
            }
            for use in uses[doseIndex...] { level -= Double(use.milligrams) / concentration }
            counted = uses.count
        }
        let remaining = max(0, level)
        let available = remaining * concentration - Double(pendingTonightMilligrams)
        let nights = nightsCovered(by: available, from: firstNight, settings: settings)
        let tracked = !ordered.isEmpty
        return SupplyStatus(
            isTracked: tracked, remainingML: remaining, shortfallML: max(0, -level), concentrationMgPerML: settings.concentrationMgPerML,
            nightlyMilligrams: settings.regimen(on: firstNight).nightlyMilligrams, pendingTonightMilligrams: pendingTonightMilligrams,
            nightsLeft: nights,
            firstNight: firstNight,
            runsOutOn: tracked ? firstNight.adding(days: nights) : nil, lowThresholdNights: settings.pharmacyLeadDays + settings.refillMarginDays,
            dosesCounted: counted, trackedSince: ordered.first?.occurredAt)
    }

    /// The supply at `now` from what is stored: the ledger, the doses taken since it began, and the open night (what it
    /// still owes tonight is set aside).
    public static func status(
        entries: [InventoryEntry], taken: [TakenDose], openNight: (date: SessionKey, facts: NightFacts)?, at now: Date, settings: DoseSettings,
        timeZone: TimeZone
    ) -> SupplyStatus {
        let tonight = Self.tonight(open: openNight, at: now, settings: settings, timeZone: timeZone)
        return status(
            entries: entries, doses: taken.map { $0.use(settings: settings) }, settings: settings, firstNight: tonight.firstNight,
            pendingTonightMilligrams: tonight.pendingMilligrams)
    }

    /// Full nights `milligrams` cover from `first` on, each night at the amounts of its titration step: a stretch between
    /// two steps at a time, then the last step's amounts for ever.
    static func nightsCovered(by milligrams: Double, from first: SessionKey, settings: DoseSettings) -> Int {
        guard milligrams > 0 else { return 0 }
        // A thousandth of a mg of slack: 360 mL at 500 mg/mL is exactly 40 nights of 4.5 g, not 39.999….
        var left = milligrams + 0.001
        var night = first
        var covered = 0
        while true {
            let nightly = Double(max(1, settings.regimen(on: night).nightlyMilligrams))
            let affordable = Int((left / nightly).rounded(.down))
            guard let next = settings.titrationPlan.steps.first(where: { $0.from > night }) else { return covered + affordable }
            let stretch = next.from.days(since: night)
            if affordable < stretch { return covered + affordable }
            covered += stretch
            left -= Double(stretch) * nightly
            night = next.from
        }
    }

    /// The calendar day of an instant in a zone (midnight to midnight, unlike a night's session date).
    public static func calendarDay(of instant: Date, in timeZone: TimeZone) -> SessionKey {
        SessionKey(for: instant, in: timeZone, rolloverHour: 0)
    }

    /// The day a refill reminder is due on, or nil: the supply is low, today's reminder time has passed, and none went
    /// out today. It repeats each day until the supply is no longer low, which a refill (or a count) ends.
    public static func refillReminderDue(
        _ status: SupplyStatus, at now: Date, settings: DoseSettings, timeZone: TimeZone, lastSentOn: SessionKey?
    ) -> SessionKey? {
        guard status.isLow else { return nil }
        let today = calendarDay(of: now, in: timeZone)
        guard lastSentOn.map({ $0 < today }) ?? true else { return nil }
        let time = LocalClock.instant(of: settings.refillReminderTime, onYear: today.year, month: today.month, day: today.day, in: timeZone)
        return now >= time ? today : nil
    }

    /// The words of Tonight's card and, after "DoseTap: ", of the refill reminder.
    public static func lowSupplyMessage(_ status: SupplyStatus, leadDays: Int) -> String {
        let nights =
            status.nightsLeft == 0 ? "not enough for a full night" : status.nightsLeft == 1 ? "1 night left" : "\(status.nightsLeft) nights left"
        let runsOut = status.runsOutOn.map { " (runs out on the night of \($0.description))" } ?? ""
        let lead = leadDays == 1 ? "a day" : "about \(leadDays) days"
        return "Oxybate supply is low — \(nights)\(runsOut). Order a refill now: the pharmacy needs \(lead) to deliver."
    }
}

extension Supply {
    /// The first night still needing a full supply, and what tonight still needs.
    ///
    /// With a night open: if its Dose 1 is taken, tomorrow's night is the first to come and Dose 2 is owed tonight
    /// unless taken or skipped; otherwise tonight is. With no night open, the coming evening's night: today's date, or the
    /// date of the evening now in progress after the 18:00 rollover.
    public static func tonight(
        open: (date: SessionKey, facts: NightFacts)?, at now: Date, settings: DoseSettings, timeZone: TimeZone
    ) -> (firstNight: SessionKey, pendingMilligrams: Int) {
        if let open {
            guard open.facts.dose1 != nil else { return (open.date, 0) }
            // What the night owes is its own Dose 2, at the amount its Dose 1 fixed; a once-nightly night owes nothing.
            let dose2Owed = open.facts.window != nil && open.facts.dose2 == nil && open.facts.skip == nil
            let dose2Amount = open.facts.regimen?.milligrams(ofDose: 2) ?? settings.dose2Milligrams
            return (open.date.adding(days: 1), dose2Owed ? dose2Amount : 0)
        }
        return (max(SessionKey(for: now, in: timeZone), calendarDay(of: now, in: timeZone)), 0)
    }
}
