import DoseCore
import Foundation
import PostgresNIO

extension PostgresStore {
    /// The person's paired, unrevoked devices, read in one query: the server checks them on every request, where a
    /// workspace would copy the table each time.
    public func activeDevices(of person: String) throws -> [DeviceRecord] {
        try withConnection { session in
            try session.rows(
                "SELECT id, name, token_hash, dosetap_instant(created_at) FROM devices WHERE person_id = \(person) AND revoked_at IS NULL"
            ).map { row in
                let (id, name, hash, created) = try row.decode((String, String, String, String).self)
                return DeviceRecord(id: id, name: name, tokenHash: hash, createdAt: ISO8601.parse(created) ?? .distantPast, revokedAt: nil)
            }
        }
    }
}
