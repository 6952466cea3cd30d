import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

/// An import on a shared store works in PostgreSQL's own statements, in a transaction that never takes the person's lock
/// (issue 55): the person's own actions never wait for it, and what they did meanwhile is never overwritten. The import
/// runs again on what is stored now instead.
@Suite("An import on PostgreSQL holds no one's night up, and keeps what happened while it worked", .enabled(if: EachStore.kinds.contains("postgres")))
struct HostedImportTests {
    static func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date { WallClock.date(2026, 11, day, hour, minute) }

    /// A past night, closed from its first row, as an import adds one.
    static func addPastNight(_ records: some ImportTransaction) throws {
        let night = NightSession(
            id: SessionID(rawValue: "imported-night"), date: SessionKey(year: 2026, month: 11, day: 10)!, startedAt: at(10, 22, 0))
        try records.insertNight(
            night, timeZone: TimeZone(identifier: "UTC")!, closure: SessionClosure(endedAt: at(11, 7, 0), reason: .checkin, terminalState: .expired))
    }

    static func nights(_ store: PostgresStore, _ person: String, id: String) throws -> Int? {
        try store.transaction(readOnly: true, seeing: .person(person)) { session in
            try session.rows("SELECT count(*)::int FROM sleep_sessions WHERE person_id = \(person) AND id = \(id)").first?.decode(Int.self)
        }
    }

    @Test("Dose 1 taken while an import works goes through at once; the import then runs again on what is stored, and both are kept")
    func actionsDuringAnImport() throws {
        let each = try EachStore("postgres", at: Self.at(21, 21, 0))
        defer { each.close() }
        guard case .postgres(let store, let person) = each.store else {
            Issue.record("not PostgreSQL")
            return
        }
        let copies = store.sqliteCopiesMade
        var runs = 0
        var openSeen: [Bool] = []
        let result = try store.importing(for: person) { records, _ in
            runs += 1
            openSeen.append(try records.openNight() != nil)
            try Self.addPastNight(records)
            if runs == 1 {
                // Had the import's write taken the person's row, this would wait for the import for ever (one thread).
                _ = try each.app(at: Self.at(21, 22, 0)).night.perform(NightAction(.dose1), from: .cli)
            }
            return runs
        }
        #expect(result == 2 && openSeen == [false, true], "the first run missed Dose 1, so it was not kept and ran again: \(openSeen)")
        #expect(try each.app(at: Self.at(21, 22, 5)).night.status().session?.events.count == 1, "Dose 1 is kept")
        #expect(try Self.nights(store, person, id: "imported-night") == 1, "and the import's night, once")
        #expect(store.sqliteCopiesMade == copies, "with no copy into SQLite")
    }

    @Test("an import overtaken on every run refuses as busy and keeps nothing of itself")
    func overtakenEveryTime() throws {
        let each = try EachStore("postgres", at: Self.at(21, 21, 0))
        defer { each.close() }
        guard case .postgres(let store, let person) = each.store else { return }
        var runs = 0
        #expect(throws: DoseError.storageBusy) {
            try store.importing(for: person) { records, _ in
                runs += 1
                try Self.addPastNight(records)
                _ = try each.app(at: Self.at(21, 22, runs)).night.perform(NightAction(.log(event: "bathroom")), from: .cli)
            }
        }
        #expect(runs == PostgresStore.importAttempts)
        #expect(try Self.nights(store, person, id: "imported-night") == 0)
        #expect(try each.app(at: Self.at(21, 23, 0)).night.status().session?.events.count == 3, "the person's three logs are all kept")
    }

    @Test("an import that writes no night leaves the night's version, so the person's actions meanwhile do not undo it")
    func importsBesideTheNight() throws {
        let each = try EachStore("postgres", at: Self.at(21, 21, 0))
        defer { each.close() }
        guard case .postgres(let store, let person) = each.store else { return }
        var runs = 0
        try store.importing(for: person) { records, _ in
            runs += 1
            try records.saveWearableSummary(
                SleepSummary(source: "WHOOP", start: Self.at(20, 23, 0), end: Self.at(21, 6, 30)), id: "w-one",
                importedAt: "2026-11-21T12:00:00.000Z",
                replacing: false)
            _ = try each.app(at: Self.at(21, 22, 0)).night.perform(NightAction(.dose1), from: .cli)
        }
        #expect(runs == 1)
        let summary = try store.importing(for: person) { records, _ in try records.wearableSummary(id: "w-one") }
        #expect(summary?.source == "WHOOP" && summary?.end == Self.at(21, 6, 30))
    }
}
