import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

/// An import on a shared store works on a copy taken without the person's lock (issue 55): the person's own actions
/// never wait for it, and what they did meanwhile is never overwritten. The import runs again on a fresh copy instead.
@Suite("An import on PostgreSQL holds no one's night up, and keeps what happened while it worked", .enabled(if: EachStore.kinds.contains("postgres")))
struct HostedImportTests {
    static func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date { WallClock.date(2026, 11, day, hour, minute) }

    @Test("Dose 1 taken while an import works goes through at once; the import then runs again on a copy holding it, and both are kept")
    func actionsDuringAnImport() throws {
        let each = try EachStore("postgres", at: Self.at(21, 21, 0))
        defer { each.close() }
        guard case .postgres(let store, let person) = each.store else {
            Issue.record("not PostgreSQL")
            return
        }
        var runs = 0
        var nightsSeen: [Int] = []
        let result = try store.importRecords(of: person) { database in
            runs += 1
            if runs == 1 {
                // Under the person's lock, as imports once ran, this would wait for the import for ever.
                _ = try each.app(at: Self.at(21, 22, 0)).night.perform(NightAction(.dose1), from: .cli)
            }
            return try database.writer.write { db in
                nightsSeen.append(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dose_events") ?? -1)
                try db.execute(
                    sql: """
                        INSERT INTO wearable_vitals (id, provider, source, kind, start_at, end_at, value, imported_at)
                        VALUES ('hr-1', 'apple_health', 'Apple Watch', 'heart_rate', '2026-11-22T04:00:00.000Z', '2026-11-22T04:00:00.000Z', 61,
                            '2026-11-22T12:00:00.000Z')
                        """)
                return runs
            }
        }
        #expect(result == 2 && nightsSeen == [0, 1], "the first copy missed Dose 1, so its work was not kept and ran again: \(nightsSeen)")
        #expect(try each.app(at: Self.at(21, 22, 5)).night.status().session?.events.count == 1, "Dose 1 is kept")
        let vitals = try store.transaction(readOnly: true, seeing: .person(person)) { session in
            try session.rows("SELECT count(*)::int FROM wearable_vitals WHERE person_id = \(person)").first?.decode(Int.self)
        }
        #expect(vitals == 1, "and the import's row, once")
    }

    @Test("an import whose every copy is overtaken refuses as busy and keeps nothing of itself")
    func overtakenEveryTime() throws {
        let each = try EachStore("postgres", at: Self.at(21, 21, 0))
        defer { each.close() }
        guard case .postgres(let store, let person) = each.store else { return }
        var runs = 0
        #expect(throws: DoseError.storageBusy) {
            try store.importRecords(of: person) { database in
                runs += 1
                _ = try each.app(at: Self.at(21, 22, runs)).night.perform(NightAction(.log(event: "bathroom")), from: .cli)
                try database.writer.write { db in
                    try db.execute(sql: "INSERT INTO notices_shown (name, shown_at) VALUES ('imported', '2026-11-22T12:00:00.000Z')")
                }
            }
        }
        #expect(runs == 3)
        let notices = try store.transaction(readOnly: true, seeing: .person(person)) { session in
            try session.rows("SELECT count(*)::int FROM notices_shown WHERE person_id = \(person) AND name = 'imported'").first?.decode(Int.self)
        }
        #expect(notices == 0)
        #expect(try each.app(at: Self.at(21, 23, 0)).night.status().session?.events.count == 3, "the person's three logs are all kept")
    }
}
