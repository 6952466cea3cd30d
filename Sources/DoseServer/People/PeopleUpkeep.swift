import DoseApp
import DoseStore
import Foundation
import Synchronization

/// Everyone's upkeep on one instance of a shared store, in one loop whatever the number of people (issue 36). The
/// reminder jobs ring the plans; what is left is asked of the database for everyone at once, and a person's own records
/// are read only when something of theirs can be due:
/// - **open pages**: one read of the night versions of the people with a page open here, four times a second; a night
///   that moved (on any instance) is read and its pages told, and every watched night is read at least every 2 s, so a
///   setting changed elsewhere reaches them too;
/// - **the escalation ladder**: every 2 s, the people with a ladder and a night under way (one query), then their ladders;
/// - **the refill reminder**: the supply of each person who keeps one, once every 10 minutes, a tenth of them each
///   minute (one query says who keeps one);
/// - **the run log**: one run per instance, alive every 30 s, so a night can tell when the service was down;
/// - **done jobs**: purged after two days (the reminder log keeps what each did);
/// - **idle sites**: a person's routes, let go 10 minutes after they were last needed.
extension PeopleSites {
    /// How often the people with an open page are looked at.
    static let pagesPace: Duration = .milliseconds(250)
    /// The longest a watched night goes unread.
    static let pagesFullRead: TimeInterval = 2
    /// How long a full round of refill checks takes; a slice of it is checked each minute.
    static let refillRound = 10
    /// How long a person's site is kept after it was last needed.
    static let siteKept: TimeInterval = 600
    /// How long a done job is kept.
    static let jobsKept: TimeInterval = 2 * 86_400

    /// Runs the upkeep until cancelled, on the request threads: its reads wait on the network.
    func runUpkeep(every pace: Duration = pagesPace) async {
        await withTaskExecutorPreference(BlockingExecutor.shared) { await upkeep(every: pace) }
    }

    private func upkeep(every pace: Duration) async {
        var state = UpkeepState()
        state.run = try? lobbyReminders.serverStarted()
        while !Task.isCancelled {
            await upkeepRound(&state, now: base.now())
            do { try await base.sleep(pace) } catch { break }
        }
        if let run = state.run { _ = try? lobbyReminders.serverAlive(run, stopped: true) }
    }

    /// The service's own records (its run log), kept through nobody's records.
    private var lobbyReminders: ReminderService {
        var lobby = base
        lobby.store = base.store.of(person: RecordStore.nobody)
        return lobby.useCases().reminders
    }

    /// One round of the upkeep at `now`: each part runs when its interval has passed. Tests wait for what it sends.
    func upkeepRound(_ state: inout UpkeepState, now: Date, waitForDeliveries: Bool = false) async {
        await refreshPages(&state, now: now)
        if UpkeepState.due(&state.ladderAt, every: ReminderEngine.ladderInterval, now: now) {
            for person in (try? shared.peopleWithALadder(around: now)) ?? [] {
                await site(person).engine.checkLadder(waitForDeliveries: waitForDeliveries)
            }
        }
        if UpkeepState.due(&state.peopleAt, every: 30, now: now), let everyone = try? shared.people().map(\.id) {
            for person in Set(state.people).subtracting(everyone) { forget(person) }
            state.people = everyone.sorted()
            if let run = state.run { _ = try? lobbyReminders.serverAlive(run) }
            _ = try? shared.purgeReminderJobs(doneBefore: now.addingTimeInterval(-Self.jobsKept))
            await releaseIdleSites(before: now.addingTimeInterval(-Self.siteKept))
        }
        if UpkeepState.due(&state.refillAt, every: 60, now: now), let keeping = try? shared.peopleKeepingASupply() {
            state.keepingASupply = keeping
            await checkRefills(&state, waitForDeliveries: waitForDeliveries)
        }
    }

    /// Tells the open pages of every watched person whose night moved, or was not read for `pagesFullRead`.
    private func refreshPages(_ state: inout UpkeepState, now: Date) async {
        let watching = watched.withLock { $0 }
        let people = Array(watching)
        state.versions = state.versions.filter { watching.contains($0.key) }
        guard !people.isEmpty, let versions = try? shared.nightVersions(of: people) else { return }
        for person in people {
            let stale = state.pagesReadAt[person].map { abs(now.timeIntervalSince($0)) >= Self.pagesFullRead } ?? true
            guard stale || versions[person] != state.versions[person] else { continue }
            guard (try? await site(person).engine.refreshPages()) != nil else { continue }
            state.versions[person] = versions[person]
            state.pagesReadAt[person] = now
        }
        state.pagesReadAt = state.pagesReadAt.filter { watching.contains($0.key) }
    }

    /// The refill reminders of this minute's slice of the people who keep a supply: each is looked at once per
    /// `refillRound` minutes. A person's site is made only when their reminder is due.
    private func checkRefills(_ state: inout UpkeepState, waitForDeliveries: Bool) async {
        let people = state.keepingASupply
        let chosen = UpkeepState.refillSlice(of: people.count, from: &state.refillNext, round: Self.refillRound)
        for person in people[chosen] {
            var environment = base
            environment.store = base.store.of(person: person)
            guard let due = try? environment.useCases().supply.claimRefillReminder() else { continue }
            await site(person).engine.sendRefill(due, at: environment.now(), waitForDeliveries: waitForDeliveries)
        }
    }
}

/// What the upkeep remembers between rounds.
struct UpkeepState {
    /// This instance's run in the run log.
    var run: String?
    var versions: [String: Int64] = [:]
    var pagesReadAt: [String: Date] = [:]
    var ladderAt: Date?
    var peopleAt: Date?
    var refillAt: Date?
    /// Everyone served, sorted, as last read.
    var people: [String] = []
    /// The people who keep a supply, as last read, and which of the refill round's slices of them is next.
    var keepingASupply: [String] = []
    var refillNext = 0

    /// Whether `every` seconds passed since `last` (or the clock went back); if so, `last` becomes `now`.
    static func due(_ last: inout Date?, every interval: TimeInterval, now: Date) -> Bool {
        if let previous = last, now >= previous, now.timeIntervalSince(previous) < interval { return false }
        last = now
        return true
    }

    /// This minute's slice of `count` people: the `minute`-th of `round` nearly equal slices, so each person is looked
    /// at once in `round` minutes; `minute` moves on to the next, and back to the first after the last.
    static func refillSlice(of count: Int, from minute: inout Int, round: Int) -> Range<Int> {
        let slice = minute % round
        minute = (slice + 1) % round
        return (slice * count / round)..<((slice + 1) * count / round)
    }
}
