import DoseApp
import DoseCore
import DoseStore
import Foundation

/// `status --watch`: the night live in the terminal, with the bell at each planned reminder. With `--now`
/// the clock is simulated (it advances by the interval each update), so demos and tests never wait.
struct StatusWatch {
    let context: CommandContext
    let ticks: Int?
    let interval: Int?

    func run() throws {
        let simulated = context.options.now != nil
        let step = TimeInterval(max(1, interval ?? (simulated ? 60 : 1)))
        let limit = ticks ?? (simulated ? 60 : Int.max)
        var clock = context.clock
        var previous: Date?
        var count = 0
        while count < limit {
            let snapshot = try context.environment.useCases(at: clock).night.status()
            let due = dueReminders(session: snapshot.session, settings: snapshot.settings, after: previous, upTo: clock.now)
            report(snapshot, due: due)
            previous = clock.now
            count += 1
            guard count < limit else { break }
            if simulated {
                clock.now = clock.now.addingTimeInterval(step)
            } else {
                Thread.sleep(forTimeInterval: step)
                clock.now = context.environment.now()
            }
        }
    }

    /// Reminders whose time came in (previous, now]; the first update rings for none already past.
    private func dueReminders(session: NightSession?, settings: DoseSettings, after previous: Date?, upTo now: Date) -> [Reminder] {
        guard let previous else { return [] }
        return ReminderPlan.plan(for: session, settings: settings).filter { $0.fireAt > previous && $0.fireAt <= now && $0.kind.audience == .sleeper }
    }

    private func report(_ snapshot: StatusSnapshot, due: [Reminder]) {
        let zone = snapshot.timeZone
        if context.options.json {
            for reminder in due {
                Output.line(JSONValue(dictionaryLiteral: ("reminder", JSONValue(response: ReminderResponse(reminder)))).rendered())
            }
            Output.line(JSONValue(response: StatusResponse(snapshot.status)).rendered())
            return
        }
        for reminder in due {
            Output.line("\u{7}🔔 \(HumanText.clock(reminder.fireAt, zone))  \(reminder.kind.message)")
        }
        let status = snapshot.status
        var line = "\(LocalClock.hourMinuteSecond(status.asOf, in: zone))  \(status.phase.label)"
        if status.phase == .beforeWindow, let opens = status.windowOpensAt {
            line += " — opens in \(countdown(to: opens, from: status.asOf))"
        } else if status.phase == .active || status.phase == .nearClose, let closes = status.windowClosesAt {
            line += " — \(countdown(to: closes, from: status.asOf)) left"
        }
        line += " — next: \(HumanText.nextStep(status, zone: zone))"
        Output.line(line)
        for warning in status.warnings { Output.line("  ⚠ \(warning)") }
    }

    private func countdown(to end: Date, from start: Date) -> String {
        let seconds = max(0, Int(end.timeIntervalSince(start)))
        return String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }
}
