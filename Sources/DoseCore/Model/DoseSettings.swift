public import Foundation

/// A local time of day, `HH:mm`.
public struct ClockTime: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// 0–23.
    public let hour: Int
    /// 0–59.
    public let minute: Int

    /// A time of day; nil when out of range.
    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Parses `H:mm` or `HH:mm`.
    public init?(parsing text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            let hour = Int(parts[0]), let minute = Int(parts[1])
        else { return nil }
        self.init(hour: hour, minute: minute)
    }

    /// Minutes since midnight.
    public var minutesSinceMidnight: Int { hour * 60 + minute }

    public var description: String { String(format: "%02d:%02d", hour, minute) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.minutesSinceMidnight < rhs.minutesSinceMidnight }
}

/// The person's settings, each always within its allowed values (SPEC §3.1).
public struct DoseSettings: Hashable, Sendable, Codable {
    /// Allowed target intervals in minutes.
    public static let targetIntervalOptions = DoseWindow.label.targetOptions
    /// Allowed snooze limits.
    public static let maxSnoozesRange = 1...5
    /// Allowed undo windows in seconds.
    public static let undoWindowOptions = [3, 5, 7, 10]
    /// Allowed missed check-in cutoffs in hours.
    public static let missedCheckinCutoffRange = 1...12
    /// How many events the quick-log grid may hold.
    public static let quickLogRange = 1...16
    /// Allowed wake-alarm re-fire delays in minutes; 0 turns the re-fire off.
    public static let wakeAlarmRefireRange = 0...10
    /// Allowed escalation points, minutes after Dose 1: inside the window, and at least 5 minutes before it closes so
    /// that someone told can still help.
    public static let escalationMinutesRange = DoseWindow.label.escalationMinutes
    /// The formats an escalation contact's URL takes.
    public static let escalationContactFormats = ["ntfy", "json"]
    /// Amounts of one dose in mg that any regimen allows; the product and regimen narrow it (``regimenConflict``).
    public static let doseAmountRange = RegimenCatalogue.smallestDoseMilligrams...RegimenCatalogue.largestDoseMilligrams
    /// Allowed bottle concentrations in mg/mL (XYWAV, Xyrem and the generics are 500).
    public static let concentrationRange = 100...1000
    /// Allowed bottle sizes in mL (XYWAV and Xyrem come in 180 mL).
    public static let bottleRange = 10...1000
    /// Allowed pharmacy lead times and refill margins, in days.
    public static let refillDaysRange = 0...30
    /// The grid of seed 003's Tonight screen.
    public static let defaultQuickLog = ["bathroom", "water", "wake_temp", "lights_out", "anxiety", "dream", "noise", "pain"]

    /// Minutes after Dose 1 at which the wake alarm rings.
    public internal(set) var targetIntervalMinutes = 165
    /// Snoozes allowed per night.
    public internal(set) var maxSnoozes = 3
    /// Whether the person may snooze at all (reminders follow the plan either way).
    public internal(set) var allowSnoozing = true
    /// Seconds during which an action can be undone.
    public internal(set) var undoWindowSeconds = 5
    /// IANA zone used for session keys and every clock time shown.
    public internal(set) var timeZoneID: String
    /// When a new evening begins; an older open session closes then.
    public internal(set) var prepTime = ClockTime(hour: 18, minute: 0)!
    /// Usual bedtime.
    public internal(set) var sleepStart = ClockTime(hour: 21, minute: 0)!
    /// Usual wake time; the missed check-in cutoff counts from it.
    public internal(set) var wakeTime = ClockTime(hour: 7, minute: 0)!
    /// Hours after the wake time at which an unchecked night closes.
    public internal(set) var missedCheckinCutoffHours = 4
    /// Whether reminders ring.
    public internal(set) var remindersEnabled = true
    /// Per-event cooldown overrides in seconds, by wire name.
    public internal(set) var cooldownOverrides: [String: Int] = [:]
    /// The events on Tonight's quick-log grid, by wire name, in order.
    public internal(set) var quickLog = Self.defaultQuickLog
    /// Minutes after the wake alarm at which it rings again on every channel if nobody answered it; 0 is off.
    public internal(set) var wakeAlarmRefireMinutes = 0
    /// Whether the escalation contact is told when Dose 2 is still pending at the escalation point.
    public internal(set) var escalationEnabled = false
    /// The escalation point, minutes after Dose 1 (default: the 15-minute warning).
    public internal(set) var escalationMinutes = DoseWindow.label.nearCloseAfterMinutes
    /// Where the escalation contact is told: an ntfy topic or webhook URL, or empty (push subscriptions of the contact's
    /// phone are the other way).
    public internal(set) var escalationContact = ""
    /// `ntfy` (the message as the body, ntfy's headers) or `json` (a JSON object).
    public internal(set) var escalationContactFormat = "ntfy"
    /// The oxybate product taken, an entry of the regimen catalogue.
    public internal(set) var medicationProduct = "xywav"
    /// Once or twice nightly (D19); a night keeps the one its Dose 1 was taken under.
    public internal(set) var regimenKind = DoseRegimen.Kind.twiceNightly
    /// Dose 1's amount in mg.
    public internal(set) var dose1Milligrams = 2250
    /// Dose 2's amount in mg (an extra dose is counted at this amount too).
    public internal(set) var dose2Milligrams = 2250
    /// Dated steps of amounts that replace Dose 1's and Dose 2's from their nights on; none by default.
    public internal(set) var titrationPlan = TitrationPlan.none
    /// The bottle's concentration in mg/mL.
    public internal(set) var concentrationMgPerML = 500
    /// One bottle's volume in mL.
    public internal(set) var bottleML = 180
    /// Days the specialty pharmacy needs to deliver a refill.
    public internal(set) var pharmacyLeadDays = 5
    /// Days of supply kept in hand on top of the lead time before the refill reminder starts.
    public internal(set) var refillMarginDays = 3
    /// When, each day the supply is low, the refill reminder goes out.
    public internal(set) var refillReminderTime = ClockTime(hour: 10, minute: 0)!
    /// Which wearable speaks for a stretch of sleep where several overlap, by words of their names, first preferred.
    public internal(set) var sleepSourcePriority = SourcePriority.standard

    /// Defaults, in the given zone (the machine's zone is the caller's to find out).
    public init(timeZoneID: String) {
        self.timeZoneID = timeZoneID
    }

    /// The zone of ``timeZoneID``; settings never hold an unknown zone.
    public var timeZone: TimeZone { TimeZone(identifier: timeZoneID) ?? TimeZone(secondsFromGMT: 0)! }

    /// Milligrams a full night takes at the profile's amounts, before any titration step.
    public var nightlyMilligrams: Int { regimen.nightlyMilligrams }

    /// The profile's regimen: the product, once or twice nightly, and Dose 1's and Dose 2's amounts, before any titration
    /// step. A night's own amounts are ``regimen(on:)``'s.
    public var regimen: DoseRegimen {
        DoseRegimen(
            kind: regimenKind, product: medicationProduct, dosesMilligrams: [dose1Milligrams, dose2Milligrams],
            targetMinutes: targetIntervalMinutes)
    }

    /// The regimen a Dose 1 of `night` is taken under: the titration step in force that night, else the profile's.
    public func regimen(on night: SessionKey) -> DoseRegimen {
        guard let step = titrationPlan.step(on: night) else { return regimen }
        return DoseRegimen(
            kind: regimenKind, product: medicationProduct, dosesMilligrams: step.dosesMilligrams, targetMinutes: targetIntervalMinutes,
            titrationStep: step.from)
    }

    /// The titration steps that raise the nightly amount faster than the product's label allows, each with its reason
    /// (``TitrationPlan/fastSteps(startingMilligrams:entry:)``).
    public var fastTitrationSteps: [TitrationPlan.FastStep] {
        guard let entry = RegimenCatalogue.entry(medicationProduct) else { return [] }
        return titrationPlan.fastSteps(startingMilligrams: nightlyMilligrams, entry: entry)
    }

    /// The fast steps these settings have that `before` did not: the ones a change must have confirmed. A step
    /// confirmed once is not asked about again.
    public func fastTitrationSteps(newSince before: DoseSettings) -> [TitrationPlan.FastStep] {
        let known = Set(before.fastTitrationSteps)
        return fastTitrationSteps.filter { !known.contains($0) }
    }

    /// The first way the product, the regimen and the dose amounts disagree, or nil. The product's label decides which
    /// regimens it allows and how large one dose may be; settings changed together are checked together, after all of
    /// them, so a product and its amounts can change in one step.
    public var regimenConflict: DoseError? {
        guard let entry = RegimenCatalogue.entry(medicationProduct) else { return nil }
        guard entry.allows(regimenKind) else {
            return .invalidInput(
                field: SettingKey.regimen.rawValue, problem: "\(entry.kindsReason), not \(RegimenWords.kind(regimenKind))",
                allowed: entry.kinds.map(\.rawValue).joined(separator: " or "))
        }
        let range = entry.doseRange(regimenKind)
        var amounts = [(SettingKey.dose1Milligrams, dose1Milligrams)]
        if regimenKind == .twiceNightly { amounts.append((.dose2Milligrams, dose2Milligrams)) }
        for (key, amount) in amounts where !range.contains(amount) {
            return .invalidInput(
                field: key.rawValue,
                problem:
                    "\(RegimenWords.grams(amount)) is more than one dose of \(RegimenWords.product(medicationProduct)) \(RegimenWords.kind(regimenKind)) "
                    + "may be",
                allowed:
                    "\(range.lowerBound)–\(range.upperBound) mg (\(RegimenWords.grams(range.lowerBound))–\(RegimenWords.grams(range.upperBound)), "
                    + "the largest labelled single dose)")
        }
        for step in titrationPlan.steps {
            let field = SettingKey.titration.rawValue
            guard step.dosesMilligrams.count == regimenKind.doseCount else {
                return .invalidInput(
                    field: field,
                    problem: "the step of \(step.from) has \(step.dosesMilligrams.count == 1 ? "one amount" : "two amounts"), but "
                        + "\(RegimenWords.kind(regimenKind)) has \(regimenKind.doseCount == 1 ? "one dose" : "two doses") a night",
                    allowed: TitrationPlan.allowed)
            }
            if let amount = step.dosesMilligrams.first(where: { !range.contains($0) }) {
                return .invalidInput(
                    field: field,
                    problem: "\(RegimenWords.grams(amount)) in the step of \(step.from) is more than one dose of "
                        + "\(RegimenWords.product(medicationProduct)) \(RegimenWords.kind(regimenKind)) may be",
                    allowed: "amounts of \(RegimenWords.grams(range.lowerBound))–\(RegimenWords.grams(range.upperBound)) a dose")
            }
        }
        return nil
    }

    /// The cooldown of an event type in seconds.
    public func cooldownSeconds(for definition: SleepEventDefinition) -> Int {
        cooldownOverrides[definition.type.rawValue] ?? definition.defaultCooldownSeconds
    }
}

/// A fixed setting's key, in listing order; the per-event `cooldown.EVENT` keys come after them.
public enum SettingKey: String, Sendable, CaseIterable {
    case targetInterval = "target_interval"
    case maxSnoozes = "max_snoozes"
    case allowSnoozing = "allow_snoozing"
    case undoWindowSeconds = "undo_window_seconds"
    case timeZone = "time_zone"
    case prepTime = "prep_time"
    case sleepStart = "sleep_start"
    case wakeTime = "wake_time"
    case missedCheckinCutoffHours = "missed_checkin_cutoff_hours"
    case remindersEnabled = "reminders_enabled"
    case quickLog = "quick_log"
    case wakeAlarmRefireMinutes = "wake_alarm_refire_minutes"
    case escalationEnabled = "escalation_enabled"
    case escalationMinutes = "escalation_minutes"
    case escalationContact = "escalation_contact"
    case escalationContactFormat = "escalation_contact_format"
    case medicationProduct = "medication_product"
    case regimen
    case dose1Milligrams = "dose1_mg"
    case dose2Milligrams = "dose2_mg"
    case titration
    case concentration = "concentration_mg_per_ml"
    case bottleML = "bottle_ml"
    case pharmacyLeadDays = "pharmacy_lead_days"
    case refillMarginDays = "refill_margin_days"
    case refillReminderTime = "refill_reminder_time"
    case sleepSourcePriority = "sleep_source_priority"
}

/// The settings as keys and text values, for the CLI, the API and storage.
extension DoseSettings {
    /// The fixed keys, in listing order; `cooldown.EVENT` keys come after them.
    public static let keys = SettingKey.allCases.map(\.rawValue)

    /// What JSON type a setting's value takes in the API: a whole number, true/false, or text (`quick_log` also as a
    /// list of event names). The text form of `settings set` is the CLI's; JSON clients send the typed value.
    public enum ValueKind: Sendable {
        case whole, boolean, text, eventList
    }

    /// The refusal of a key that is not a setting, listing the ones that are.
    public static func unknownKey(_ key: String) -> DoseError {
        .invalidInput(field: "setting", problem: "'\(key)' is not a setting", allowed: (keys + ["cooldown.EVENT"]).joined(separator: ", "))
    }

    /// The value kind of a key, or nil when it is not a setting.
    public static func valueKind(of key: String) -> ValueKind? {
        switch SettingKey(rawValue: key) {
        case .targetInterval, .maxSnoozes, .undoWindowSeconds, .missedCheckinCutoffHours, .wakeAlarmRefireMinutes, .escalationMinutes,
            .dose1Milligrams, .dose2Milligrams, .concentration, .bottleML, .pharmacyLeadDays, .refillMarginDays:
            .whole
        case .allowSnoozing, .remindersEnabled, .escalationEnabled: .boolean
        case .timeZone, .prepTime, .sleepStart, .wakeTime, .escalationContact, .escalationContactFormat, .medicationProduct, .refillReminderTime,
            .sleepSourcePriority, .regimen, .titration:
            .text
        case .quickLog: .eventList
        case nil: key.hasPrefix(cooldownPrefix) ? .whole : nil
        }
    }

    /// Prefix of the per-event cooldown keys.
    public static let cooldownPrefix = "cooldown."

    /// The key a setting is stored under: `cooldown.Brief Wake` → `cooldown.wake_temp`; other keys as given.
    public static func canonicalKey(_ key: String, catalogue: SleepEventCatalogue = .standard) throws(DoseError) -> String {
        guard key.hasPrefix(cooldownPrefix) else { return key }
        return cooldownPrefix + (try catalogue.resolve(String(key.dropFirst(cooldownPrefix.count)))).type.rawValue
    }

    /// Every key and its value, cooldowns for each event of the catalogue included.
    public func listing(catalogue: SleepEventCatalogue = .standard) -> [(key: String, value: String)] {
        var rows = Self.keys.map { (key: $0, value: (try? value(of: $0, catalogue: catalogue)) ?? "") }
        for definition in catalogue.definitions {
            rows.append((Self.cooldownPrefix + definition.type.rawValue, String(cooldownSeconds(for: definition))))
        }
        return rows
    }

    /// The text value of one key.
    public func value(of key: String, catalogue: SleepEventCatalogue = .standard) throws(DoseError) -> String {
        switch SettingKey(rawValue: key) {
        case .targetInterval: return String(targetIntervalMinutes)
        case .maxSnoozes: return String(maxSnoozes)
        case .allowSnoozing: return String(allowSnoozing)
        case .undoWindowSeconds: return String(undoWindowSeconds)
        case .timeZone: return timeZoneID
        case .prepTime: return prepTime.description
        case .sleepStart: return sleepStart.description
        case .wakeTime: return wakeTime.description
        case .missedCheckinCutoffHours: return String(missedCheckinCutoffHours)
        case .remindersEnabled: return String(remindersEnabled)
        case .quickLog: return quickLog.joined(separator: ",")
        case .wakeAlarmRefireMinutes: return String(wakeAlarmRefireMinutes)
        case .escalationEnabled: return String(escalationEnabled)
        case .escalationMinutes: return String(escalationMinutes)
        case .escalationContact: return escalationContact
        case .escalationContactFormat: return escalationContactFormat
        case .medicationProduct: return medicationProduct
        case .regimen: return regimenKind.rawValue
        case .dose1Milligrams: return String(dose1Milligrams)
        case .dose2Milligrams: return String(dose2Milligrams)
        case .titration: return titrationPlan.text
        case .concentration: return String(concentrationMgPerML)
        case .bottleML: return String(bottleML)
        case .pharmacyLeadDays: return String(pharmacyLeadDays)
        case .refillMarginDays: return String(refillMarginDays)
        case .refillReminderTime: return refillReminderTime.description
        case .sleepSourcePriority: return sleepSourcePriority.words.joined(separator: ",")
        case nil:
            let definition = try cooldownDefinition(for: key, catalogue: catalogue)
            return String(cooldownSeconds(for: definition))
        }
    }

    /// A copy with one key changed, or an error naming the key and its allowed values; never a silent reset.
    /// Long by design: one case per setting, so every key's rule and allowed values sit side by side and a new key is
    /// one more case beside them.
    public func setting(_ key: String, to rawValue: String, catalogue: SleepEventCatalogue = .standard) throws(DoseError) -> DoseSettings {
        var copy = self
        let text = rawValue.trimmingCharacters(in: .whitespaces)
        func invalid(_ allowed: String) -> DoseError {
            .invalidInput(field: key, problem: "'\(rawValue)' is not allowed", allowed: allowed)
        }
        switch SettingKey(rawValue: key) {
        case .targetInterval:
            guard let minutes = Int(text), Self.targetIntervalOptions.contains(minutes) else {
                throw invalid(Self.targetIntervalOptions.map(String.init).joined(separator: ", ") + " (minutes)")
            }
            copy.targetIntervalMinutes = minutes
        case .maxSnoozes:
            guard let count = Int(text), Self.maxSnoozesRange.contains(count) else { throw invalid("1–5") }
            copy.maxSnoozes = count
        case .allowSnoozing, .remindersEnabled, .escalationEnabled:
            guard let flag = Self.parseBool(text) else { throw invalid("true or false") }
            switch SettingKey(rawValue: key) {
            case .allowSnoozing: copy.allowSnoozing = flag
            case .remindersEnabled: copy.remindersEnabled = flag
            default: copy.escalationEnabled = flag
            }
        case .undoWindowSeconds:
            guard let seconds = Int(text), Self.undoWindowOptions.contains(seconds) else { throw invalid("3, 5, 7, 10") }
            copy.undoWindowSeconds = seconds
        case .timeZone:
            guard TimeZone(identifier: text) != nil, text.contains("/") || text == "UTC" else {
                throw invalid("an IANA time zone such as Europe/Paris or America/New_York")
            }
            copy.timeZoneID = text
        case .prepTime, .sleepStart, .wakeTime, .refillReminderTime:
            guard let time = ClockTime(parsing: text) else { throw invalid("a time of day HH:mm, 00:00–23:59") }
            switch SettingKey(rawValue: key) {
            case .prepTime: copy.prepTime = time
            case .sleepStart: copy.sleepStart = time
            case .refillReminderTime: copy.refillReminderTime = time
            default: copy.wakeTime = time
            }
        case .missedCheckinCutoffHours:
            guard let hours = Int(text), Self.missedCheckinCutoffRange.contains(hours) else { throw invalid("1–12 (hours)") }
            copy.missedCheckinCutoffHours = hours
        case .quickLog:
            let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let allowed = "1–16 different events from the catalogue, comma-separated (e.g. bathroom,water,wake_temp)"
            var events: [String] = []
            for name in names {
                guard let definition = try? catalogue.resolve(name) else {
                    throw .invalidInput(field: key, problem: "'\(name)' is not an event of the catalogue", allowed: allowed)
                }
                guard !events.contains(definition.type.rawValue) else {
                    throw .invalidInput(field: key, problem: "'\(name)' is listed twice", allowed: allowed)
                }
                events.append(definition.type.rawValue)
            }
            guard Self.quickLogRange.contains(events.count) else {
                throw .invalidInput(field: key, problem: "\(events.count) events", allowed: allowed)
            }
            copy.quickLog = events
        case .wakeAlarmRefireMinutes:
            guard let minutes = Int(text), Self.wakeAlarmRefireRange.contains(minutes) else { throw invalid("0 (off) or 1–10 (minutes)") }
            copy.wakeAlarmRefireMinutes = minutes
        case .escalationMinutes:
            guard let minutes = Int(text), Self.escalationMinutesRange.contains(minutes) else {
                throw invalid("\(Self.escalationMinutesRange.lowerBound)–\(Self.escalationMinutesRange.upperBound) (minutes after Dose 1)")
            }
            copy.escalationMinutes = minutes
        case .escalationContact:
            guard rawValue.count <= 500, text.isEmpty || Self.isContactURL(text) else {
                throw invalid("an http(s) URL with a host, such as an ntfy topic https://ntfy.sh/partner-topic or a webhook, or empty for none")
            }
            copy.escalationContact = text
        case .escalationContactFormat:
            guard Self.escalationContactFormats.contains(text) else { throw invalid(Self.escalationContactFormats.joined(separator: " or ")) }
            copy.escalationContactFormat = text
        case .medicationProduct:
            guard let entry = RegimenCatalogue.entry(text) else {
                throw .invalidInput(
                    field: key, problem: "'\(rawValue)' is not an oxybate DoseTap times",
                    allowed: RegimenCatalogue.entries.map { "\($0.product) (\(RegimenWords.product($0.product)))" }.joined(separator: ", "))
            }
            copy.medicationProduct = entry.product
            // A product whose label allows one regimen brings it (Lumryz is once nightly); one that allows both keeps
            // the person's.
            if !entry.allows(copy.regimenKind) { copy.regimenKind = entry.kinds[0] }
        case .regimen:
            guard let kind = DoseRegimen.Kind(rawValue: text.lowercased()) else {
                throw invalid(DoseRegimen.Kind.allCases.map(\.rawValue).joined(separator: " or "))
            }
            copy.regimenKind = kind
        case .dose1Milligrams, .dose2Milligrams:
            let range = Self.doseAmountRange
            guard let milligrams = Int(text), range.contains(milligrams) else {
                throw invalid(
                    "\(range.lowerBound)–\(range.upperBound) mg (\(RegimenWords.grams(range.lowerBound))–\(RegimenWords.grams(range.upperBound)), "
                        + "the largest labelled single dose of any regimen)")
            }
            if SettingKey(rawValue: key) == .dose1Milligrams { copy.dose1Milligrams = milligrams } else { copy.dose2Milligrams = milligrams }
        case .titration:
            guard rawValue.count <= 4000 else { throw invalid(TitrationPlan.allowed) }
            copy.titrationPlan = try TitrationPlan(parsing: rawValue, field: key)
        case .concentration, .bottleML, .pharmacyLeadDays, .refillMarginDays:
            let setting = SettingKey(rawValue: key)!
            let (range, unit): (ClosedRange<Int>, String) =
                switch setting {
                case .concentration: (Self.concentrationRange, "mg/mL")
                case .bottleML: (Self.bottleRange, "mL")
                default: (Self.refillDaysRange, "days")
                }
            guard let number = Int(text), range.contains(number) else { throw invalid("\(range.lowerBound)–\(range.upperBound) (\(unit))") }
            switch setting {
            case .concentration: copy.concentrationMgPerML = number
            case .bottleML: copy.bottleML = number
            case .pharmacyLeadDays: copy.pharmacyLeadDays = number
            default: copy.refillMarginDays = number
            }
        case .sleepSourcePriority:
            copy.sleepSourcePriority = try SourcePriority(setting: text, field: key)
        case nil:
            let definition = try cooldownDefinition(for: key, catalogue: catalogue)
            guard let seconds = Int(text), SleepEventCatalogue.cooldownRange.contains(seconds) else {
                throw invalid("0–3600 (seconds)")
            }
            copy.cooldownOverrides[definition.type.rawValue] = seconds
        }
        return copy
    }

    private func cooldownDefinition(for key: String, catalogue: SleepEventCatalogue) throws(DoseError) -> SleepEventDefinition {
        guard key.hasPrefix(Self.cooldownPrefix) else { throw Self.unknownKey(key) }
        return try catalogue.resolve(String(key.dropFirst(Self.cooldownPrefix.count)))
    }

    /// An http or https URL with a host, of at most 500 characters, with no spaces or credentials.
    static func isContactURL(_ text: String) -> Bool {
        guard text.count <= 500, !text.contains(where: { $0.isWhitespace }), let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = components.host, !host.isEmpty,
            components.user == nil, components.password == nil
        else { return false }
        return true
    }

    private static func parseBool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "on", "yes", "1": true
        case "false", "off", "no", "0": false
        default: nil
        }
    }
}
