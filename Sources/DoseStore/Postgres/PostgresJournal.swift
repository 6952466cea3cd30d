import DoseCore
import Foundation
import PostgresNIO

/// The journal tables of one person in PostgreSQL, in the night transaction's session: each statement names the
/// person, and row-level security holds it to them besides.
extension PostgresNightTransaction {
    /// The columns of a `medication_events` row an entry is built from, in `medication(from:)` order.
    private static let medicationColumns = """
        id, medication_id, dose_mg, dose_amount, dose_unit, dosetap_instant(taken_at), dosetap_instant(recorded_at), time_zone,
        utc_offset_minutes, to_char(session_date, 'YYYY-MM-DD'), session_id, notes, confirmed_duplicate, batch_id
        """

    func medicationTimes(of medicationIDs: Set<String>, after: Date, before: Date, excluding: String?) throws -> [String: [Date]] {
        let rows = try session.rows(
            """
            SELECT medication_id, dosetap_instant(taken_at) FROM medication_events
            WHERE person_id = \(person) AND medication_id = ANY(\(medicationIDs.sorted())) AND taken_at > \(text(after))::timestamptz
                AND taken_at < \(text(before))::timestamptz AND id IS DISTINCT FROM \(excluding)
            """)
        var times: [String: [Date]] = [:]
        for row in rows {
            let (medication, takenAt) = try row.decode((String, String).self)
            times[medication, default: []].append(NightRecords.instant(takenAt))
        }
        return times
    }

    func nightIDs(dated dates: Set<SessionKey>) throws -> [SessionKey: SessionID] {
        guard !dates.isEmpty else { return [:] }
        let rows = try session.rows(
            """
            SELECT DISTINCT ON (session_date) to_char(session_date, 'YYYY-MM-DD'), id FROM sleep_sessions
            WHERE person_id = \(person) AND session_date = ANY(\(dates.map(\.description))::date[])
            ORDER BY session_date, started_at DESC
            """)
        var found: [SessionKey: SessionID] = [:]
        for row in rows {
            let (date, id) = try row.decode((String, String).self)
            if let key = SessionKey(parsing: date) { found[key] = SessionID(rawValue: id) }
        }
        return found
    }

    func medication(id: String) throws -> MedicationRecord? {
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: "SELECT \(Self.medicationColumns) FROM medication_events WHERE person_id = $1 AND id = $2", binds: binds(person, id)))
        return try rows.first.map(Self.medication(from:))
    }

    func medications(on date: SessionKey?, limit: Int) throws -> [MedicationRecord] {
        var binds = binds(person, date?.description ?? "")
        binds.append(limit)
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(Self.medicationColumns) FROM medication_events
                    WHERE person_id = $1 AND ($2 = '' OR session_date = to_date(nullif($2, ''), 'YYYY-MM-DD'))
                    ORDER BY taken_at DESC LIMIT $3
                    """, binds: binds))
        return try rows.map(Self.medication(from:))
    }

    func insertMedications(_ entries: [MedicationRecord]) throws {
        // Sent without waiting, one statement each: a batch costs no round trip of its own.
        for entry in entries {
            write(
                """
                INSERT INTO medication_events (id, person_id, session_id, session_date, medication_id, dose_mg, dose_amount, dose_unit,
                    formulation, taken_at, recorded_at, utc_offset_minutes, time_zone, source, notes, confirmed_duplicate, batch_id)
                VALUES (\(entry.id), \(person), \(entry.sessionID?.rawValue), \(entry.sessionDate.description)::date, \(entry.medication.id),
                    \(entry.doseMg), \(entry.amount), \(entry.unit.rawValue), \(entry.medication.formulation.rawValue),
                    \(text(entry.takenAt))::timestamptz, \(text(entry.recordedAt))::timestamptz, \(entry.utcOffsetMinutes), \(entry.timeZoneID),
                    'user', \(entry.note), \(entry.confirmedDuplicate), \(entry.batchID))
                """, changingNights: false)
        }
    }

    func deleteMedication(id: String) throws {
        write("DELETE FROM medication_events WHERE person_id = \(person) AND id = \(id)", changingNights: false)
    }

    func preSleepLog(night: SessionID) throws -> StoredPreSleepLog? {
        let rows = try session.rows(
            "SELECT id, answers_json, completion_state FROM pre_sleep_logs WHERE person_id = \(person) AND session_id = \(night.rawValue)")
        return try rows.first.map { row in
            let (id, answers, completion) = try row.decode((String, String, String).self)
            return StoredPreSleepLog(id: id, answersJSON: answers, completion: completion)
        }
    }

    func deletePreSleepLog(id: String) throws {
        write("DELETE FROM pre_sleep_logs WHERE person_id = \(person) AND id = \(id)", changingNights: false)
    }

    func insertPreSleepLog(_ entry: PreSleepEntry) throws {
        let json = String(decoding: try NightRecords.metadataEncoder.encode(entry.log), as: UTF8.self)
        write(
            """
            INSERT INTO pre_sleep_logs (id, person_id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, note,
                completion_state, answers_json)
            VALUES (\(entry.id), \(person), \(entry.night.rawValue), \(text(entry.occurredAt))::timestamptz,
                \(text(entry.recordedAt))::timestamptz, \(LocalClock.offsetMinutes(entry.timeZone, at: entry.occurredAt)),
                \(entry.timeZone.identifier), \(entry.source.rawValue), \(entry.note), \(entry.completion.rawValue), \(json))
            """, changingNights: false)
    }

    func latestCheckIn(ofNightDated date: SessionKey) throws -> StoredCheckIn? {
        let rows = try session.rows(
            """
            SELECT c.id, c.session_id, dosetap_instant(c.occurred_at), \(unescaped: NightRecords.answerColumns.replacingOccurrences(of: "\n", with: " "))
            FROM morning_checkins AS c JOIN sleep_sessions AS s ON s.id = c.session_id
            WHERE c.person_id = \(person) AND s.session_date = \(date.description)::date
            ORDER BY c.occurred_at DESC LIMIT 1
            """)
        guard let cells = rows.first?.makeRandomAccess() else { return nil }
        let answers = try NightRecords.answers(
            NightRecords.AnswerCells(
                int: { try cells[3 + $0].decode(Int.self) }, text: { try cells[3 + $0].decode(String?.self) },
                flag: { try cells[3 + $0].decode(Bool.self) }))
        return StoredCheckIn(
            id: EventID(rawValue: try cells[0].decode(String.self)), night: SessionID(rawValue: try cells[1].decode(String.self)),
            occurredAt: NightRecords.instant(try cells[2].decode(String.self)), answers: answers)
    }

    func rewriteCheckIn(_ id: EventID, answers: MorningCheckIn) throws {
        var binds = PostgresBindings()
        for value in try CheckInColumns(answers).values() { value.append(to: &binds) }
        binds.append(id.rawValue)
        binds.append(person)
        let assignments = CheckInColumns.names.enumerated().map { "\($1) = $\($0 + 1)" }.joined(separator: ", ")
        let count = CheckInColumns.names.count
        write(
            PostgresQuery(
                unsafeSQL: "UPDATE morning_checkins SET \(assignments) WHERE id = $\(count + 1) AND person_id = $\(count + 2)", binds: binds))
    }

    func hasSleepEnvironment() throws -> Bool {
        let rows = try session.rows(
            "SELECT EXISTS (SELECT 1 FROM morning_checkins WHERE person_id = \(person) AND sleep_environment_json IS NOT NULL)")
        return try rows.first?.decode(Bool.self) ?? false
    }

    func audit(_ action: AuditAction, id: String, at instant: Date, night: SessionID?, entity: String?, details: [String: String]) throws {
        let json = String(decoding: try NightRecords.metadataEncoder.encode(details), as: UTF8.self)
        write(
            """
            INSERT INTO audit_log (id, person_id, at, action, session_id, entity_id, details)
            VALUES (\(id), \(person), \(text(instant))::timestamptz, \(action.rawValue), \(night?.rawValue), \(entity), \(json))
            """, changingNights: false)
    }

    func forgetStoredResponses(before instant: Date) throws {
        write("DELETE FROM idempotency_keys WHERE person_id = \(person) AND created_at < \(text(instant))::timestamptz", changingNights: false)
    }

    /// An entry from a row of `medicationColumns`; a medication the catalogue no longer knows is refused as an invalid
    /// store.
    private static func medication(from row: PostgresRow) throws -> MedicationRecord {
        let cells = row.makeRandomAccess()
        return MedicationRecord(
            id: try cells[0].decode(String.self), medication: try MedicationCatalogue.medication(id: try cells[1].decode(String.self)),
            doseMg: try cells[2].decode(Double.self), amount: try cells[3].decode(Double.self),
            unit: DoseUnit(rawValue: try cells[4].decode(String.self)) ?? .mg, takenAt: NightRecords.instant(try cells[5].decode(String.self)),
            recordedAt: NightRecords.instant(try cells[6].decode(String.self)), timeZoneID: try cells[7].decode(String.self),
            utcOffsetMinutes: try cells[8].decode(Int.self),
            sessionDate: SessionKey(parsing: try cells[9].decode(String.self)) ?? SessionKey(year: 1970, month: 1, day: 1)!,
            sessionID: try cells[10].decode(String?.self).map(SessionID.init(rawValue:)), note: try cells[11].decode(String?.self),
            confirmedDuplicate: try cells[12].decode(Bool.self), batchID: try cells[13].decode(String.self))
    }
}
