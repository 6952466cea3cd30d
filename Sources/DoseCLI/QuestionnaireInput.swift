import DoseApp
import DoseCore
import Foundation

/// Turns flags, a JSON file and typed answers into one JSON object, decoded by the model's own decoder so every
/// surface validates answers the same way.
enum QuestionnaireInput {
    /// Reads a JSON object file (at most 64 KiB).
    static func object(fromFile path: String) throws -> [String: JSONValue] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), let size = attributes[.size] as? Int else {
            throw DoseError.invalidInput(field: "from-json", problem: "\(path) cannot be read", allowed: "a readable JSON file")
        }
        guard size <= 65_536 else { throw DoseError.tooLarge(what: path, limit: "64 KiB") }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let object = JSONValue.parse(data)?.objectValue else {
            throw DoseError.invalidFile(problem: "\(path) is not a JSON object")
        }
        return object
    }

    /// An object as plain JSON values (round-tripped through the encoder).
    static func object<T: Encodable>(from value: T) -> [String: JSONValue] {
        JSONValue.encoding(value).objectValue ?? [:]
    }
}

/// Reads answers typed at a terminal, one question per line; Enter keeps the default.
struct Prompter {
    var readLine: () -> String? = { Terminal.current.readLine() }

    func ask(_ question: String, default value: String) -> String {
        Terminal.current.writeError("\(question) [\(value)]: ")
        let answer = readLine()?.trimmingCharacters(in: .whitespaces) ?? ""
        return answer.isEmpty ? value : answer
    }

    func yes(_ question: String) -> Bool {
        ["y", "yes"].contains(ask(question + " (y/n)", default: "n").lowercased())
    }

    /// The quick questions, then the deep dives on request.
    func morningCheckIn() -> [String: JSONValue] {
        func number(_ question: String, default value: String, otherwise: Int) -> JSONValue { .int(Int(ask(question, default: value)) ?? otherwise) }
        func text(_ question: String, default value: String) -> JSONValue { .string(ask(question, default: value)) }
        func list(_ question: String, default value: String) -> JSONValue {
            .array(ask(question, default: value).split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) })
        }
        var answers: [String: JSONValue] = [:]
        answers["sleep_quality"] = number("Sleep quality, 1–5", default: "3", otherwise: 0)
        answers["feel_rested"] = text("How rested? not_at_all, slightly, moderate, well, very_well", default: "moderate")
        answers["grogginess"] = text("Grogginess? none, mild, moderate, severe, cant_function", default: "mild")
        answers["mental_clarity"] = number("Mental clarity, 1–10", default: "5", otherwise: 0)
        answers["mood"] = text("Mood? very_low, low, neutral, good, great", default: "neutral")
        answers["readiness_for_day"] = number("Ready for the day, 1–5", default: "3", otherwise: 0)
        if yes("Any physical symptoms?") {
            answers["has_physical_symptoms"] = true
            if yes("Describe them?") {
                answers["physical_symptoms"] = [
                    "pain_locations": list(
                        "Where? (comma-separated: " + PainLocation.allCases.map(\.rawValue).joined(separator: ", ") + ")", default: ""),
                    "pain_severity": number("Pain severity, 0–10", default: "0", otherwise: -1),
                ]
            }
        }
        if yes("Any respiratory symptoms?") {
            answers["has_respiratory_symptoms"] = true
            if yes("Describe them?") {
                answers["respiratory_symptoms"] = [
                    "congestion": text("Congestion? none, stuffy_nose, runny_nose, both", default: "none"),
                    "cough": text("Cough? none, dry, productive", default: "none"),
                    "sickness_level": text("Feeling ill? no, coming_down, actively_sick, recovering", default: "no"),
                ]
            }
        }
        if yes("Any narcolepsy symptoms (sleep paralysis, hallucinations, automatic behaviour, falling out of bed, confusion)?") {
            answers["had_sleep_paralysis"] = .bool(yes("  Sleep paralysis?"))
            answers["had_hallucinations"] = .bool(yes("  Hallucinations?"))
            answers["had_automatic_behavior"] = .bool(yes("  Automatic behaviour?"))
            answers["fell_out_of_bed"] = .bool(yes("  Fell out of bed?"))
            answers["had_confusion_on_waking"] = .bool(yes("  Confusion on waking?"))
        }
        switch ask("Sleep environment: same as usual, describe it, or skip? (same/describe/skip)", default: "skip").lowercased() {
        case "same", "s": answers["sleep_environment"] = ["same_as_usual": true]
        case "describe", "d":
            answers["sleep_environment"] = [
                "sleep_aids_used": list(
                    "Aids used (comma-separated: " + SleepAid.allCases.map(\.rawValue).joined(separator: ", ") + ")", default: "none"),
                "room_darkness": text("Room darkness? bright, dim, dark", default: "dark"),
                "noise_level": text("Noise? quiet, some_noise, loud", default: "quiet"),
            ]
        default: break
        }
        let notes = ask("Notes", default: "")
        if !notes.isEmpty { answers["notes"] = .string(notes) }
        return answers
    }
}
