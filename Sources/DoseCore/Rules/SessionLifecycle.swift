public import Foundation

/// What the passage of time does to an open session (SPEC D3, §3.2): the sleep-through expiry, then a close.
public struct LifecycleUpdate: Sendable, Hashable {
    /// The `dose2_skipped` (reason `slept_through`, source `system`) to record, stamped at Dose 1 + 270 min.
    public var expiry: NightEvent?
    /// The close to apply, if a boundary has passed.
    public var closure: SessionClosure?

    /// Whether nothing needs doing.
    public var isEmpty: Bool { expiry == nil && closure == nil }
}

/// Session boundaries, evaluated before every action and status read.
public enum SessionLifecycle {
    /// What has become due for an open session by `now`. Closed sessions never change.
    public static func evaluate(
        _ session: NightSession, now: Date, settings: DoseSettings, timeZone: TimeZone,
        makeID: @Sendable () -> String
    ) -> LifecycleUpdate {
        guard session.isOpen else { return LifecycleUpdate() }
        var update = LifecycleUpdate()
        var facts = session.facts
        // A night the person ended without Dose 2 (a wake-up confirmed with end_night, D16) did not run out: no expiry
        // is recorded on it, so it reads as ended without Dose 2, never as slept through.
        if let dose1 = facts.dose1, let window = facts.window, facts.dose2 == nil, facts.skip == nil, !facts.endedBeforeExpiry {
            let expiresAt = window.expires(after: dose1.occurredAt)
            if now >= expiresAt {
                var metadata = EventMetadata()
                metadata.skipReason = NightFacts.sleptThroughReason
                let expiry = NightEvent(
                    id: EventID(rawValue: makeID()), kind: .dose2Skipped, occurredAt: expiresAt,
                    recordedAt: now, timeZone: timeZone, source: .system, metadata: metadata)
                update.expiry = expiry
                facts.fold(expiry)
            }
        }
        // Both boundaries are fixed by the session's start, and the earliest one that has passed closes it, so the
        // close (and so which night a new action joins) does not depend on when someone happened to look.
        let boundaries = [
            (missedCheckinCutoff(for: session, settings: settings, timeZone: timeZone), EndReason.missedCheckinCutoff),
            (prepRollover(for: session, settings: settings, timeZone: timeZone), .prepRollover),
        ]
        if let (endedAt, reason) = boundaries.filter({ now >= $0.0 }).min(by: { $0.0 < $1.0 }) {
            update.closure = SessionClosure(endedAt: endedAt, reason: reason, terminalState: facts.terminalState(at: endedAt))
        }
        return update
    }

    /// The first local wake time strictly after the session started, plus the cutoff hours.
    public static func missedCheckinCutoff(for session: NightSession, settings: DoseSettings, timeZone: TimeZone) -> Date {
        let wake = LocalClock.nextOccurrence(of: settings.wakeTime, after: session.startedAt, in: timeZone)
        return wake.addingTimeInterval(TimeInterval(settings.missedCheckinCutoffHours * 3600))
    }

    /// The first local prep time strictly after the session started. SPEC §3.2 says "today's prep time"; read only
    /// on the day it passes, that is the same instant, but a night first looked at after midnight must still close.
    public static func prepRollover(for session: NightSession, settings: DoseSettings, timeZone: TimeZone) -> Date {
        LocalClock.nextOccurrence(of: settings.prepTime, after: session.startedAt, in: timeZone)
    }

    /// The session with a lifecycle update applied.
    public static func apply(_ update: LifecycleUpdate, to session: NightSession) -> NightSession {
        var session = session
        if let expiry = update.expiry { session = session.adding(expiry) }
        if let closure = update.closure {
            session.endedAt = closure.endedAt
            session.endReason = closure.reason
        }
        return session
    }
}

/// Describes a change of UTC offset between Dose 1 and now (SPEC §3.6).
public enum TimeZoneShift {
    /// "Timezone shifted 3 hours east", "… 1 hour 30 minutes west"; nil when the offset is the same.
    public static func describe(fromOffsetMinutes from: Int, toOffsetMinutes to: Int) -> String? {
        let delta = to - from
        guard delta != 0 else { return nil }
        let hours = abs(delta) / 60
        let minutes = abs(delta) % 60
        let direction = delta > 0 ? "east" : "west"
        var parts: [String] = []
        if hours > 0 { parts.append("\(hours) \(hours == 1 ? "hour" : "hours")") }
        if minutes > 0 { parts.append("\(minutes) \(minutes == 1 ? "minute" : "minutes")") }
        return "Timezone shifted \(parts.joined(separator: " ")) \(direction)"
    }

    /// The warning for a night whose Dose 1 was taken in another zone with another offset than now's.
    /// A DST change inside one zone is not travel, so it gives none.
    public static func warning(dose1: NightEvent, now: Date, timeZone: TimeZone) -> String? {
        guard dose1.timeZoneID != timeZone.identifier else { return nil }
        guard let text = describe(fromOffsetMinutes: dose1.utcOffsetMinutes, toOffsetMinutes: LocalClock.offsetMinutes(timeZone, at: now)) else {
            return nil
        }
        return text + " since Dose 1; times are shown in \(timeZone.identifier). The window still counts from Dose 1."
    }
}

/// Which night a morning check-in belongs to when no night is open: the latest night that closed within the last
/// day and has no check-in yet. A check-in days later attaches to nothing rather than to an old night.
public enum CheckInAttachment {
    /// How long after a night closed a check-in may still attach to it.
    public static let window: TimeInterval = 24 * 3600

    /// The night a check-in made at `now` attaches to, from closed nights and whether each already has a check-in.
    public static func night(among closed: [(session: NightSession, checkedIn: Bool)], now: Date) -> NightSession? {
        let earliest = now.addingTimeInterval(-window)
        return closed.filter { candidate in
            guard let ended = candidate.session.endedAt else { return false }
            return !candidate.checkedIn && ended >= earliest
        }
        .max { ($0.session.endedAt ?? .distantPast) < ($1.session.endedAt ?? .distantPast) }?.session
    }
}
