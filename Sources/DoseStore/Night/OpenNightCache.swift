import DoseCore
import Foundation
import GRDB

/// The open night as this process's writer last committed it, so a busy server does not reload a long night's
/// events from disk for every action. The stored events stay the source of truth: the copy is used only while the
/// database is provably unchanged since, which SQLite itself tells us.
///
/// `PRAGMA data_version` changes when another connection (a CLI process) commits; `total_changes()` grows with
/// every row this connection changes, including rolled-back ones. Both are read inside the write transaction, so
/// equal values mean no write of any kind happened in between, and anything else reloads from disk.
final class OpenNightCache: @unchecked Sendable {
    struct Key: Hashable {
        var dataVersion: Int
        var totalChanges: Int
    }

    private let lock = NSLock()
    private var entry: (key: Key, session: NightSession?)?

    /// The writer connection's current key; read it as the transaction's last statement.
    static func key(_ db: Database) throws -> Key {
        let changes = try Int.fetchOne(db.cachedStatement(sql: "SELECT total_changes()")) ?? -1
        let version = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? -1
        return Key(dataVersion: version, totalChanges: changes)
    }

    /// The open night: the remembered copy when nothing has been written since, else loaded from disk. The copy is
    /// handed over, not shared, so the action appends to the night's events in place instead of copying them all;
    /// the action remembers the night again after it commits.
    /// `key` is the database's key as it was read, before the caller writes anything.
    func openSession(_ db: Database) throws -> (session: NightSession?, key: Key) {
        let current = try Self.key(db)
        let hit: NightSession?? = lock.withLock {
            guard let entry, entry.key == current else { return .none }
            self.entry = nil
            return .some(entry.session)
        }
        if let hit { return (hit, current) }
        return (try NightRecords.openSession(db), current)
    }

    /// Remembers the open night (nil: none) as of `key`, taken at the end of a transaction that has committed.
    func remember(_ session: NightSession?, at key: Key) {
        lock.withLock { entry = (key, session) }
    }

    /// The remembered night if it is still valid (tests compare it with a reload).
    func remembered(_ db: Database) throws -> NightSession?? {
        let current = try Self.key(db)
        return lock.withLock { entry?.key == current ? .some(entry?.session) : .none }
    }
}
