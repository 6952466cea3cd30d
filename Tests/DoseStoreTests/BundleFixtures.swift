import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import ZIPFoundation

/// Several weeks of varied nights, with notes that test CSV: commas, quotes, new lines, emoji, a leading '='.
enum BundleFixture {
    static let notes = [
        "plain", "comma, inside", "say \"hi\"", "two\nlines", "emoji 😴🌙", "=SUM(A1:A9)", "'apostrophe first", "+1 trip", "@mention", "-dash",
    ]

    static func variedLedger(weeks: Int = 3) throws -> (NightLedger, TestClock) {
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(WallClock.date(2026, 10, 1, 20, 0))
        _ = try ledger.database.settings.update("target_interval", to: "180", clock: clock.store)
        for day in 0..<(weeks * 7) {
            let evening = WallClock.date(2026, 10, 1, 21, 0).addingTimeInterval(Double(day) * 86_400)
            let note = notes[day % notes.count]
            if day % 3 == 0 {
                clock.set(evening)
                var log = PreSleepLog()
                log.stressLevel = day % 5 + 1
                log.notes = note
                _ = try ledger.database.journal.savePreSleep(log, at: nil, note: nil, clock: clock.store)
            }
            let dose1 = evening.addingTimeInterval(90 * 60)
            try StoreFixture.act(ledger, .dose1, at: dose1, clock: clock, note: note)
            try StoreFixture.act(
                ledger, .log(event: day % 2 == 0 ? "bathroom" : "Brief Wake"), at: StoreFixture.minutes(40, after: dose1), clock: clock, note: note)
            switch day % 7 {
            case 0: try StoreFixture.act(ledger, .skip(reason: "felt rested, \"really\""), at: StoreFixture.minutes(160, after: dose1), clock: clock)
            case 1: break  // slept through: the lifecycle records the expiry
            case 2:
                try StoreFixture.act(ledger, .snooze, at: StoreFixture.minutes(160, after: dose1), clock: clock)
                try StoreFixture.act(ledger, .dose2, at: StoreFixture.minutes(171, after: dose1), clock: clock)
            case 3: try StoreFixture.act(ledger, .dose2, at: StoreFixture.minutes(140, after: dose1), clock: clock, confirm: [.early])
            default: try StoreFixture.act(ledger, .dose2, at: StoreFixture.minutes(Double(150 + day % 60), after: dose1), clock: clock)
            }
            if day % 4 != 1 {
                var answers = MorningCheckIn()
                answers.sleepQuality = day % 5 + 1
                answers.notes = note
                if day % 5 == 0 { answers.hadSleepParalysis = true }
                try StoreFixture.act(ledger, .checkIn(answers), at: StoreFixture.minutes(540, after: dose1), clock: clock)
            }
            if day % 2 == 0 {
                clock.set(StoreFixture.minutes(600, after: dose1))
                _ = try ledger.database.medications.log(
                    [MedicationInput(medicationID: "modafinil", amount: 200, note: note)], confirmations: [], clock: clock.store)
            }
        }
        clock.set(WallClock.date(2026, 11, 1, 12, 0))
        try ledger.settle(clock: clock.store)
        return (ledger, clock)
    }

    /// The entries of a zip.
    static func entries(of url: URL) throws -> [String: Data] {
        let archive = try Archive(url: url, accessMode: .read)
        var files: [String: Data] = [:]
        for entry in archive {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            files[entry.path] = data
        }
        return files
    }

    /// Writes entries to a new zip.
    static func zip(_ entries: [(String, Data)], to url: URL, compression: CompressionMethod = .deflate) throws {
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        for (name, data) in entries {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: compression) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
    }
}
