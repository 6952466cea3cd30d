import DoseApp
import DoseCore
import DoseStore
import Foundation

/// Words for a person at 2 a.m.: the phase, the countdown, local clock times, the one next step, warnings.
enum HumanText {
    static func clock(_ date: Date, _ zone: TimeZone) -> String { LocalClock.hourMinute(date, in: zone) }

    static func duration(minutes: Int) -> String {
        minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
    }

    /// The status block.
    static func status(_ status: NightStatus, zone: TimeZone) -> [String] {
        var lines: [String] = []
        let night = status.sessionDate.map { "Night of \($0)" } ?? "Tonight"
        lines.append("\(night) — \(status.phase.label)")
        lines.append(
            "  Regimen: \(RegimenWords.summary(status.regimen))\(RegimenWords.step(status.regimen)).")
        if let dose1 = status.dose1At {
            var text = "  Dose 1 taken at \(clock(dose1, zone))"
            if let minutes = status.minutesSinceDose1 { text += " (\(duration(minutes: minutes)) ago)" }
            lines.append(text + ".")
        }
        if let outcome = status.outcomeSentence(in: zone) {
            lines.append(
                "  \(outcome)" + (status.skipReason.map { status.sleptThrough ? "" : " (\($0.replacingOccurrences(of: "_", with: " ")))" } ?? "")
                    + ".")
        }
        if status.extraDoseCount > 0 { lines.append("  Extra doses: \(status.extraDoseCount).") }
        if let opens = status.windowOpensAt, let closes = status.windowClosesAt, status.dose2At == nil, !status.dose2Skipped,
            status.phase < .finalizing
        {
            var text = "  Window \(clock(opens, zone))–\(clock(closes, zone))"
            if let target = status.targetAt { text += ", target \(clock(target, zone))" }
            lines.append(text + ".")
        }
        switch status.phase {
        case .beforeWindow:
            if let minutes = status.minutesUntilOpen, let opens = status.windowOpensAt {
                lines.append("  Dose 2 opens in \(duration(minutes: minutes)), at \(clock(opens, zone)).")
            }
        case .active, .nearClose:
            if let minutes = status.minutesRemaining { lines.append("  \(duration(minutes: minutes)) left to take Dose 2.") }
        default: break
        }
        if let until = status.snoozeUntil { lines.append("  Snoozed until \(clock(until, zone)).") }
        if status.dose1At != nil, status.dose2At == nil, !status.dose2Skipped, status.phase < .finalizing {
            lines.append(
                status.canSnooze
                    ? "  Snoozes left: \(status.snoozesRemaining)."
                    : "  Snoozes left: \(status.snoozesRemaining); none now — \(status.snoozeBlockedReason ?? "snooze is not available").")
        }
        if status.newDose1From != nil {
            let doses = status.blockingNightDoses.map { "\($0.kind.label) \(clock($0.at, zone))" }.joined(separator: ", ")
            lines.append("  Last night: \(doses) (`dosetap session show \(status.blockingDose?.night?.rawValue ?? "")` to see or correct it).")
        }
        lines.append("  Next: \(nextStep(status, zone: zone))")
        if let reminder = status.nextReminder {
            lines.append("  Next reminder \(clock(reminder.fireAt, zone)): \(reminder.kind.message)")
        }
        for warning in status.warnings { lines.append("  ⚠ \(warning)") }
        lines.append("  (times in \(zone.identifier))")
        return lines
    }

    static func nextStep(_ status: NightStatus, zone: TimeZone) -> String {
        switch status.primaryAction {
        case .takeDose1:
            return status.regimen.window == nil
                ? "take tonight's one dose at bedtime, then run `dosetap dose1`." : "take Dose 1 at bedtime, then run `dosetap dose1`."
        case .waitForWindow:
            let opens = status.windowOpensAt.map { clock($0, zone) } ?? "the window"
            return "stay in bed and wait. Dose 2 opens at \(opens)."
        case .takeDose2:
            return status.canSnooze
                ? "take Dose 2 now (`dosetap dose2`), or snooze (`dosetap snooze`) or skip (`dosetap skip`)."
                : "take Dose 2 now (`dosetap dose2`) or skip it (`dosetap skip`)."
        case .takeDose2Late: return "the window has closed; skipping Dose 2 (`dosetap skip`) is the safer choice."
        case .checkIn: return "complete the morning check-in (`dosetap checkin`)."
        case .waitForNewNight:
            let from = status.newDose1From.map { clock($0, zone) } ?? "8 hours after the last dose"
            return "no Dose 1 before \(from): oxybate less than 8 hours after a dose is dangerous."
        case .none:
            guard status.wakeAt == nil, !status.checkedIn, status.sessionID != nil else { return "nothing more tonight." }
            return "nothing now; sleep. When you are up for the day, log it (`dosetap wake`) and check in (`dosetap checkin`)."
        }
    }

    /// The answer to an action.
    static func action(_ outcome: ActionOutcome, zone: TimeZone) -> [String] {
        var lines: [String] = []
        let decision = outcome.decision
        if let event = decision.event {
            let name = event.kind == .dose1 ? RegimenWords.bedtimeDose(event.metadata.regimen) : event.kind.label
            var text = "\(name) recorded at \(clock(event.occurredAt, zone))"
            if event.metadata.isEarly { text += " (⚠ EARLY — before the window opened)" }
            if event.metadata.isLate { text += " (⚠ LATE — after the window closed)" }
            lines.append(text + ".")
            if event.kind == .snooze, let until = event.metadata.snoozeUntil {
                let used = event.metadata.snoozeCount ?? 0
                lines.append("Alarm moved to \(clock(until, zone)). Snoozes used \(used) of \(outcome.settings.maxSnoozes).")
            }
            if let checkIn = decision.checkIn { lines.append("Wellness score: \(checkIn.wellnessScore)/100.") }
        } else if let undone = decision.removed.first {
            lines.append("Undone: \(undone.kind.label) of \(clock(undone.occurredAt, zone)).")
        }
        if decision.closure != nil {
            let facts = decision.session.facts
            let outcome = DoseTiming.badge(DoseTiming.of(facts, targetMinutes: outcome.settings.targetIntervalMinutes, closed: true))
            lines.append("The night of \(decision.session.date) is closed (\(outcome)).")
        }
        for warning in decision.warnings { lines.append("⚠ \(warning)") }
        lines.append("")
        lines += status(outcome.status, zone: zone)
        return lines
    }

    /// One night in history.
    static func night(_ record: NightRecord, zone: TimeZone, targetMinutes: Int) -> [String] {
        let session = record.session
        let facts = session.facts
        var summary = "\(session.date)  "
        summary += facts.dose1.map { "Dose 1 \(clock($0.occurredAt, zone))" } ?? "no Dose 1"
        if let dose2 = facts.dose2 { summary += ", Dose 2 \(clock(dose2.occurredAt, zone))" }
        if let interval = record.intervalMinutes { summary += " (\(interval) min)" }
        if facts.skip != nil { summary += facts.sleptThrough ? ", slept through" : ", Dose 2 skipped" }
        summary += session.isOpen ? "  [open]" : "  [\(DoseTiming.badge(DoseTiming.of(facts, targetMinutes: targetMinutes, closed: true)))]"
        var lines = [summary, "    night id \(session.id)"]
        for event in record.shownEvents {
            var text = "    \(clock(event.occurredAt, zone))  \(event.label)"
            if let reason = event.metadata.skipReason, reason != NightFacts.sleptThroughReason {
                text += " (\(reason.replacingOccurrences(of: "_", with: " ")))"
            }
            if let note = event.note { text += " — \(note)" }
            lines.append(text)
        }
        for nap in record.naps {
            lines.append("    Nap \(clock(nap.start, zone))–\(nap.end.map { clock($0, zone) } ?? "open")")
        }
        for entry in record.medications {
            lines.append("    \(clock(entry.takenAt, zone))  \(entry.name) \(entry.doseMg) mg")
        }
        if let log = record.preSleep { lines.append("    Pre-sleep log: \(log.completion.rawValue)") }
        if let checkIn = record.checkIn {
            lines.append(
                "    Check-in: quality \(checkIn.sleepQuality)/5, rested \(checkIn.feelRested.rawValue), wellness \(checkIn.wellnessScore)/100")
        }
        if let sleep = record.sleep {
            var text = "    Sleep (\(sleep.figures.sources.joined(separator: ", "))): \(SleepText.sentence(sleep.figures, zone: zone))"
            if let vitals = SleepText.vitals(sleep) { text += " " + vitals }
            lines.append(text)
        }
        return lines
    }
}
