public import DoseCore
public import DoseStore
import Foundation

/// The people of a shared PostgreSQL store (SPEC §5.6): the operator adds, lists and removes them. A SQLite file is one
/// person's records, so it has no people to manage.
public struct PeopleService: Sendable {
    let store: PostgresStore
    let clock: StoreClock
    /// Who acts, for the operators' audit: the terminal, an operator at their page, or a sign-up.
    let actor: OperatorActor

    /// The people of `store`, at `clock` (its instant dates a new person, its ids name them), changed by `actor`.
    public init(store: PostgresStore, clock: StoreClock, actor: OperatorActor = .terminal) {
        self.store = store
        self.clock = clock
        self.actor = actor
    }

    /// The phrase `remove` needs for `email`, so a person is never removed by a slip of the keyboard.
    public static func removalPhrase(_ email: String) -> String { "Delete \(email) and all their data" }

    /// The most a name may be.
    public static let nameLimit = 100

    /// Adds a person named by `email`, with `name` and `timeZone` (IANA) when given. Every input is checked before
    /// anything is written, so a refusal adds no one.
    public func add(email raw: String, name: String? = nil, timeZone: String? = nil) throws -> PersonRecord {
        let email = try EmailAddress(raw)
        let name = try name.map(Self.checkedName)
        // Kept as given once known: Foundation names UTC "GMT", which the time_zone setting would then refuse.
        let zone = try timeZone.map { zone throws(DoseError) in
            _ = try ClockInput.timeZone(zone, field: "time-zone")
            return zone
        }
        let person = try store.addPerson(id: clock.makeID(), email: email, name: name, at: clock.now, by: actor)
        if let zone {
            _ = try RecordStore.postgres(store, person: person.id).settingsBook.update([("time_zone", zone)], clock: clock)
        }
        return person
    }

    /// Every person, oldest first.
    public func list() throws -> [PersonRecord] { try store.people() }

    /// Gives the person `named` (an e-mail address or id) the address `email`, by which commands and sign-in links then
    /// name them: a person copied in from a file, or a store's first person, has none until then.
    public func giveAddress(to named: String, email raw: String) throws -> PersonRecord {
        let email = try EmailAddress(raw)
        return try store.setEmail(of: try person(named).id, to: email)
    }

    /// Removes the person `named` (an e-mail address or id) and every row of theirs, once `confirmation` is
    /// `removalPhrase` of their address; nothing is removed otherwise.
    public func remove(_ named: String, confirmation: String?) throws -> PersonRemoval {
        let person = try self.person(named)
        let phrases = Set([named, person.shownName].map(Self.removalPhrase))
        guard let confirmation, phrases.contains(confirmation) else {
            throw DoseError.invalidInput(
                field: "confirm", problem: "removing \(person.shownName) deletes every record of theirs and cannot be undone",
                allowed: "--confirm \"\(Self.removalPhrase(person.shownName))\"")
        }
        let removal = try store.removePerson(person, by: actor, at: clock.now)
        // Mail to them goes too: its address and links were theirs.
        if let email = person.email { try store.forgetMail(to: email) }
        return removal
    }

    /// Makes the person `named` an operator (`on`), who may open `/operator`, or no longer one.
    public func setOperator(_ named: String, _ on: Bool) throws -> PersonRecord {
        let person = try self.person(named)
        try store.setOperator(person, on, by: actor, at: clock.now)
        return person
    }

    /// The ids of the operators.
    public func operators() throws -> Set<String> { try store.operators() }

    /// The person an e-mail address or id names, or the refusal that says there is none.
    public func person(_ named: String) throws -> PersonRecord {
        guard let person = try store.person(named: named) else {
            throw DoseError.invalidInput(
                field: "email", problem: "this store has no person '\(named.prefix(100))'",
                allowed: "an e-mail address or id `dosetap person list` shows")
        }
        return person
    }

    /// A name as kept: trimmed, 1–100 characters, no control characters.
    public static func checkedName(_ raw: String) throws(DoseError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...nameLimit).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw DoseError.invalidInput(field: "name", problem: "the name is empty, too long or has control characters", allowed: "1–100 characters")
        }
        return name
    }
}
