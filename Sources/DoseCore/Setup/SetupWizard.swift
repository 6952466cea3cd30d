import Foundation

/// The five steps of first-run setup (seed 003 "First-Run Setup Wizard", seed 001 §6.1), in order.
public enum SetupStep: Int, Sendable, CaseIterable, Comparable {
    case sleepSchedule = 1
    case medication
    case doseWindow
    case notifications
    case privacy

    /// Its title.
    public var title: String {
        switch self {
        case .sleepSchedule: "Sleep schedule"
        case .medication: "Medication profile"
        case .doseWindow: "Dose window rules"
        case .notifications: "Notifications"
        case .privacy: "Privacy and disclaimer"
        }
    }

    /// Its name in URLs and flags.
    public var slug: String {
        switch self {
        case .sleepSchedule: "schedule"
        case .medication: "medication"
        case .doseWindow: "window"
        case .notifications: "notifications"
        case .privacy: "privacy"
        }
    }

    /// The answers the step takes, in the order asked. All but the disclaimer are settings (or a setting in grams).
    public var answers: [String] {
        switch self {
        case .sleepSchedule: ["sleep_start", "wake_time", "prep_time", "time_zone"]
        case .medication:
            [
                "medication_product", "regimen", "dose1_g", "dose2_g", "titration", SetupWizard.fastTitrationAnswer, "concentration_mg_per_ml",
                "bottle_ml",
            ]
        case .doseWindow: ["target_interval", "allow_snoozing", "max_snoozes", "undo_window_seconds"]
        case .notifications: ["reminders_enabled", "wake_alarm_refire_minutes"]
        case .privacy: [SetupWizard.disclaimerAnswer]
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Turns a step's answers into settings changes. The settings validate the values; the wizard checks only what is its
/// own: that every answer belongs to the step, amounts in grams, and the accepted disclaimer.
public enum SetupWizard {
    /// The answer that accepts the disclaimer.
    public static let disclaimerAnswer = "accept_disclaimer"
    /// The answer that keeps a titration step faster than the label's weekly increase, as prescribed.
    public static let fastTitrationAnswer = "confirm_fast_titration"

    /// The disclaimer of seed 001, shown and accepted in the last step.
    public static let disclaimer = [
        "DoseTap helps you keep time and records. It is not a medical device.",
        "It does not replace your clinician's advice: always follow your prescription.",
        "Check the amounts and times you enter against your prescription.",
    ]

    /// Where the records are kept, as the privacy step says it, for the embedded store.
    public static let sqlitePlace = "one SQLite file on this machine"

    /// Where everything is kept (`place`: `sqlitePlace`, or the PostgreSQL database that holds it) and what can leave it.
    public static func privacy(storedIn place: String = sqlitePlace) -> [String] {
        [
            "Everything is stored in \(place); nothing is sent anywhere by default.",
            "Only what you configure leaves it: reminders to the channels you set up (push, ntfy, webhook), the escalation contact, "
                + "and files you export, report or bundle yourself.",
        ]
    }

    /// The changes a step's answers make, checked against the current settings: all valid, or an error naming the
    /// first answer that is not.
    public static func changes(
        for step: SetupStep, answers: [String: String], applyingTo settings: DoseSettings
    ) throws(DoseError) -> (changes: [(key: String, value: String)], settings: DoseSettings, confirmations: Set<ConfirmKind>) {
        for name in answers.keys.sorted() where !step.answers.contains(name) {
            throw .invalidInput(
                field: name, problem: "'\(name)' is not part of the \(step.title.lowercased()) step", allowed: step.answers.joined(separator: ", "))
        }
        var changes: [(key: String, value: String)] = []
        var confirmations: Set<ConfirmKind> = []
        var updated = settings
        for name in step.answers {
            guard let answer = answers[name] else {
                if name == disclaimerAnswer {
                    throw .invalidInput(field: name, problem: "the disclaimer was not accepted", allowed: "yes, once you have read it")
                }
                continue
            }
            switch name {
            case disclaimerAnswer:
                guard ["yes", "true", "on", "1"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
                    throw .invalidInput(field: name, problem: "'\(answer)' does not accept the disclaimer", allowed: "yes, once you have read it")
                }
            case fastTitrationAnswer:
                let word = answer.trimmingCharacters(in: .whitespaces).lowercased()
                guard ["yes", "true", "on", "1", "no", "false", "off", "0", ""].contains(word) else {
                    throw .invalidInput(field: name, problem: "'\(answer.prefix(20))' is not yes or no", allowed: "yes or no")
                }
                if ["yes", "true", "on", "1"].contains(word) { confirmations.insert(.fastTitration) }
            case "dose1_g", "dose2_g":
                let key = name == "dose1_g" ? SettingKey.dose1Milligrams.rawValue : SettingKey.dose2Milligrams.rawValue
                let milligrams = try milligrams(fromGrams: answer, field: name)
                updated = try updated.setting(key, to: String(milligrams))
                changes.append((key, String(milligrams)))
            default:
                updated = try updated.setting(name, to: answer)
                changes.append((name, try updated.value(of: name)))
            }
        }
        // The product, its regimen and the amounts are answered together, so they are checked together, and a refused
        // amount is named as it was answered, in grams.
        if let conflict = updated.regimenConflict {
            guard case .invalidInput(let field, let problem, let allowed) = conflict,
                let answer = [SettingKey.dose1Milligrams.rawValue: "dose1_g", SettingKey.dose2Milligrams.rawValue: "dose2_g"][field]
            else { throw conflict }
            throw .invalidInput(field: answer, problem: problem, allowed: allowed)
        }
        // Asked here as the settings would ask it, so a refused step changes nothing and names the steps.
        let fast = updated.fastTitrationSteps(newSince: settings)
        if !fast.isEmpty, !confirmations.contains(.fastTitration) { throw .titrationTooFast(steps: fast) }
        return (changes, updated, confirmations)
    }

    /// Grams as typed (`2.25`, `4.5`, `3`) in whole milligrams; at most three decimals, nothing else.
    public static func milligrams(fromGrams text: String, field: String) throws(DoseError) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let range = DoseSettings.doseAmountRange
        let allowed = "\(grams(range.lowerBound))–\(grams(range.upperBound)) g, with a point for decimals (e.g. 2.25)"
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 2, parts[0].allSatisfy(\.isASCIIDigit),
            parts.count == 1 || ((1...3).contains(parts[1].count) && parts[1].allSatisfy(\.isASCIIDigit)),
            let whole = Int(parts[0])
        else { throw .invalidInput(field: field, problem: "'\(text)' is not an amount in grams", allowed: allowed) }
        let decimals = parts.count == 2 ? String(parts[1]).padding(toLength: 3, withPad: "0", startingAt: 0) : "000"
        let milligrams = whole * 1000 + Int(decimals)!
        guard range.contains(milligrams) else {
            throw .invalidInput(field: field, problem: "\(trimmed) g is outside the single-dose range", allowed: allowed)
        }
        return milligrams
    }

    /// Milligrams as grams for people: `2.25`, `4.5`, `3`.
    public static func grams(_ milligrams: Int) -> String {
        NumberText.plain(Double(milligrams) / 1000)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
