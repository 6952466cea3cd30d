public import DoseCore
import Foundation

/// Decodes questionnaire answers (check-in, pre-sleep log) from a JSON object with the models' own strict decoders,
/// turning decoding failures into errors that name the field and its allowed values. The CLI and the API share it.
public enum AnswerDecoding {
    /// Decodes a model from a JSON object through the one body decoder, naming the field and its allowed values.
    public static func decode<T: Decodable>(_ type: T.Type, from object: [String: JSONValue], allowed: [String: String] = [:]) throws -> T {
        try BodyDecoder.decode(T.self, from: .object(object), allowed: allowed)
    }

    /// Allowed values of the check-in's enumerated fields, for messages.
    public static let checkInAllowed: [String: String] = {
        func list<T: CaseIterable & RawRepresentable>(_: T.Type) -> String where T.RawValue == String {
            T.allCases.map(\.rawValue).joined(separator: ", ")
        }
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
    public static let preSleepAllowed: [String: String] = {
        func list<T: CaseIterable & RawRepresentable>(_: T.Type) -> String where T.RawValue == String {
            T.allCases.map(\.rawValue).joined(separator: ", ")
        }
        return [
            "intended_sleep_time": list(IntendedSleepTime.self), "stress_drivers": list(StressDriver.self), "body_pain": list(BodyPain.self),
            "exercise_type": list(ExerciseLevel.self), "nap_today": list(NapToday.self), "room_temperature": list(RoomTemperature.self),
            "noise_level": list(NoiseLevel.self), "sleep_aids": list(SleepAid.self), "stress_level": "1–5", "caffeine_cups": "0–20",
        ]
    }()

}
