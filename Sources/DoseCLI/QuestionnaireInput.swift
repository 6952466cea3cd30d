import DoseApp
import DoseCore
import Foundation

/// Turns flags, a JSON file and typed answers into one JSON object, decoded by the model's own decoder so every
/// surface validates answers the same way.
enum QuestionnaireInput {
    /// Reads a JSON object file (at most 64 KiB).
    static func object(fromFile path: String) throws -> [String: Any] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), let size = attributes[.size] as? Int else {
            throw DoseError.invalidInput(field: "from-json", problem: "\(path) cannot be read", allowed: "a readable JSON file")
        }
        guard size <= 65_536 else { throw DoseError.tooLarge(what: path, limit: "64 KiB") }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw DoseError.invalidFile(problem: "\(path) is not a JSON object")
        }
        return object
    }

    /// Decodes a model from a JSON object, turning decoding failures into errors that name the field.
    static func decode<T: Decodable>(_ type: T.Type, from object: [String: Any], allowed: [String: String]) throws -> T {
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DoseError {
            throw error
        } catch let error as DecodingError {
            let (path, problem): ([any CodingKey], String) = switch error {
            case .dataCorrupted(let context): (context.codingPath, "has a value that is not allowed")
            case .typeMismatch(_, let context): (context.codingPath, "has the wrong type of value")
            case .valueNotFound(_, let context): (context.codingPath, "is missing a value")
            case .keyNotFound(let key, let context): (context.codingPath + [key], "is missing")
            @unknown default: ([], "is malformed")
            }
            let field = path.last(where: { $0.intValue == nil })?.stringValue ?? "answers"
            throw DoseError.invalidInput(field: field, problem: "\(field) \(problem)", allowed: allowed[field])
        }
    }

    /// Allowed values of the check-in's enumerated fields, for messages.
    static let checkInAllowed: [String: String] = {
        func list<T: CaseIterable & RawRepresentable>(_: T.Type) -> String where T.RawValue == String { T.allCases.map(\.rawValue).joined(separator: ", ") }
        return [
            "feel_rested": list(FeelRested.self), "grogginess": list(Grogginess.self), "sleep_inertia_duration": list(SleepInertia.self),
            "dream_recall": list(DreamRecall.self), "mood": list(Mood.self), "anxiety_level": list(AnxietyLevel.self),
            "pain_locations": list(PainLocation.self), "pain_type": list(PainType.self), "severity": list(HeadacheSeverity.self),
            "location": list(HeadacheLocation.self), "muscle_stiffness": list(Severity.self), "muscle_soreness": list(Severity.self),
            "congestion": list(Congestion.self), "throat": list(Throat.self), "cough": list(Cough.self), "sinus_pressure": list(Severity.self),
            "sickness_level": list(SicknessLevel.self), "sleep_therapy": list(SleepTherapy.self), "sleep_aids_used": list(SleepAid.self),
            "room_darkness": list(RoomDarkness.self), "noise_level": list(NoiseLevel.self), "screen_in_bed_minutes_bucket": list(ScreenBucket.self),
            "sound_type": list(SoundType.self), "sleep_quality": "1–5", "mental_clarity": "1–10", "readiness_for_day": "1–5",
        ]
    }()

    /// Allowed values of the pre-sleep log's enumerated fields.
    static let preSleepAllowed: [String: String] = {
        func list<T: CaseIterable & RawRepresentable>(_: T.Type) -> String where T.RawValue == String { T.allCases.map(\.rawValue).joined(separator: ", ") }
        return [
            "intended_sleep_time": list(IntendedSleepTime.self), "stress_drivers": list(StressDriver.self), "body_pain": list(BodyPain.self),
            "exercise_type": list(ExerciseLevel.self), "nap_today": list(NapToday.self), "room_temperature": list(RoomTemperature.self),
            "noise_level": list(NoiseLevel.self), "sleep_aids": list(SleepAid.self), "stress_level": "1–5", "caffeine_cups": "0–20",
        ]
    }()

    /// An object as plain JSON values (round-tripped through the encoder).
    static func object<T: Encodable>(from value: T) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }
}

/// Reads answers typed at a terminal, one question per line; Enter keeps the default.
struct Prompter {
    var readLine: () -> String? = { Swift.readLine() }

    func ask(_ question: String, default value: String) -> String {
        FileHandle.standardError.write(Data("\(question) [\(value)]: ".utf8))
        let answer = readLine()?.trimmingCharacters(in: .whitespaces) ?? ""
        return answer.isEmpty ? value : answer
    }

    func yes(_ question: String) -> Bool {
        ["y", "yes"].contains(ask(question + " (y/n)", default: "n").lowercased())
    }

    /// The quick questions, then the deep dives on request.
    func morningCheckIn() -> [String: Any] {
        var answers: [String: Any] = [:]
        answers["sleep_quality"] = Int(ask("Sleep quality, 1–5", default: "3")) ?? 0
        answers["feel_rested"] = ask("How rested? not_at_all, slightly, moderate, well, very_well", default: "moderate")
        answers["grogginess"] = ask("Grogginess? none, mild, moderate, severe, cant_function", default: "mild")
        answers["mental_clarity"] = Int(ask("Mental clarity, 1–10", default: "5")) ?? 0
        answers["mood"] = ask("Mood? very_low, low, neutral, good, great", default: "neutral")
        answers["readiness_for_day"] = Int(ask("Ready for the day, 1–5", default: "3")) ?? 0
        if yes("Any physical symptoms?") {
            answers["has_physical_symptoms"] = true
            if yes("Describe them?") {
                let places = ask("Where? (comma-separated: " + PainLocation.allCases.map(\.rawValue).joined(separator: ", ") + ")", default: "")
                answers["physical_symptoms"] = [
                    "pain_locations": places.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                    "pain_severity": Int(ask("Pain severity, 0–10", default: "0")) ?? -1,
                ] as [String: Any]
            }
        }
        if yes("Any respiratory symptoms?") {
            answers["has_respiratory_symptoms"] = true
            if yes("Describe them?") {
                answers["respiratory_symptoms"] = [
                    "congestion": ask("Congestion? none, stuffy_nose, runny_nose, both", default: "none"),
                    "cough": ask("Cough? none, dry, productive", default: "none"),
                    "sickness_level": ask("Feeling ill? no, coming_down, actively_sick, recovering", default: "no"),
                ]
            }
        }
        if yes("Any narcolepsy symptoms (sleep paralysis, hallucinations, automatic behaviour, falling out of bed, confusion)?") {
            answers["had_sleep_paralysis"] = yes("  Sleep paralysis?")
            answers["had_hallucinations"] = yes("  Hallucinations?")
            answers["had_automatic_behavior"] = yes("  Automatic behaviour?")
            answers["fell_out_of_bed"] = yes("  Fell out of bed?")
            answers["had_confusion_on_waking"] = yes("  Confusion on waking?")
        }
        switch ask("Sleep environment: same as usual, describe it, or skip? (same/describe/skip)", default: "skip").lowercased() {
        case "same", "s": answers["sleep_environment"] = ["same_as_usual": true]
        case "describe", "d":
            let aids = ask("Aids used (comma-separated: " + SleepAid.allCases.map(\.rawValue).joined(separator: ", ") + ")", default: "none")
            answers["sleep_environment"] = [
                "sleep_aids_used": aids.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                "room_darkness": ask("Room darkness? bright, dim, dark", default: "dark"),
                "noise_level": ask("Noise? quiet, some_noise, loud", default: "quiet"),
            ] as [String: Any]
        default: break
        }
        let notes = ask("Notes", default: "")
        if !notes.isEmpty { answers["notes"] = notes }
        return answers
    }
}
