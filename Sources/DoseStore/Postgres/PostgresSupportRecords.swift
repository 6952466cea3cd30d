import DoseCore
import Foundation
import PostgresNIO

extension PostgresStore {
    /// What `person`'s support bundle redacts, read straight from PostgreSQL in one snapshot and shaped as the file's
    /// (`DataTransfer.supportRecords`): events by the statement events.csv is read by, medications, the supply ledger,
    /// the settings, and a count of the person's rows per table (the service's own tables count none of anyone's).
    public func supportRecords(of person: String, machineTimeZoneID: String, rowsPerFetch: Int = 4000) throws -> SupportRecords {
        let tables = try storedTables()
        return try transaction(readOnly: true, seeing: .person(person)) { session in
            var events: [SupportRecords.Event] = []
            try Self.forEachEvent(of: person, rowsPerFetch: rowsPerFetch, session) { events.append(SupportRecords.Event($0)) }
            var binds = PostgresBindings()
            binds.append(person)
            let medications = try session.rows(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT id, medication_id, dosetap_instant(taken_at) FROM medication_events WHERE person_id = $1
                        ORDER BY taken_at, id COLLATE "C"
                        """, binds: binds)
            ).map { row in
                let (id, medication, at) = try row.decode((String, String, String).self)
                return SupportRecords.Medication(id: id, medicationID: medication, takenAt: NightRecords.instant(at))
            }
            // One statement counts every table, so the figures are of one moment, as the file's are.
            let counts = tables.map { "(SELECT count(*) FROM \($0.name.sqlIdentifier) WHERE \($0.personsRows))::bigint" }
            let counted = try session.rows(PostgresQuery(unsafeSQL: "SELECT ARRAY[\(counts.joined(separator: ", "))]", binds: binds))
            let figures = try counted.first?.decode([Int64].self) ?? []
            var byTable: [String: Int] = [:]
            for (table, count) in zip(tables, figures) where AppDatabase.dataTables.contains(table.name) { byTable[table.name] = Int(count) }
            let explicit = try PostgresSettingsTransaction(session: session, person: person).storedSettings()
            return SupportRecords(
                events: events, medications: medications, inventory: try PostgresNightTransaction.inventoryEntries(of: person, session),
                settings: try SettingsStore.settings(from: explicit, machineTimeZoneID: machineTimeZoneID), counts: byTable,
                schemaVersion: Schema.version)
        }
    }
}
