public import DoseCore
public import DoseStore
public import Foundation

/// One alert of the escalation ladder, claimed and ready to send: who is told, about whose night, and the words.
public struct LadderAlert: Sendable, Hashable {
    /// The grantee told.
    public let person: String
    public let sessionID: String
    public let fireAt: Date
    public let usefulUntil: Date
    public let message: String
}

/// The escalation ladder (SPEC §5.6): the person orders the people they share `alarms` with, each at a minute of the
/// Dose 2 window; while Dose 2 is pending each is told in turn, until one of them answers. Only on a shared store.
public struct LadderService: Sendable {
    let app: UseCases

    /// The acting person's ladder, in order.
    public func rungs() throws -> [(share: ShareRecord, minutesAfterDose1: Int)] {
        let (store, person) = try app.sharing.sharedStore()
        return try store.ladder(of: person)
    }

    /// Replaces the acting person's ladder: each rung by address, in order, with its minute after Dose 1. Refused by name:
    /// an address that holds no `alarms` from them, a minute outside the window, one person twice, a rung out of order.
    public func set(_ rungs: [(email: String, minutesAfterDose1: Int)]) throws -> [(share: ShareRecord, minutesAfterDose1: Int)] {
        let (store, person) = try app.sharing.sharedStore()
        let shares = try store.shares(owner: person)
        var resolved: [EscalationLadder.Rung] = []
        for (index, rung) in rungs.enumerated() {
            let email = try EmailAddress(rung.email)
            guard let share = shares.first(where: { $0.grantee.email == email.text }), share.grants.contains(.alarms) else {
                throw DoseError.invalidInput(
                    field: "rungs[\(index)].email", problem: "you do not share alarms with \(email)",
                    allowed: "someone you share alarms with: "
                        + (shares.filter { $0.grants.contains(.alarms) }.map(\.grantee.shownName).joined(separator: ", ")))
            }
            resolved.append(EscalationLadder.Rung(person: share.grantee.id, minutesAfterDose1: rung.minutesAfterDose1))
        }
        try EscalationLadder.check(resolved)
        try store.setLadder(of: person, resolved.map { ($0.person, $0.minutesAfterDose1) })
        let words = resolved.compactMap { rung in
            shares.first { $0.grantee.id == rung.person }.map { "\($0.grantee.shownName) at \(rung.minutesAfterDose1) min" }
        }
        try app.sharing.record(
            to: person, by: person, "ladder", words.isEmpty ? "emptied the alarm ladder" : "set the alarm ladder: " + words.joined(separator: ", "))
        return try store.ladder(of: person)
    }

    /// The ladder's alerts due now for the acting person's open night, each claimed in the night's reminder log (so it
    /// goes out once, whichever caller claims it) while its share still holds `alarms`, and recorded in their audit.
    public func due() throws -> [LadderAlert] {
        guard let store = app.store.shared, let person = app.store.personID else { return [] }
        let ladder = try store.ladder(of: person)
        guard !ladder.isEmpty else { return [] }
        let snapshot = try app.night.status()
        guard let session = snapshot.session else { return [] }
        let rungs = ladder.map { EscalationLadder.Rung(person: $0.share.grantee.id, minutesAfterDose1: $0.minutesAfterDose1) }
        var alerts: [LadderAlert] = []
        // D20: a dose recorded as taken past the night's limits is told to every rung at once, whatever Dose 2's state.
        let facts = session.facts
        for dose in facts.extraDoses where dose.metadata.takenAnyway && dose.occurredAt <= app.clock.now {
            for rung in ladder {
                let grantee = rung.share.grantee.id
                guard try store.claimRung(owner: person, grantee: grantee, session: session.id.rawValue, fireAt: dose.occurredAt, at: app.clock.now)
                else { continue }
                let message = Self.pastLimitMessage(
                    about: rung.share.owner, dose: dose, session: session, settings: snapshot.settings, zone: snapshot.timeZone)
                alerts.append(
                    LadderAlert(
                        person: grantee, sessionID: session.id.rawValue, fireAt: dose.occurredAt,
                        usefulUntil: dose.occurredAt.addingTimeInterval(Self.pastLimitUsefulFor), message: message))
                try app.sharing.record(to: person, by: grantee, "alerted", "told that a dose was taken past tonight's limits (alarm ladder)")
                try mailCopy(of: alerts.last!, to: rung.share.grantee, owner: person, store: store)
            }
        }
        let steps = EscalationLadder.steps(for: session, settings: snapshot.settings, rungs: rungs)
        guard let first = steps.map(\.fireAt).min(), first <= app.clock.now else { return alerts }
        let answers = try store.acknowledgements(of: person, by: rungs.map(\.person), since: first)
        for step in EscalationLadder.due(steps, answeredAt: answers, now: app.clock.now) {
            guard try store.claimRung(owner: person, grantee: step.rung.person, session: session.id.rawValue, fireAt: step.fireAt, at: app.clock.now)
            else { continue }
            let name = ladder.first { $0.share.grantee.id == step.rung.person }?.share
            let message = Self.message(about: name?.owner, session: session, zone: snapshot.timeZone)
            alerts.append(
                LadderAlert(
                    person: step.rung.person, sessionID: session.id.rawValue, fireAt: step.fireAt, usefulUntil: step.usefulUntil, message: message))
            try app.sharing.record(to: person, by: step.rung.person, "alerted", "told that Dose 2 is still pending (alarm ladder)")
            if let grantee = name?.grantee { try mailCopy(of: alerts.last!, to: grantee, owner: person, store: store) }
        }
        return alerts
    }

    /// Queues a mailed copy of `alert` for `grantee` when this DoseTap sends mail and they chose it for `owner`'s alerts.
    /// The alert is already claimed, so the copy is queued once; one held back by the hour's limit is said in the audit.
    func mailCopy(of alert: LadderAlert, to grantee: PersonRecord, owner: String, store: PostgresStore) throws {
        guard app.sendsMail, let address = grantee.email, try store.mailsAlerts(owner: owner, grantee: grantee.id) else { return }
        let mail = OutgoingMail.alert(to: address, message: alert.message, id: app.clock.makeID())
        if try !store.queueMail(mail, at: app.clock.now, hourlyLimit: OutgoingMail.hourlyLimit) {
            try app.sharing.record(to: owner, by: grantee.id, "alerted", "its mailed copy was held back: their address had the hour's mail already")
        }
    }

    /// Chooses whether `owner`'s ladder alerts are mailed to the acting person too; refused without an `alarms` share.
    public func mailAlerts(from owner: String, _ on: Bool) throws {
        guard let store = app.store.shared, let person = app.store.personID else { throw SharingService.unshared }
        guard try store.setMailAlerts(owner: String(owner.prefix(64)), grantee: person, on) else {
            throw DoseError.notFound(what: "a share of alarms with you from '\(owner.prefix(64))'")
        }
    }

    /// How long the news of a dose past the night's limits is worth sending: the hours its effect lasts.
    static let pastLimitUsefulFor: TimeInterval = 4 * 3600

    /// What every rung is told of a dose recorded as taken past the night's limits (D20): whose, when, how much in all,
    /// and the words to call for help.
    static func pastLimitMessage(about owner: PersonRecord?, dose: NightEvent, session: NightSession, settings: DoseSettings, zone: TimeZone)
        -> String
    {
        let who = owner.map { $0.name ?? $0.shownName } ?? "The person who shares with you"
        let facts = NightFacts(session.events.filter { $0.occurredAt <= dose.occurredAt })
        let regimen = facts.regimen(or: settings)
        return "DoseTap: \(who) recorded an oxybate dose taken past tonight's limits at \(LocalClock.hourMinute(dose.occurredAt, in: zone)): "
            + "\(RegimenWords.grams(facts.takenMilligrams(regimen: regimen))) tonight in \(facts.doseCount) doses (the most a night may hold "
            + "is \(RegimenWords.grams(regimen.nightlyMaximumMilligrams))). Please go to them now and stay with them. If they are very hard "
            + "to wake, confused, vomiting, or breathing slowly or not at all, call emergency services now (911 in the US, 112 in Europe)."
    }

    /// What a rung is told: whose Dose 2 is pending, since when, until when, and what to do (never a button that could
    /// take the dose: they wake the person, who decides).
    static func message(about owner: PersonRecord?, session: NightSession, zone: TimeZone) -> String {
        let who = owner.map { $0.name ?? $0.shownName } ?? "The person who shares with you"
        let facts = session.facts
        guard let dose1 = facts.dose1?.occurredAt, let window = facts.window else { return "DoseTap: \(who)'s Dose 2 has not been taken." }
        return "DoseTap: \(who)'s Dose 2 has not been taken. Dose 1 was at \(LocalClock.hourMinute(dose1, in: zone)); the window closes at "
            + "\(LocalClock.hourMinute(window.closes(after: dose1), in: zone)). Please wake them; they decide about the dose. "
            + "Answer the alarm in DoseTap to stop the ladder."
    }
}

extension UseCases {
    /// The escalation ladder over the people a person shares `alarms` with.
    public var ladder: LadderService { LadderService(app: self) }
}
