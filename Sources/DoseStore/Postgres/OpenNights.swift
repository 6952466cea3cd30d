import DoseCore
import NIOConcurrencyHelpers

/// The open night of each person as this process last committed it, so a busy server neither reloads a long night's
/// events for every action nor for every status. The stored events stay the source of truth: a copy is used only while
/// the person's `night_version` (migration `v3_night_versions`, bumped by triggers on every night table) is the value
/// read when it was remembered, which proves no one has written a night of that person since.
final class OpenNights: Sendable {
    private let entries = NIOLockedValueBox<[String: (version: Int64, night: NightSession?)]>([:])

    /// The remembered night of `person` if it is still what the store holds at `version`, handed over: the writer
    /// appends to its events in place, and remembers the night again after it commits.
    func take(_ person: String, at version: Int64) -> NightSession?? {
        entries.withLockedValue { entries in
            guard let entry = entries[person], entry.version == version else { return .none }
            entries[person] = nil
            return .some(entry.night)
        }
    }

    /// The remembered night of `person` if it is still what the store holds at `version`, shared with the cache (reads).
    func peek(_ person: String, at version: Int64) -> NightSession?? {
        entries.withLockedValue { entries in
            guard let entry = entries[person], entry.version == version else { return .none }
            return .some(entry.night)
        }
    }

    /// Remembers the open night of `person` (nil: none) as of `version`: read under the person's row lock in a
    /// transaction that has committed, or in a snapshot that read that version. A read keeps a copy a writer remembered
    /// since (`unlessNewer`).
    func remember(_ night: NightSession?, of person: String, at version: Int64, unlessNewer: Bool = false) {
        entries.withLockedValue { entries in
            if unlessNewer, let entry = entries[person], entry.version > version { return }
            entries[person] = (version, night)
        }
    }
}
