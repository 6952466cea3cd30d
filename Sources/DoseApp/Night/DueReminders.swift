public import DoseCore
public import DoseStore
public import Foundation

/// The reminders that came due at one tick of the reminder engine.
public struct DueReminders: Sendable {
    /// The night they belong to.
    public var sessionID: SessionID?
    /// To deliver now (due within the last two minutes).
    public var fire: [Reminder]
    /// Due earlier while nothing was running: logged as missed, never fired late.
    public var missed: [Reminder]
    /// Logged as fired by an instance that stopped before delivering them, and still ringing: delivered now, on the
    /// channels that instance had not reached, and not logged again.
    public var resumed: [Reminder] = []
    /// Tonight's revision (`StatusSnapshot.revision`), read in the same transaction.
    public var revision: Int = 0
    /// The settings in force (where an escalation goes).
    public var settings: DoseSettings?
    /// The night's Dose 1 and zone (what an escalation tells the contact).
    public var dose1At: Date?
    public var timeZone: TimeZone?
    /// Whether a snooze is possible now: a reminder offers only the buttons that can work.
    public var canSnooze = false
}

extension NightLedger {

    /// Settles the night, then returns the reminders of its plan that came due and are not yet logged, logging each
    /// as fired or missed in the same transaction, so each reminder is delivered at most once, across restarts.
    /// A reminder in `sent` went out already (the engine sends from a read, then claims): it is logged as fired, however
    /// late the claim.
    ///
    /// With `claimed` (the reminder jobs an instance holds the lease of, by log key), only those are taken, so each due
    /// reminder has one deliverer however many instances run; `resuming` are claimed ones already logged as fired.
    public func takeDueReminders(clock: StoreClock, sent: Set<String> = [], claimed: Set<String>? = nil, resuming: Set<String> = []) throws
        -> DueReminders
    {
        try repository.write { night in
            let settings = try night.settings(machineTimeZoneID: clock.machineTimeZoneID)
            let zone = clock.zone(settings)
            let open = try Self.applyLifecycle(night, settings: settings, zone: zone, clock: clock).open
            let due = try Self.due(open: open, settings: settings, zone: zone, now: clock.now, night, only: claimed, resuming: resuming)
            if let session = open {
                for reminder in due.fire + due.missed {
                    let missed = due.missed.contains(reminder) && !sent.contains(reminder.logKey)
                    try night.logReminder(reminder, night: session.id, missed: missed, at: clock.now)
                }
            }
            return due
        }
    }

    /// The reminders `takeDueReminders` would take now, read without writing: a read never waits for the writer,
    /// so the engine finds what is due while an import or another process holds it. `settles` tells whether the
    /// night's lifecycle has something to write (a closure or the sleep-through expiry).
    public func peekDueReminders(clock: StoreClock) throws -> (due: DueReminders, settles: Bool) {
        try repository.read { night in
            let settings = try night.settings(machineTimeZoneID: clock.machineTimeZoneID)
            let zone = clock.zone(settings)
            guard let open = try night.openNight() else {
                return (try Self.due(open: nil, settings: settings, zone: zone, now: clock.now, night), false)
            }
            let update = SessionLifecycle.evaluate(open, now: clock.now, settings: settings, timeZone: zone, makeID: clock.makeID)
            let settled = SessionLifecycle.apply(update, to: open)
            return (try Self.due(open: settled.isOpen ? settled : nil, settings: settings, zone: zone, now: clock.now, night), !update.isEmpty)
        }
    }

    /// The open night's reminders due by `now` and not yet logged: those still ringing to fire, older ones missed.
    private static func due(
        open: NightSession?, settings: DoseSettings, zone: TimeZone, now: Date, _ night: any NightTransaction, only: Set<String>? = nil,
        resuming: Set<String> = []
    ) throws -> DueReminders {
        let revision = Self.revision(session: open, settings: settings)
        guard let session = open else { return DueReminders(sessionID: nil, fire: [], missed: [], revision: revision) }
        let logged = try night.loggedReminders(night: session.id)
        var due = DueReminders(
            sessionID: session.id, fire: [], missed: [], revision: revision, settings: settings,
            dose1At: session.facts.dose1?.occurredAt,
            timeZone: zone)
        let answers = try night.alarmAnswers(night: session.id)
        for reminder in ReminderPlan.plan(for: session, settings: settings, acknowledgedAt: answers) where reminder.fireAt <= now {
            if let only, !only.contains(reminder.logKey) { continue }
            guard !logged.contains(reminder.logKey) else {
                if resuming.contains(reminder.logKey), ReminderPlan.stillRings(reminder, at: now) { due.resumed.append(reminder) }
                continue
            }
            if ReminderPlan.stillRings(reminder, at: now) { due.fire.append(reminder) } else { due.missed.append(reminder) }
        }
        // The buttons a reminder offers depend on whether a snooze can work; worked out only when one fires.
        if !due.fire.isEmpty || !due.resumed.isEmpty {
            due.canSnooze = NightStatus.derive(session: session, at: now, settings: settings, timeZone: zone).canSnooze
        }
        return due
    }
}
