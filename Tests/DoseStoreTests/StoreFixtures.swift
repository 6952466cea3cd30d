import DoseCore
import DoseStore
import Foundation
import GRDB
import Synchronization

/// Deterministic ids and a movable clock for store tests.
final class TestClock: Sendable {
    private let state: Mutex<(now: Date, id: Int)>
    let zone: String

    init(_ now: Date, zone: String = "America/New_York") {
        state = Mutex((now, 0))
        self.zone = zone
    }

    var now: Date { state.withLock { $0.now } }

    func set(_ date: Date) { state.withLock { $0.now = date } }

    func advance(seconds: TimeInterval) { state.withLock { $0.now = $0.now.addingTimeInterval(seconds) } }

    /// The store clock at the current instant.
    var store: StoreClock {
        StoreClock(now: now, machineTimeZoneID: zone, makeID: { [self] in self.nextID() })
    }

    func nextID() -> String { state.withLock { $0.id += 1; return String(format: "00000000-0000-4000-8000-%012d", $0.id) } }
}

enum StoreFixture {
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// A New York wall-clock instant.
    static func local(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int, _ s: Double = 0, zone: TimeZone = newYork) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min))!.addingTimeInterval(s)
    }

    /// Dose 1 at 22:30 on 21 November 2026.
    static let dose1 = local(2026, 11, 21, 22, 30)

    static func minutes(_ m: Double, after date: Date = dose1) -> Date { date.addingTimeInterval(m * 60) }

    static func ledger() throws -> NightLedger { NightLedger(database: try DoseDatabase.inMemory()) }

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
    static func act(_ ledger: NightLedger, _ kind: NightAction.Kind, at now: Date, clock: TestClock, confirm: Set<ConfirmKind> = [],
                    occurredAt: Date? = nil, note: String? = nil) throws -> ActionOutcome {
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
        do { try body(); return nil } catch let error as DoseError { return error } catch { return nil }
    }
}
