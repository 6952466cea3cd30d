import DoseCore
import DoseTestSupport
import Foundation

/// Named instants and a small builder for nights, all in explicit zones.
enum Fixture {
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let paris = TimeZone(identifier: "Europe/Paris")!
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    static let utc = TimeZone(identifier: "UTC")!

    /// 22:30 in New York on 10 March 2026, a plain winter night.
    static let dose1 = WallClock.date(2026, 3, 10, 22, 30)

    static func minutes(_ m: Double, after date: Date = dose1) -> Date { date.addingTimeInterval(m * 60) }

    static func settings(_ zone: TimeZone = newYork) -> DoseSettings { DoseSettings(timeZoneID: zone.identifier) }

    static func context(at now: Date, settings: DoseSettings = settings(), zone: TimeZone? = nil, ids: TestClock = TestClock(dose1)) -> NightContext {
        NightContext(now: now, settings: settings, timeZone: zone, makeID: { ids.nextID() })
    }

    /// Applies actions in order, each at its own instant; fails the test on a refusal.
    static func night(
        _ steps: [(NightAction.Kind, Date)], confirm: Set<ConfirmKind> = [], settings: DoseSettings = settings(),
        zone: TimeZone? = nil, ids: TestClock = TestClock(dose1)
    ) throws -> NightSession? {
        var session: NightSession?
        for (kind, instant) in steps {
            let decision = try NightRules.decide(
                NightAction(kind, confirmations: confirm), session: session,
                context: context(at: instant, settings: settings, zone: zone, ids: ids))
            session = decision.session
        }
        return session
    }

    /// A session with Dose 1 at `dose1`.
    static func afterDose1(at dose1: Date = dose1, settings: DoseSettings = settings(), zone: TimeZone? = nil) throws -> NightSession {
        try night([(.dose1, dose1)], settings: settings, zone: zone)!
    }

    /// Decides one action at `now`, returning the refusal or nil.
    static func refusal(_ action: NightAction, session: NightSession?, at now: Date, settings: DoseSettings = settings(), zone: TimeZone? = nil)
        -> DoseError?
    {
        do {
            _ = try NightRules.decide(action, session: session, context: context(at: now, settings: settings, zone: zone))
            return nil
        } catch {
            return error
        }
    }
}
