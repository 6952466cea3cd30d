import DoseCore
import Foundation
import PostgresNIO

/// Nights and their events from PostgreSQL rows: what the night's own transaction and a read of past nights both decode.
/// Instants come back through `dosetap_instant`, the same fixed-width UTC text SQLite keeps.
enum PostgresNightRows {
    /// The head of a night: the cells of `PostgresNightTransaction.nightColumns`.
    struct Head {
        let id: String
        let date: String
        let started: String
        let ended: String?
        let reason: String?
    }

    /// The head of a night from a row that starts with `nightColumns`.
    static func head(_ row: PostgresRow) throws -> Head {
        let cells = row.makeRandomAccess()
        return Head(
            id: try cells[0].decode(String.self), date: try cells[1].decode(String.self), started: try cells[2].decode(String.self),
            ended: try cells[3].decode(String?.self), reason: try cells[4].decode(String?.self))
    }

    /// Nights from their heads, with their events by night id.
    static func nights(_ heads: [Head], events: [String: [NightEvent]]) -> [NightSession] {
        heads.map { head in
            NightSession(
                id: SessionID(rawValue: head.id), date: SessionKey(parsing: head.date) ?? SessionKey(year: 1970, month: 1, day: 1)!,
                startedAt: NightRecords.instant(head.started), events: events[head.id] ?? [], endedAt: head.ended.map(NightRecords.instant),
                endReason: head.reason.flatMap(EndReason.init(rawValue:)))
        }
    }

    /// Sends the read of the events of the nights `condition` picks, from the three tables in one statement: the
    /// table's name first, then the id and type, the shared columns (session_id last) and dose metadata.
    static func sendEvents(where condition: String, binds: PostgresBindings, _ session: PostgresSession) -> PendingRows {
        let shared =
            "dosetap_instant(occurred_at), dosetap_instant(recorded_at), time_zone, utc_offset_minutes, source, note, session_id"
        return session.send(
            PostgresQuery(
                unsafeSQL: """
                    SELECT 'dose', id, event_type, \(shared), metadata FROM dose_events WHERE \(condition)
                    UNION ALL SELECT 'sleep', id, event_type, \(shared), NULL FROM sleep_events WHERE \(condition)
                    UNION ALL SELECT 'checkin', id, NULL, \(shared), NULL FROM morning_checkins WHERE \(condition)
                    """, binds: binds))
    }

    /// Events from the rows of `sendEvents`, grouped by night id (unordered; `NightSession` sorts them).
    static func events(from rows: [PostgresRow]) throws -> [String: [NightEvent]] {
        var result: [String: [NightEvent]] = [:]
        // Columns after the table's name: id, type, the shared columns (session_id last), metadata.
        func event(_ cells: PostgresRandomAccessRow, kind: EventKind) throws -> NightEvent {
            NightEvent(
                id: EventID(rawValue: try cells[1].decode(String.self)), kind: kind,
                occurredAt: NightRecords.instant(try cells[3].decode(String.self)),
                recordedAt: NightRecords.instant(try cells[4].decode(String.self)), timeZoneID: try cells[5].decode(String.self),
                utcOffsetMinutes: try cells[6].decode(Int.self), source: EventSource(rawValue: try cells[7].decode(String.self)) ?? .imported,
                note: try cells[8].decode(String?.self))
        }
        for row in rows {
            let cells = row.makeRandomAccess()
            var recorded: NightEvent
            switch try cells[0].decode(String.self) {
            case "dose":
                recorded = try event(cells, kind: EventKind(wireName: try cells[2].decode(String.self)))
                recorded.metadata = try NightRecords.metadataDecoder.decode(EventMetadata.self, from: Data(try cells[10].decode(String.self).utf8))
            case "sleep":
                recorded = try event(cells, kind: .sleep(SleepEventType(rawValue: try cells[2].decode(String.self))))
            default:
                recorded = try event(cells, kind: .checkIn)
            }
            result[try cells[9].decode(String.self), default: []].append(recorded)
        }
        return result
    }
}
