public import DoseCore
public import DoseStore
public import Foundation

/// The operator's page (issue 56): the people of a shared store, what waits on them (invitations, mail), whether
/// reminders go out on time and which instances run, for a person marked operator (`dosetap person operator EMAIL`).
/// Every change it makes is audited with the operator's name.
public struct OperatorService: Sendable {
    let app: UseCases

    /// The window reminder lateness is read over.
    public static let latenessWindow: TimeInterval = 24 * 3600
    /// An instance whose heartbeat is older than this many heartbeats is no longer counted alive.
    public static let aliveHeartbeats = 3.0

    /// The refusal for anyone who is not an operator.
    static let notOperator = DoseError.forbidden(
        why: "the operator's page is for the people who run this DoseTap; `dosetap person operator EMAIL` on its machine makes someone one")

    /// The store and the acting operator, or the refusal.
    func acting() throws -> (store: PostgresStore, person: PersonRecord) {
        guard let store = app.store.shared, let id = app.store.personID else { throw SharingService.unshared }
        guard let person = try store.person(named: id), try store.isOperator(id) else { throw Self.notOperator }
        return (store, person)
    }

    /// Whether the acting person may open the operator's page (a SQLite file has no operators).
    public func isOperator() throws -> Bool {
        guard let store = app.store.shared, let id = app.store.personID else { return false }
        return try store.isOperator(id)
    }

    /// The people of the store, changed in the acting operator's name.
    public func people() throws -> PeopleService {
        let (store, person) = try acting()
        return PeopleService(store: store, clock: app.clock, actor: OperatorActor(id: person.id, name: person.longName))
    }

    /// Everything the page shows, read now.
    public func overview() throws -> OperatorOverview {
        let (store, _) = try acting()
        let reading = try store.operatorReading(
            at: app.clock.now, window: Self.latenessWindow, aliveWithin: Self.aliveHeartbeats * ServerUptime.heartbeatInterval)
        return OperatorOverview(people: try store.people(), operators: try store.operators(), mail: try store.mailQueue(limit: 50), reading: reading)
    }
}

/// What the operator's page shows.
public struct OperatorOverview: Sendable {
    public let people: [PersonRecord]
    public let operators: Set<String>
    public let mail: [MailQueueEntry]
    public let reading: OperatorReading
}

extension UseCases {
    /// The operator's page.
    public var operatorPage: OperatorService { OperatorService(app: self) }
}
