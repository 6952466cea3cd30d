import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseStore

/// Bugs that were PostgreSQL's alone, each pinned where it showed (issue 55). The third, one person's Clear All deleting
/// the store's link and push keys (fe6d726), is `ReminderJobsTests.clearAllKeepsTheServiceTables`.
@Suite("Bugs PostgreSQL once had alone: each night's regimen in insights, and the night's paths that copied into SQLite")
struct HostedRegressionTests {
    static func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date { WallClock.date(2026, 11, day, hour, minute) }

    /// cf501ad: the copy insights read on PostgreSQL left out `dose_events`, where each night's regimen is kept, so every
    /// night read as "recorded before nights kept their regimen" and was judged by today's target.
    @Test(
        "insights tell twice-nightly nights from once-nightly ones by the regimen each Dose 1 recorded, on either store", arguments: EachStore.kinds)
    func insightsReadEachNightsRegimen(_ kind: String) throws {
        let each = try EachStore(kind, at: Self.at(20, 12, 0))
        defer { each.close() }
        _ = try each.app(at: Self.at(20, 12, 0)).settings.update("target_interval", to: "180")
        for (day, dose2Minute) in [(20, 5), (21, 10)] {
            _ = try each.app(at: Self.at(day, 22, 0)).night.perform(NightAction(.dose1), from: .cli)
            _ = try each.app(at: Self.at(day + 1, 1, dose2Minute)).night.perform(NightAction(.dose2), from: .cli)
        }
        _ = try each.app(at: Self.at(22, 12, 0)).settings.update([("regimen", "once_nightly"), ("dose1_mg", "6000")])
        for day in [22, 23] { _ = try each.app(at: Self.at(day, 22, 0)).night.perform(NightAction(.dose1), from: .cli) }

        let insights = try each.app(at: Self.at(25, 12, 0)).insights.insights(nights: 30).insights
        #expect(insights.regimenPeriods.map { $0.regimen?.kind } == [DoseRegimen.Kind.twiceNightly, .onceNightly], "\(insights.regimenPeriods)")
        #expect(insights.regimenPeriods.map(\.nights) == [2, 2])
        #expect(insights.regimenPeriods.last?.timings == [.oneDose: 2], "once-nightly nights are one dose, not a missed Dose 2")
    }

    /// Insights on PostgreSQL read their nights in its own statements: the same nights, summaries, answers and
    /// medications as the SQLite store's reader finds on a copy of the same rows, and as SQLite itself, with no copy made.
    @Test(
        "insights' nights read natively on PostgreSQL equal those read through the copy and those on SQLite, over varied nights",
        .enabled(if: EachStore.kinds.contains("postgres")))
    func insightNightsNatively() throws {
        let stores = try EachStore.kinds.map { try EachStore($0, at: Self.at(1, 12, 0)) }
        defer { for store in stores { store.close() } }
        for each in stores {
            _ = try each.app(at: Self.at(1, 12, 0)).settings.update("target_interval", to: "180")
            for day in 1...12 {
                let app = { (hour: Int, minute: Int) in each.app(at: Self.at(day + hour / 24, hour % 24, minute)) }
                if day % 3 == 0 {
                    var log = PreSleepLog()
                    log.stressLevel = day % 5
                    _ = try app(21, 40).records.savePreSleep(log, at: nil, note: "day \(day)")
                }
                _ = try app(22, day).night.perform(NightAction(.dose1), from: .cli)
                if day % 4 == 1 {
                    _ = try app(22, 30).medications.log([MedicationInput(medicationID: "modafinil", amount: 100)], confirmations: [])
                }
                switch day % 5 {
                case 0: _ = try app(25, 0).night.perform(NightAction(.skip(reason: "slept through")), from: .cli)
                case 1: _ = try app(24, 31).night.perform(NightAction(.dose2, confirmations: [.early]), from: .cli)
                case 2:
                    _ = try app(24, 45).night.perform(NightAction(.snooze), from: .cli)
                    _ = try app(25, 5).night.perform(NightAction(.dose2), from: .cli)
                default: _ = try app(25, 10 + day).night.perform(NightAction(.dose2), from: .cli)
                }
                if day % 2 == 0 {
                    var answers = MorningCheckIn()
                    answers.sleepQuality = 1 + day % 5
                    answers.readiness = 1 + day % 4
                    _ = try app(31, 0).night.perform(NightAction(.checkIn(answers)), from: .cli)
                }
            }
        }
        let (from, to) = (SessionKey(year: 2026, month: 11, day: 1)!, SessionKey(year: 2026, month: 11, day: 30)!)
        let sqlite = try #require(stores.first { if case .sqlite = $0.store { true } else { false } })
        let postgres = try #require(stores.first { if case .postgres = $0.store { true } else { false } })
        guard case .postgres(let store, let person) = postgres.store else { return }
        let copies = store.sqliteCopiesMade
        let native = try store.insightNights(of: person, from: from, to: to)
        #expect(store.sqliteCopiesMade == copies, "read without a copy into SQLite")
        let onFile = try sqlite.store.insightNights(from: from, to: to)
        #expect(native.count == 12 && native.contains { $0.summary.skip != nil } && native.contains { $0.checkIn != nil })
        #expect(
            native.contains { $0.preSleep != nil } && native.contains { $0.medications == ["Modafinil"] }
                && native.contains { $0.summary.snoozes == 1 })
        #expect(native == onFile)
    }

    /// 672f0bb: each delivery attempt on PostgreSQL copied the person's nights into SQLite to append one row; at 10,000
    /// people the delivery log fell behind and delivered reminders stayed 'sending'. The night's other frequent paths
    /// were moved off the copy since (issue 55): none of them may make one again.
    @Test(
        "a night's actions, status, delivery attempts, \"I'm up\", medications, pre-sleep log and supply make no copy into SQLite",
        .enabled(if: EachStore.kinds.contains("postgres")))
    func frequentPathsSpeakPostgreSQL() throws {
        let each = try EachStore("postgres", at: Self.at(21, 21, 0))
        defer { each.close() }
        guard case .postgres(let postgres, _) = each.store else {
            Issue.record("not PostgreSQL")
            return
        }
        let copies = postgres.sqliteCopiesMade

        var log = PreSleepLog()
        log.stressLevel = 2
        _ = try each.app(at: Self.at(21, 21, 30)).records.savePreSleep(log, at: nil, note: "tired")
        let night = try each.app(at: Self.at(21, 22, 0)).night.perform(NightAction(.dose1), from: .cli).decision.session.id
        _ = try each.app(at: Self.at(21, 22, 1)).medications.log([MedicationInput(medicationID: "modafinil", amount: 200)], confirmations: [])
        _ = try each.app(at: Self.at(21, 23, 0)).night.perform(NightAction(.log(event: "bathroom")), from: .cli)
        for attempt in 1...20 {
            try each.app(at: Self.at(22, 0, 31)).alarms.record(
                AlarmDeliveryRecord(
                    sessionID: night.rawValue, kind: "window_open", fireAt: Self.at(22, 0, 30), channel: .webhook, audience: .sleeper,
                    target: "hooks.example.org", attempt: attempt, outcome: attempt == 20 ? .accepted : .failed, durationMilliseconds: 12,
                    at: Self.at(22, 0, 31)))
        }
        #expect(try each.app(at: Self.at(22, 0, 32)).alarms.deliveries(night: night).count == 20)
        _ = try each.app(at: Self.at(22, 0, 32)).alarms.acknowledge(from: .cli)
        _ = try each.app(at: Self.at(22, 0, 35)).night.perform(NightAction(.snooze), from: .cli)
        _ = try each.app(at: Self.at(22, 1, 0)).night.tonight()
        _ = try each.app(at: Self.at(22, 1, 5)).night.perform(NightAction(.dose2), from: .cli)
        _ = try each.app(at: Self.at(22, 1, 6)).night.status()
        _ = try each.app(at: Self.at(22, 8, 0)).supply.report()
        // And the reads of past nights (issue 55 moved them off the copy too).
        let later = each.app(at: Self.at(22, 9, 0))
        _ = try later.records.history(HistoryQuery())
        _ = try later.records.night(id: night)
        _ = try later.records.nights(on: SessionKey(year: 2026, month: 11, day: 21)!)
        _ = try later.transfer.analyticsCSV()
        _ = try later.transfer.sessionsCSV()
        _ = try later.transfer.eventsCSV()
        _ = try later.support.bundle(diagnosticLog: "", version: "test")
        #expect(postgres.sqliteCopiesMade == copies, "\(postgres.sqliteCopiesMade - copies) copies into SQLite")

        // The count counts: a copy into SQLite (what `store copy` takes to a file) is seen.
        _ = try postgres.contents(of: "local")
        #expect(postgres.sqliteCopiesMade > copies)
    }
}
