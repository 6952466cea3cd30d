import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB

@testable import DoseStore

extension TestClock {
    /// The store clock at the current instant, with this clock's ids.
    var store: StoreClock { StoreClock(now: now, machineTimeZoneID: zone, makeID: { [self] in self.nextID() }, random: .system) }
}

enum StoreFixture {
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// Dose 1 at 22:30 on 21 November 2026.
    static let dose1 = WallClock.date(2026, 11, 21, 22, 30)

    static func minutes(_ m: Double, after date: Date = dose1) -> Date { date.addingTimeInterval(m * 60) }

    static func ledger() throws -> NightLedger { (try AppDatabase.inMemory()).ledger }

    /// A new database with Dose 1 taken at `dose1`, and a clock standing there.
    static func afterDose1() throws -> (NightLedger, TestClock) {
        let ledger = try ledger()
        let clock = TestClock(dose1)
        try act(ledger, .dose1, at: dose1, clock: clock)
        return (ledger, clock)
    }

    /// A temporary directory removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Every row of every data table, as text, to prove a refusal changed nothing.
    static func snapshot(_ ledger: NightLedger) throws -> String {
        try ledger.database.read { (db: Database) throws in
            var text = ""
            for table in ["sleep_sessions", "dose_events", "sleep_events", "morning_checkins", "settings", "audit_log"] {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1") { text += "\(table): \(row)\n" }
            }
            return text
        }
    }

    /// Performs an action at an instant.
    @discardableResult
    static func act(
        _ ledger: NightLedger, _ kind: NightAction.Kind, at now: Date, clock: TestClock, confirm: Set<ConfirmKind> = [],
        occurredAt: Date? = nil, note: String? = nil
    ) throws -> ActionOutcome {
        clock.set(now)
        return try ledger.perform(NightAction(kind, at: occurredAt, note: note, confirmations: confirm), clock: clock.store)
    }

    /// Whether a refusal is about an unusable file (a database or an import): what the CLI reports as a data error.
    static func isFileProblem(_ error: DoseError?) -> Bool {
        switch error {
        case .invalidFile, .tooLarge: true
        default: false
        }
    }

    /// The DoseError thrown by a body, or nil.
    static func refusal(_ body: () throws -> Void) -> DoseError? {
        do {
            try body()
            return nil
        } catch let error as DoseError { return error } catch { return nil }
    }
}
