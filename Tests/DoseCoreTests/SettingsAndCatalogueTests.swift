import DoseCore
import Foundation
import Testing

@Suite("Settings validation (SPEC §3.1)")
struct SettingsTests {
    static let accepted: [(String, String, String)] = [
        ("target_interval", "165", "165"), ("target_interval", "225", "225"), ("max_snoozes", "1", "1"), ("max_snoozes", "5", "5"),
        ("allow_snoozing", "off", "false"), ("allow_snoozing", "TRUE", "true"), ("undo_window_seconds", "3", "3"),
        ("undo_window_seconds", "10", "10"), ("time_zone", "Europe/Paris", "Europe/Paris"), ("time_zone", "UTC", "UTC"),
        ("prep_time", "17:30", "17:30"), ("sleep_start", "9:05", "09:05"), ("wake_time", "06:45", "06:45"),
        ("missed_checkin_cutoff_hours", "1", "1"), ("missed_checkin_cutoff_hours", "12", "12"),
        ("reminders_enabled", "no", "false"), ("cooldown.bathroom", "0", "0"), ("cooldown.wake_final", "3600", "3600"),
        ("wake_alarm_refire_minutes", "0", "0"), ("wake_alarm_refire_minutes", "1", "1"), ("wake_alarm_refire_minutes", "10", "10"),
        ("escalation_enabled", "on", "true"), ("escalation_minutes", "150", "150"), ("escalation_minutes", "235", "235"),
        ("escalation_contact", "https://ntfy.sh/partner-topic", "https://ntfy.sh/partner-topic"),
        ("escalation_contact", "http://192.168.1.5:8080/hook", "http://192.168.1.5:8080/hook"), ("escalation_contact", "", ""),
        ("escalation_contact_format", "json", "json"),
    ]

    @Test("valid values are stored and read back normalised", arguments: accepted)
    func valid(key: String, value: String, stored: String) throws {
        let settings = try Fixture.settings().setting(key, to: value)
        #expect(try settings.value(of: key) == stored)
    }

    static let refused: [(String, String)] = [
        ("target_interval", "150"), ("target_interval", "170"), ("target_interval", "240"), ("target_interval", "abc"),
        ("max_snoozes", "0"), ("max_snoozes", "6"), ("allow_snoozing", "maybe"), ("undo_window_seconds", "4"),
        ("undo_window_seconds", "0"), ("time_zone", "Mars/Olympus"), ("time_zone", "EST5"), ("prep_time", "24:00"),
        ("prep_time", "1800"), ("wake_time", "7:5"), ("missed_checkin_cutoff_hours", "0"), ("missed_checkin_cutoff_hours", "13"),
        ("cooldown.bathroom", "-1"), ("cooldown.bathroom", "3601"), ("cooldown.unicorn", "10"), ("colour", "red"),
        ("wake_alarm_refire_minutes", "-1"), ("wake_alarm_refire_minutes", "11"), ("escalation_enabled", "sometimes"),
        ("escalation_minutes", "149"), ("escalation_minutes", "236"), ("escalation_minutes", "240"), ("escalation_contact", "ntfy.sh/topic"),
        ("escalation_contact", "ftp://example.org/x"), ("escalation_contact", "https://user:pw@example.org/x"),
        ("escalation_contact", "https:///nohost"),
        ("escalation_contact", "https://example.org/" + String(repeating: "a", count: 500)), ("escalation_contact_format", "xml"),
    ]

    @Test("invalid values are refused naming the key and what is allowed, never reset", arguments: refused)
    func invalid(key: String, value: String) throws {
        let settings = Fixture.settings()
        do {
            _ = try settings.setting(key, to: value)
            Issue.record("accepted \(key)=\(value)")
        } catch {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("Allowed"))
        }
    }

    @Test("listing shows every fixed key and a cooldown per event")
    func listing() {
        let rows = Fixture.settings().listing()
        #expect(rows.count == DoseSettings.keys.count + 15)
        #expect(rows.first { $0.key == "target_interval" }?.value == "165")
        #expect(rows.first { $0.key == "cooldown.bathroom" }?.value == "60")
        #expect(rows.first { $0.key == "time_zone" }?.value == "America/New_York")
    }

    @Test(
        "clock times parse strictly",
        arguments: [
            ("00:00", true), ("23:59", true), ("7:00", true), ("24:00", false), ("12:60", false), ("12", false), ("", false), ("ab:cd", false),
        ])
    func clockTime(text: String, valid: Bool) {
        #expect((ClockTime(parsing: text) != nil) == valid)
    }
}

@Suite("Medication catalogue and duplicate guard (reference §6.11, SPEC §3.3)")
struct MedicationTests {
    @Test("the catalogue has the sixteen medications")
    func catalogue() throws {
        #expect(MedicationCatalogue.all.count == 17)
        #expect(Set(MedicationCatalogue.all.map(\.id)).count == 17)
        #expect(try MedicationCatalogue.medication(id: "XYWAV").category == .sodiumOxybate)
        #expect(throws: DoseError.self) { try MedicationCatalogue.medication(id: "aspirin") }
    }

    static let doses: [(String, Double, DoseUnit, Double?)] = [
        ("adderall_ir", 10, .mg, 10), ("adderall_ir", 30, .mg, 30), ("adderall_ir", 31, .mg, nil), ("adderall_ir", 0, .mg, nil),
        ("adderall_ir", -5, .mg, nil), ("adderall_ir", 1, .mL, nil), ("xywav", 4.5, .g, 4500), ("xywav", 9, .mL, 4500),
        ("xywav", 18, .mL, 9000), ("xywav", 18.1, .mL, nil), ("xyrem", 9.5, .g, nil), ("modafinil", 0.2, .g, 200), ("lumryz", 2, .mL, nil),
        // The lower bound is a quarter of the smallest strength, on both sides, in each unit.
        ("adderall_ir", 1.25, .mg, 1.25), ("adderall_ir", 1.24, .mg, nil), ("modafinil", 25, .mg, 25), ("modafinil", 24.99, .mg, nil),
        ("xywav", 0.5625, .g, 562.5), ("xywav", 0.56, .g, nil), ("xywav", 1.125, .mL, 562.5), ("xywav", 1.12, .mL, nil),
        // What the probes sent: beyond Int, below any dose, not a number.
        ("modafinil", 1e300, .mg, nil), ("modafinil", 1e20, .mg, nil), ("modafinil", 1e-300, .mg, nil), ("modafinil", .infinity, .mg, nil),
        ("modafinil", .nan, .mg, nil), ("xywav", 1e300, .g, nil),
    ]

    @Test("doses convert to mg, from a quarter of the smallest strength to the largest", arguments: doses)
    func validateDose(id: String, amount: Double, unit: DoseUnit, milligrams: Double?) throws {
        let medication = try MedicationCatalogue.medication(id: id)
        if let milligrams {
            #expect(try MedicationCatalogue.validatedMilligrams(amount, unit: unit, for: medication) == milligrams)
        } else {
            let error = #expect(throws: DoseError.self) { try MedicationCatalogue.validatedMilligrams(amount, unit: unit, for: medication) }
            #expect(
                error?.message.contains(unit == .mL && medication.mgPerML == nil ? "mg or g" : "–") == true,
                "the range is stated: \(error?.message ?? "")")
        }
    }

    @Test(
        "same medication within 5 minutes either way is a duplicate; exactly 5 is not",
        arguments: [
            (-299.999, true), (-240, true), (0, true), (240, true), (299.999, true), (300, false), (-300, false), (3600, false),
        ] as [(Double, Bool)])
    func duplicate(secondsApart: Double, duplicate: Bool) throws {
        let medication = try MedicationCatalogue.medication(id: "adderall_ir")
        let existing = Fixture.dose1
        let check = { (confirm: Set<ConfirmKind>) throws(DoseError) in
            try MedicationCatalogue.checkDuplicate(
                medication, at: existing.addingTimeInterval(secondsApart), existing: [existing],
                confirmations: confirm, timeZone: Fixture.newYork)
        }
        if duplicate {
            #expect(throws: DoseError.self) { try check([]) }
            #expect(throws: Never.self) { try check([.duplicate]) }
            #expect(throws: DoseError.self) { try check([.extra]) }
        } else {
            #expect(throws: Never.self) { try check([]) }
        }
    }
}

@Suite("Errors: one taxonomy (SPEC §4)")
struct ErrorTaxonomyTests {
    /// Each refusal and its kind.
    static let samples: [(DoseError, ErrorCode)] = [
        (.invalidInput(field: "x", problem: "y", allowed: nil), .invalidInput),
        (.invalidFile(problem: "not a database"), .invalidInput),
        (.deviceNotRegistered, .deviceNotRegistered),
        (.forbidden(why: "the request came from another site"), .forbidden),
        (.unsupportedMediaType(sent: "text/plain", accepted: "application/json"), .unsupportedMediaType),
        (.notFound(what: "Session 2026-01-01"), .notFound),
        (.nothingToUndo, .nothingToUndo),
        (.methodNotAllowed(method: "PUT", path: "/v1/status", allowed: ["GET", "HEAD"]), .methodNotAllowed),
        (.alreadyTaken(dose: "Dose 1", at: Fixture.dose1, localTime: "22:30", confirm: nil), .alreadyTaken),
        (.alreadySkipped(at: Fixture.dose1, localTime: "22:30"), .alreadySkipped),
        (.dose2Skipped(at: Fixture.dose1, localTime: "22:30", sleptThrough: false), .dose2Skipped),
        (.sessionFinalizing(wokeAt: Fixture.dose1, localTime: "07:00"), .sessionFinalizing),
        (.napState(problem: "open"), .napState),
        (.duplicateMedication(name: "Adderall", otherAt: Fixture.dose1, localTime: "08:00", minutesApart: 2), .duplicateMedication),
        (
            .recentDose(
                dose: "Dose 2", at: Fixture.dose1, localTime: "22:30", minutesApart: 35, allowedFrom: Fixture.minutes(480), allowedLocalTime: "06:30"),
            .recentDose
        ),
        (
            .dose2Pending(
                ending: "Logging wake-up", window: PendingDose2(dose1: Fixture.dose1, window: .label, at: Fixture.minutes(30), zone: Fixture.newYork)),
            .dose2Pending
        ),
        (.tooLarge(what: "Import", limit: "50 MB"), .tooLarge),
        (.dose1Required, .dose1Required),
        (
            .notInRegimen(action: "Dose 2", regimen: DoseRegimen(kind: .onceNightly, product: "lumryz", dosesMilligrams: [6000], targetMinutes: nil)),
            .notInRegimen
        ),
        (
            .titrationTooFast(steps: [
                TitrationPlan.FastStep(
                    step: TitrationPlan.Step(from: SessionKey(year: 2026, month: 12, day: 1)!, dosesMilligrams: [4500, 3500]), reason: "By 3.5 g.")
            ]), .titrationTooFast
        ),
        (
            .nightlyMaximum(NightlyMaximum(reason: .pastMaximum, takenMilligrams: 9000, doseMilligrams: 4500, maximumMilligrams: 9000)),
            .nightlyMaximum
        ),
        (.windowNotOpen(minutesUntilOpen: 5, opensAt: Fixture.dose1, localTime: "01:00"), .windowNotOpen),
        (.windowExceeded(closedAt: Fixture.dose1, localTime: "02:30", minutesLate: 3), .windowExceeded),
        (.snoozeLimit(maximum: 3), .snoozeLimit),
        (.snoozeUnavailable(.nearClose), .snoozeUnavailable),
        (.undoExpired(windowSeconds: 5, secondsAgo: 6), .undoExpired),
        (.idempotencyMismatch, .idempotencyMismatch),
        (.rateLimited(event: "Bathroom", retryAfterSeconds: 12), .rateLimit),
        (.storageBusy, .storageBusy),
    ]

    @Test("each refusal carries its SPEC §4 kind and a message (wire code, HTTP status and exit code are mapped at the edges)", arguments: samples)
    func mapping(error: DoseError, code: ErrorCode) {
        #expect(error.code == code)
        #expect(!error.message.isEmpty)
    }

    @Test("a message quotes at most 400 characters of what was sent, and says how much it left out")
    func longInputIsQuotedShort() {
        let key = String(repeating: "k", count: 1_000_000)
        let message = DoseError.invalidInput(field: key, problem: "'\(key)' is not a setting", allowed: nil).message
        #expect(message.count < 600 && message.contains("more characters)"))
        #expect(
            DoseError.invalidInput(field: "type", problem: "missing", allowed: "dose1, dose2").message
                == "Invalid type: missing. Allowed: dose1, dose2.")
    }

    @Test("every SPEC §4 code has a sample")
    func everyCodeCovered() {
        #expect(Set(Self.samples.map(\.0.code)) == Set(ErrorCode.allCases))
    }

    @Test("confirmations and retry hints travel with the error")
    func hints() {
        #expect(DoseError.windowNotOpen(minutesUntilOpen: 5, opensAt: Fixture.dose1, localTime: "01:00").confirm == .early)
        #expect(DoseError.windowExceeded(closedAt: Fixture.dose1, localTime: "02:30", minutesLate: 3).confirm == .late)
        #expect(DoseError.dose2Skipped(at: Fixture.dose1, localTime: "x", sleptThrough: true).confirm == .afterSkip)
        #expect(DoseError.rateLimited(event: "Water", retryAfterSeconds: 12).retryAfterSeconds == 12)
        #expect(DoseError.windowNotOpen(minutesUntilOpen: 5, opensAt: Fixture.dose1, localTime: "01:00").details["minutes_until_open"] == "5")
    }
}

@Suite("Morning check-in (SPEC §3.5)")
struct CheckInTests {
    @Test(
        "wellness score",
        arguments: [
            (3, FeelRested.moderate, 5, Mood.neutral, 3, false, false, false, 58),
            (5, .veryWell, 10, .great, 5, false, false, false, 100),
            (1, .notAtAll, 1, .veryLow, 1, true, true, true, 0),
            (5, .veryWell, 10, .great, 5, true, true, true, 80),
            (4, .well, 7, .good, 4, false, true, false, 73),
        ] as [(Int, FeelRested, Int, Mood, Int, Bool, Bool, Bool, Int)])
    func wellness(
        quality: Int, rested: FeelRested, clarity: Int, mood: Mood, readiness: Int, physical: Bool, respiratory: Bool, narcolepsy: Bool, score: Int
    ) {
        var checkIn = MorningCheckIn()
        checkIn.sleepQuality = quality
        checkIn.feelRested = rested
        checkIn.mentalClarity = clarity
        checkIn.mood = mood
        checkIn.readiness = readiness
        checkIn.hasPhysicalSymptoms = physical
        checkIn.hasRespiratorySymptoms = respiratory
        checkIn.hadSleepParalysis = narcolepsy
        #expect(checkIn.wellnessScore == score)
    }

    @Test(
        "out-of-range fields are refused by name",
        arguments: [
            (0, 5, 3, "sleep_quality"), (6, 5, 3, "sleep_quality"), (3, 0, 3, "mental_clarity"), (3, 11, 3, "mental_clarity"),
            (3, 5, 0, "readiness_for_day"),
            (3, 5, 6, "readiness_for_day"),
        ])
    func invalid(quality: Int, clarity: Int, readiness: Int, field: String) {
        var checkIn = MorningCheckIn()
        checkIn.sleepQuality = quality
        checkIn.mentalClarity = clarity
        checkIn.readiness = readiness
        do {
            _ = try checkIn.validated()
            Issue.record("accepted an out-of-range \(field)")
        } catch {
            #expect(error.code == .invalidInput)
            guard case .invalidInput(let named, _, _) = error else { return }
            #expect(named == field)
        }
    }
}

@Suite("Instants and clocks")
struct FormattingTests {
    @Test("ISO-8601 with milliseconds round-trips", arguments: ["2026-11-22T06:30:00.000Z", "2026-03-08T07:00:00.123Z", "1999-12-31T23:59:59.999Z"])
    func roundTrip(text: String) throws {
        let date = try #require(ISO8601.parse(text))
        #expect(ISO8601.string(date) == text)
    }

    @Test(
        "offsets and missing fractions are accepted; garbage is not",
        arguments: [
            ("2026-11-22T01:30:00-05:00", "2026-11-22T06:30:00.000Z"), ("2026-11-22T06:30:00Z", "2026-11-22T06:30:00.000Z"),
            ("2026-11-22T07:30:00.5+01:00", "2026-11-22T06:30:00.500Z"),
        ])
    func parsing(text: String, expected: String) throws {
        #expect(ISO8601.string(try #require(ISO8601.parse(text))) == expected)
    }

    @Test("malformed instants are refused", arguments: ["", "tomorrow", "2026-11-22", "2026-13-01T00:00:00Z", "22:30"])
    func malformed(text: String) {
        #expect(ISO8601.parse(text) == nil)
    }

    @Test(
        "the fast stored-form parser agrees with the general one",
        arguments: [
            "2026-11-22T06:30:00.000Z", "2028-02-29T23:59:59.999Z", "1970-01-01T00:00:00.000Z", "1970-01-01T00:00:00.001Z",
            "2999-12-31T23:59:59.999Z",
            "2100-03-01T12:00:00.250Z", "2000-02-29T00:00:00.000Z",
        ])
    func canonicalParser(text: String) throws {
        let fast = try #require(ISO8601.parseCanonical(text))
        let general = try #require(try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
        // Equal to the millisecond (the general parser's floating point can differ in the last bits).
        #expect((fast.timeIntervalSince1970 * 1000).rounded() == (general.timeIntervalSince1970 * 1000).rounded())
        #expect(ISO8601.string(fast) == text)
    }

    @Test(
        "instants outside 1970–2999 are refused by both parsers, on both sides of each bound",
        arguments: [
            ("1969-12-31T23:59:59.999Z", false), ("1970-01-01T00:00:00.000Z", true), ("2999-12-31T23:59:59.999Z", true),
            ("3000-01-01T00:00:00.000Z", false), ("0000-01-01T00:00:00Z", false), ("0001-01-01T00:00:00.000Z", false),
            ("1970-01-01T05:00:00+06:00", false), ("9999-12-31T23:59:59Z", false),
        ] as [(String, Bool)])
    func acceptedRange(text: String, accepted: Bool) {
        #expect((ISO8601.parse(text) != nil) == accepted)
        if text.count == 24 { #expect((ISO8601.parseCanonical(text) != nil) == accepted) }
    }

    @Test(
        "the fast parser refuses impossible dates",
        arguments: [
            "2026-02-29T00:00:00.000Z", "2026-04-31T00:00:00.000Z", "2026-11-22T24:00:00.000Z", "2026-11-22T06:30:00.00xZ", "2026-02-30T01:00:00Z",
            "2026-06-31T01:00:00-05:00",
        ])
    func canonicalRefusals(text: String) {
        #expect(ISO8601.parseCanonical(text) == nil)
        #expect(ISO8601.parse(text) == nil)
    }

    @Test("DoseCore never reads the clock or the machine's zone")
    func noClockReads() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/DoseCore").standardized
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.allObjects as? [URL])
        let swift = files.filter { $0.pathExtension == "swift" }
        #expect(swift.count > 10)
        for file in swift {
            let text = try String(contentsOf: file, encoding: .utf8)
            for forbidden in ["Date()", "Calendar.current", "TimeZone.current", "Date.now", "Locale.current", "UUID()"] {
                #expect(!text.contains(forbidden), "\(file.lastPathComponent) uses \(forbidden)")
            }
        }
    }
}
