import DoseApp
import DoseCore
import DoseStore
import Foundation

/// A page that is one form of `Field`s.
struct FormPage {
    let frame: Frame
    let csrf: String
    let fields: [Field]
}

/// The morning check-in: quick questions, then the seed's deep dives behind disclosures.
struct CheckInView {
    /// The answers of a check-in refused because Dose 2 is undecided (D16), carried to the confirming form unchanged.
    struct Answer {
        let name, value: String
    }

    /// Asked after a save that would end the night with Dose 2 undecided: "Keep the night" is the filled choice.
    struct Question {
        let text: String
        let answers: [Answer]
    }

    let frame: Frame
    let csrf: String
    let night: String?
    /// While Dose 2 is undecided: where it stands, said before anything is typed.
    var pending: String?
    var question: Question?
    /// The quick questions (a section without a title, so the `fields` partial finds them).
    let quick: CheckInForm.Section
    let sections: [CheckInForm.Section]
}

/// Other medications: choose one (oxybate is logged on Tonight), then a dose.
struct MedicationsView {
    struct Entry {
        let id: String
        let name: String
    }

    struct Dose {
        let value: String
        let label: String
    }

    struct Chosen {
        let id, name: String
        let doses: [Dose]
        let range, minimum, maximum: String
        let units: [String]
    }

    struct Recent {
        let time, name, amount: String
        let note: String?
    }

    let frame: Frame
    let csrf: String
    let catalogue: [Entry]
    let chosen: Chosen?
    let recent: [Recent]
    let hasRecent: Bool

    init(frame: Frame, csrf: String, chosen medication: Medication?, recent records: [MedicationRecord], zone: TimeZone) {
        self.frame = frame
        self.csrf = csrf
        catalogue = MedicationCatalogue.all.filter { $0.category != .sodiumOxybate }.map { Entry(id: $0.id, name: $0.name) }
        chosen = medication.map { medication in
            let range = MedicationCatalogue.acceptedAmounts(for: medication, unit: .mg)
            return Chosen(
                id: medication.id, name: medication.name,
                doses: medication.validDosesMg.map { Dose(value: NumberText.plain($0), label: "\(NumberText.plain($0)) mg") },
                range: range.map { "\(NumberText.plain($0.lowerBound))–\(NumberText.plain($0.upperBound)) mg" } ?? "",
                minimum: NumberText.plain(range?.lowerBound ?? 0), maximum: NumberText.plain(range?.upperBound ?? 0),
                units: DoseUnit.allCases.filter { MedicationCatalogue.acceptedAmounts(for: medication, unit: $0) != nil }.map(\.rawValue))
        }
        hasRecent = !records.isEmpty
        recent = records.map {
            Recent(
                time: "\(SettingsView.day($0.takenAt, zone)) \(WebPages.clock($0.takenAt, zone))", name: $0.medication.name,
                amount: "\(NumberText.plain($0.doseMg)) mg", note: $0.note)
        }
    }
}

/// Tonight's session card (seed: doses, interval, snoozes, window, outcome, flags) above its events.
struct DetailsView {
    struct Fact {
        let name, value: String
    }

    struct Card {
        let date: String
        let outcome: String
        let facts: [Fact]
        let flags: [String]
        let hasFlags: Bool
        var events: [EventLine]
    }

    var frame = Frame("Details", current: "/details")
    let csrf: String
    /// Tonight's revision, sent with each tap of the grid so a tap from an older page does nothing (D15).
    var revision = ""
    /// Where the page's taps go: "" for the person's own, `/people/{id}` for someone who shares with them.
    var base = ""
    var card: Card?
    var grid: [TonightView.GridItem]
    /// The night's alarm log, one line per reminder.
    let alarms: [String]
    let hasAlarms: Bool
    /// The night drawn on a time axis.
    let timeline: RenderedChart?
    /// The wearable sleep of the night, when some was imported.
    let hypnogram: RenderedChart?
    /// Which night: tonight, or a date of the record.
    let heading: String
    /// Whether the night shown is tonight's (the event grid logs to it).
    let isTonight: Bool
    /// Whether the page offers the event grid: tonight's, to someone who may log on it.
    var logsHere: Bool

    init(_ snapshot: StatusSnapshot, csrf: String, alarms: AlarmLogResponse? = nil, sleep: NightSleep? = nil, givenBy: String? = nil) {
        self.init(
            session: snapshot.session, status: snapshot.status, settings: snapshot.settings, zone: snapshot.timeZone, csrf: csrf, alarms: alarms,
            sleep: sleep, heading: "Tonight in detail", givenBy: givenBy)
        revision = String(snapshot.revision)
    }

    init(
        session: NightSession?, status: NightStatus, settings: DoseSettings, zone: TimeZone, csrf: String, alarms log: AlarmLogResponse?,
        sleep: NightSleep?, heading: String, givenBy: String? = nil
    ) {
        let alarms = log?.lines ?? []
        self.csrf = csrf
        self.heading = heading
        timeline = session.flatMap { session in
            NightTimeline.chart(session, naps: HistoryStore.naps(in: session.events), targetMinutes: settings.targetIntervalMinutes, zone: zone)
        }
        hypnogram = session.flatMap { session in sleep.map { Hypnogram.chart($0, session: session, zone: zone, alarms: log?.marks ?? []) } }
        self.alarms = alarms
        hasAlarms = !alarms.isEmpty
        // The grid logs to tonight, so a past night's page does not offer it.
        isTonight = session.map { $0.isOpen } ?? true
        // Its Wake Up asks as Tonight's does (D15, D16).
        let wake = TonightView.wake(status, zone: zone)
        grid =
            isTonight
            ? SleepEventCatalogue.standard.definitions.map {
                TonightView.GridItem(event: $0.type.rawValue, label: $0.label, wakeUp: $0.type == .wakeFinal ? wake : nil)
            } : []
        logsHere = isTonight
        guard let session else {
            card = nil
            return
        }
        func clock(_ date: Date?) -> String { WebPages.clock(date, zone) }
        // Once nightly a night has one dose: no Dose 2, window or snoozes to show (D19).
        let twice = status.regimen.window != nil
        var facts = [Fact(name: RegimenWords.bedtimeDose(status.regimen), value: clock(status.dose1At))]
        let dose2Words: String =
            if let dose2At = status.dose2At {
                (givenBy.map { "given by \($0) at " } ?? "") + clock(dose2At) + (status.dose2Timing.map { " — \($0.words)" } ?? "")
            } else if status.sleptThrough {
                "not taken: slept through (the window closed \(clock(status.windowClosesAt)))"
            } else if status.dose2Skipped {
                "skipped \(clock(status.skippedAt))"
            } else if status.dose2Timing == .endedWithoutDose2 {
                "not taken: ended without Dose 2" + (status.wakeAt.map { " (the night was ended at \(clock($0)))" } ?? "")
            } else {
                session.isOpen ? "not yet" : "not taken (the night ended first)"
            }
        if twice { facts.append(Fact(name: "Dose 2", value: dose2Words)) }
        if let dose1 = status.dose1At, let dose2 = status.dose2At {
            facts.append(
                Fact(name: "Interval", value: "\(DoseWindow.wholeMinutes(from: dose1, to: dose2)) min (target \(settings.targetIntervalMinutes))"))
        }
        if twice, status.dose1At != nil {
            facts.append(Fact(name: "Window", value: "\(clock(status.windowOpensAt))–\(clock(status.windowClosesAt))"))
        }
        if twice { facts.append(Fact(name: "Snoozes", value: "\(status.snoozeCount) of \(settings.maxSnoozes)")) }
        if let wake = status.wakeAt { facts.append(Fact(name: "Woke", value: clock(wake))) }
        var flags: [String] = []
        // D20: a night past its limits says so first.
        if let past = status.pastNightlyMaximum { flags.append("⚠ " + past) }
        let dose2 = session.events.first { $0.kind == .dose2 }
        if dose2?.metadata.isEarly == true { flags.append("Dose 2 early") }
        if dose2?.metadata.isLate == true { flags.append("Dose 2 late") }
        if status.extraDoseCount > 0 { flags.append("\(status.extraDoseCount) extra dose\(status.extraDoseCount == 1 ? "" : "s")") }
        if status.sleptThrough { flags.append("Slept through") }
        if session.events.contains(where: { $0.metadata.confirmations.contains(.newNight) }) { flags.append("Started under 8 h after a dose") }
        card = Card(
            // D18: early and late carry the warning mark here too, as on Tonight.
            date: session.date.description,
            outcome: (status.dose2Timing?.isWarning == true ? "⚠ " : "") + (status.outcomeSentence(in: zone, givenBy: givenBy) ?? status.phase.label),
            facts: facts,
            flags: flags,
            hasFlags: !flags.isEmpty,
            events: session.events.sorted { ($0.occurredAt, $0.recordedAt) < ($1.occurredAt, $1.recordedAt) }.map {
                EventLine($0, zone: zone, night: session.id)
            })
    }
}

/// One event as a line: its local time, its name, its note.
struct EventLine {
    /// A dose whose time can be corrected from the page (D17: the night that blocks a new Dose 1 links here).
    struct Correction {
        let id, night, value, label: String
    }

    let time, label: String
    let note: String?
    var correct: Correction?

    init(_ event: NightEvent, zone: TimeZone, night: SessionID? = nil) {
        time = WebPages.clock(event.occurredAt, zone)
        label = event.label
        note = event.note
        if let night, event.kind.isOxybateDose {
            let parts = LocalClock.calendar(zone).dateComponents([.year, .month, .day, .hour, .minute], from: event.occurredAt)
            let value = String(
                format: "%04d-%02d-%02dT%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
            correct = Correction(id: event.id.rawValue, night: night.rawValue, value: value, label: event.kind.label)
        }
    }
}

/// One entry of a `<select>`.
struct SelectOption {
    let value, label: String
    let selected: Bool

    /// Every IANA zone, the one in force chosen. That one is always offered (Foundation's list may lack it, e.g.
    /// `Etc/UTC`): a select without it would show, and a save would store, the list's first zone instead.
    static func zones(current: String) -> [SelectOption] {
        let known = Set(TimeZone.knownTimeZoneIdentifiers.filter { $0.contains("/") || $0 == "UTC" })
        return known.union([current]).sorted().map {
            SelectOption(value: $0, label: $0.replacingOccurrences(of: "_", with: " "), selected: $0 == current)
        }
    }
}

/// The settings page: chips and switches for the rules' settings, a time-zone list, the quick-log grid, devices.
/// The titration plan's box, on setup's medication step and in Settings, a step a line. The confirmation is offered
/// only once a step was refused for rising faster than the label allows.
struct TitrationField {
    let value: String
    let hint =
        "Dated steps from your prescriber, one a line: 2026-12-01 3 g + 3 g (one amount once nightly). A night takes the step of its "
        + "date; before the first step, your usual amounts. Leave empty for none."
    var askConfirm = false
    var refusal: String?

    /// The box holding the plan in force, or what was typed when another answer was refused.
    init(_ settings: DoseSettings, typed: String? = nil) {
        value = typed ?? settings.titrationPlan.text.replacingOccurrences(of: "; ", with: "\n")
    }

    /// The box holding what was typed, after a refusal: the confirmation is offered when the refusal was for speed.
    init(typed: String, refusal error: DoseError) {
        value = typed
        askConfirm = error.code == .titrationTooFast
        refusal = "Not saved. " + error.message { $0 == .fastTitration ? "tick “My prescriber set these steps” and save again" : nil }
    }
}

struct SettingsView {
    struct Check {
        let value, label: String
        let checked: Bool
    }

    struct Device {
        let id, name, paired: String
        /// The day a request last used it (written once a day; nil: not since it was paired).
        let used: String?
        let this: Bool
    }

    /// A one-time pairing link, and its QR code for a phone's camera (absent only if the link is too long to encode).
    struct Pairing {
        struct Code {
            let box: Int
            let path: String
        }

        let link: String
        let qr: Code?

        init(link: String) {
            self.link = link
            qr = (try? QRCode(link)).map { Code(box: $0.size + 8, path: $0.svgPath) }
        }
    }

    /// Settings drawn as switches: a switch that is off sends nothing, so the form says which ones it showed.
    static let switches: [SettingKey] = [.allowSnoozing, .remindersEnabled, .escalationEnabled]

    let frame: Frame
    let csrf: String
    let fields: [Field]
    let zones: [SelectOption]
    let quickLog: [Check]
    let quickLimit: Int
    let devices: [Device]
    /// How long a device may go unused before it stops working (`DeviceLifetime`).
    let idleDays = DeviceLifetime.idleDays
    let pairing: Pairing?
    let alarms: AlarmSettingsView
    /// The medication profile in words, at tonight's amounts.
    let medication: String
    /// The titration plan's box.
    var titration: TitrationField
    /// The product and regimen, and each dose's amount in grams.
    let medicationChoices: MedicationChoices
    let dose1Grams, dose2Grams: String
    /// The sleep-source priority as typed: words, comma-separated, first preferred.
    let sleepPriorities: [SelectOption]
    /// On a shared store: the Sharing section, with the people who share with this person.
    var shared = false
    /// The person is an operator: Settings links to the operator's page.
    var isOperator = false

    init(
        frame: Frame, csrf: String, settings: DoseSettings, devices records: [DeviceRecord], thisDevice: String?, zone: TimeZone, pairing: String?,
        alarms: AlarmSettingsView, tonight: SessionKey
    ) {
        self.frame = frame
        self.alarms = alarms
        self.csrf = csrf
        fields = [
            .choice(
                SettingKey.targetInterval.rawValue, "Dose 2 target (minutes after Dose 1)", DoseSettings.targetIntervalOptions.map(String.init),
                chosen: [String(settings.targetIntervalMinutes)], words: { "\($0) min" }),
            .toggle(SettingKey.allowSnoozing.rawValue, "Allow snoozing the Dose 2 alarm", on: settings.allowSnoozing),
            .choice(
                SettingKey.maxSnoozes.rawValue, "Snoozes per night", DoseSettings.maxSnoozesRange.map(String.init),
                chosen: [String(settings.maxSnoozes)]),
            .choice(
                SettingKey.undoWindowSeconds.rawValue, "Time to undo a tap", DoseSettings.undoWindowOptions.map(String.init),
                chosen: [String(settings.undoWindowSeconds)], words: { "\($0) s" }),
            .toggle(SettingKey.remindersEnabled.rawValue, "Alarms and reminders", on: settings.remindersEnabled),
        ]
        zones = SelectOption.zones(current: settings.timeZoneID)
        quickLog = SleepEventCatalogue.standard.definitions.map {
            Check(value: $0.type.rawValue, label: $0.label, checked: settings.quickLog.contains($0.type.rawValue))
        }
        quickLimit = DoseSettings.quickLogRange.upperBound
        devices = records.filter { $0.revokedAt == nil }.map {
            Device(
                id: $0.id, name: $0.name, paired: Self.day($0.createdAt, zone), used: $0.lastUsedAt.map { Self.day($0, zone) },
                this: $0.id == thisDevice)
        }
        self.pairing = pairing.map(Pairing.init(link:))
        let regimen = settings.regimen(on: tonight)
        medication =
            "Tonight: \(RegimenWords.summary(regimen))\(RegimenWords.step(regimen)). "
            + "\(settings.concentrationMgPerML) mg/mL, \(settings.bottleML) mL bottles. Refill reminder at "
            + "\(settings.pharmacyLeadDays + settings.refillMarginDays) nights left, "
            + "\(settings.refillReminderTime)."
        titration = TitrationField(settings)
        medicationChoices = MedicationChoices(settings)
        (dose1Grams, dose2Grams) = (SetupWizard.grams(settings.dose1Milligrams), SetupWizard.grams(settings.dose2Milligrams))
        let current = settings.sleepSourcePriority.words.joined(separator: ",")
        var choices = Self.priorityChoices
        if !choices.contains(where: { $0.0 == current }) {
            choices.append((current, "Your own order: " + current.replacingOccurrences(of: ",", with: ", ")))
        }
        sleepPriorities = choices.map { SelectOption(value: $0.0, label: $0.1, selected: $0.0 == current) }
    }

    /// The orders of wearables a person picks from, by the words their names contain (the setting stays a list, which
    /// the CLI and the API set freely).
    static let priorityChoices: [(String, String)] = [
        (SourcePriority.standard.words.joined(separator: ","), "A watch first, then WHOOP, a ring, the phone"),
        ("whoop,watch,ring,oura,iphone,phone", "WHOOP first, then a watch, a ring, the phone"),
        ("ring,oura,watch,whoop,iphone,phone", "A ring (Oura) first, then a watch, WHOOP, the phone"),
        ("iphone,phone,watch,whoop,ring,oura", "The phone first, then a watch, WHOOP, a ring"),
    ]

    static func day(_ date: Date, _ zone: TimeZone) -> String {
        let parts = LocalClock.calendar(zone).dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
