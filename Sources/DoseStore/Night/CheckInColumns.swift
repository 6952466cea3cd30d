import DoseCore
import Foundation
import GRDB
import PostgresNIO

/// A check-in's answers as the `morning_checkins` columns hold them: each column named once, beside its value, for
/// both stores.
struct CheckInColumns {
    /// One column's value.
    enum Value {
        case int(Int)
        case text(String?)
        case flag(Bool)

        /// The value for GRDB.
        var sqlite: (any DatabaseValueConvertible)? {
            switch self {
            case .int(let number): number
            case .text(let text): text
            case .flag(let flag): flag
            }
        }

        /// Appends the value to a PostgreSQL statement's parameters.
        func append(to binds: inout PostgresBindings) {
            switch self {
            case .int(let number): binds.append(number)
            case .text(let text): binds.append(text)
            case .flag(let flag): binds.append(flag)
            }
        }
    }

    let answers: MorningCheckIn

    init(_ answers: MorningCheckIn) { self.answers = answers }

    /// The columns, in `values()` order.
    static let names = [
        "sleep_quality", "feel_rested", "grogginess", "sleep_inertia_duration", "dream_recall", "mental_clarity", "mood", "anxiety_level",
        "readiness", "had_sleep_paralysis", "had_hallucinations", "had_automatic_behavior", "fell_out_of_bed", "had_confusion_on_waking",
        "has_physical_symptoms", "physical_symptoms_json", "has_respiratory_symptoms", "respiratory_symptoms_json", "has_narcolepsy_symptoms",
        "used_sleep_therapy", "sleep_therapy_json", "has_sleep_environment", "sleep_environment_json", "notes", "wellness_score",
    ]

    /// Each column's value, in `names` order.
    func values() throws -> [Value] {
        func json<T: Encodable>(_ value: T?) throws -> Value {
            .text(try value.map { String(decoding: try NightRecords.metadataEncoder.encode($0), as: UTF8.self) })
        }
        return [
            .int(answers.sleepQuality), .text(answers.feelRested.rawValue), .text(answers.grogginess.rawValue), .text(answers.sleepInertia.rawValue),
            .text(answers.dreamRecall.rawValue), .int(answers.mentalClarity), .text(answers.mood.rawValue), .text(answers.anxietyLevel.rawValue),
            .int(answers.readiness), .flag(answers.hadSleepParalysis), .flag(answers.hadHallucinations), .flag(answers.hadAutomaticBehavior),
            .flag(answers.fellOutOfBed), .flag(answers.hadConfusionOnWaking), .flag(answers.hasPhysicalSymptoms), try json(answers.physical),
            .flag(answers.hasRespiratorySymptoms), try json(answers.respiratory), .flag(answers.hasNarcolepsySymptoms),
            .flag(!answers.sleepTherapy.isEmpty), try json(answers.sleepTherapy.isEmpty ? nil : answers.sleepTherapy),
            .flag(answers.environment != nil), try json(answers.environment), .text(answers.notes), .int(answers.wellnessScore),
        ]
    }
}
