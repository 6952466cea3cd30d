import DoseApp
import DoseCore

/// The morning check-in as its page posts it (`CheckInForm`): the quick answers, the deep dives' fields side by side,
/// and the confirmation a question asked for. Enumerations stay text here, so the API's own check-in decoding is the
/// one that names what each allows (`answers`).
struct CheckInPageForm: Decodable {
    var sleepQuality, mentalClarity, readinessForDay: Int?
    var feelRested, grogginess, mood, sleepInertiaDuration, dreamRecall, anxietyLevel: String?
    var hadSleepParalysis, hadHallucinations, hadAutomaticBehavior, fellOutOfBed, hadConfusionOnWaking: Bool?
    var hasPhysicalSymptoms: Bool?
    var painLocations: [String]?
    var painSeverity: Int?
    var painType, muscleStiffness, muscleSoreness, headache, headacheLocation: String?
    var hasRespiratorySymptoms, feelingFeverish: Bool?
    var congestion, throat, cough, sinusPressure, sicknessLevel: String?
    var sleepTherapy: [String]?
    var sameAsUsual: Bool?
    var sleepAidsUsed: [String]?
    var roomDarkness, noiseLevel, screenInBedMinutesBucket: String?
    var notes: String?
    /// `end_night` once the person confirmed that saving ends the open night.
    var confirm: String?

    enum CodingKeys: String, CodingKey {
        case sleepQuality = "sleep_quality", mentalClarity = "mental_clarity", readinessForDay = "readiness_for_day"
        case feelRested = "feel_rested", grogginess, mood, sleepInertiaDuration = "sleep_inertia_duration", dreamRecall = "dream_recall"
        case anxietyLevel = "anxiety_level", hadSleepParalysis = "had_sleep_paralysis", hadHallucinations = "had_hallucinations"
        case hadAutomaticBehavior = "had_automatic_behavior", fellOutOfBed = "fell_out_of_bed", hadConfusionOnWaking = "had_confusion_on_waking"
        case hasPhysicalSymptoms = "has_physical_symptoms", painLocations = "pain_locations", painSeverity = "pain_severity"
        case painType = "pain_type", muscleStiffness = "muscle_stiffness", muscleSoreness = "muscle_soreness", headache
        case headacheLocation = "headache_location", hasRespiratorySymptoms = "has_respiratory_symptoms", feelingFeverish = "feeling_feverish"
        case congestion, throat, cough, sinusPressure = "sinus_pressure", sicknessLevel = "sickness_level", sleepTherapy = "sleep_therapy"
        case sameAsUsual = "same_as_usual", sleepAidsUsed = "sleep_aids_used", roomDarkness = "room_darkness", noiseLevel = "noise_level"
        case screenInBedMinutesBucket = "screen_in_bed_minutes_bucket", notes, confirm
    }

    /// The API's check-in object: unanswered deep dives are left out, never invented.
    var answers: [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for (key, value) in [("sleep_quality", sleepQuality), ("mental_clarity", mentalClarity), ("readiness_for_day", readinessForDay)] {
            if let value { object[key] = .int(value) }
        }
        let chosen = [
            ("feel_rested", feelRested), ("grogginess", grogginess), ("mood", mood), ("sleep_inertia_duration", sleepInertiaDuration),
            ("dream_recall", dreamRecall), ("anxiety_level", anxietyLevel),
        ]
        for (key, value) in chosen { if let value { object[key] = .string(value) } }
        let symptoms = [
            ("had_sleep_paralysis", hadSleepParalysis), ("had_hallucinations", hadHallucinations), ("had_automatic_behavior", hadAutomaticBehavior),
            ("fell_out_of_bed", fellOutOfBed), ("had_confusion_on_waking", hadConfusionOnWaking),
        ]
        for (key, value) in symptoms { object[key] = .bool(value == true) }
        if let physical { (object["has_physical_symptoms"], object["physical_symptoms"]) = (true, .object(physical)) }
        if let respiratory { (object["has_respiratory_symptoms"], object["respiratory_symptoms"]) = (true, .object(respiratory)) }
        object["sleep_therapy"] = .strings(sleepTherapy ?? [])
        if sameAsUsual == true {
            object["sleep_environment"] = ["same_as_usual": true]
        } else {
            var environment: [String: JSONValue] = [:]
            if let aids = sleepAidsUsed, !aids.isEmpty { environment["sleep_aids_used"] = .strings(aids) }
            for (key, value) in [
                ("room_darkness", roomDarkness), ("noise_level", noiseLevel), ("screen_in_bed_minutes_bucket", screenInBedMinutesBucket),
            ] {
                if let value { environment[key] = .string(value) }
            }
            // Nothing answered about the room: no environment is recorded, rather than an empty one.
            if !environment.isEmpty { object["sleep_environment"] = .object(environment) }
        }
        if let notes { object["notes"] = .string(notes) }
        return object
    }

    /// Whether `value` was answered with something other than the page's preselected `preselected`.
    private func differs(_ value: String?, from preselected: String) -> Bool { value.map { $0 != preselected } ?? false }

    /// The pain deep dive, when its switch is on or any of its answers differs from what the page preselects (a headache
    /// chosen without the switch is still recorded, never dropped); nil otherwise.
    private var physical: [String: JSONValue]? {
        let headacheChosen = differs(headache, from: HeadacheSeverity.none.rawValue) ? headache : nil
        let answered =
            !(painLocations ?? []).isEmpty || (painSeverity.map { $0 != 0 } ?? false) || painType != nil
            || differs(muscleStiffness, from: "none") || differs(muscleSoreness, from: "none") || headacheChosen != nil
        guard hasPhysicalSymptoms == true || answered else { return nil }
        var physical: [String: JSONValue] = ["pain_locations": .strings(painLocations ?? [])]
        if let painSeverity { physical["pain_severity"] = .int(painSeverity) }
        for (key, value) in [("pain_type", painType), ("muscle_stiffness", muscleStiffness), ("muscle_soreness", muscleSoreness)] {
            if let value { physical[key] = .string(value) }
        }
        if let headacheChosen {
            var details: [String: JSONValue] = [
                "severity": .string(headacheChosen), "is_migraine": .bool(headacheChosen == HeadacheSeverity.migraine.rawValue),
            ]
            if let headacheLocation { details["location"] = .string(headacheLocation) }
            physical["headache"] = .object(details)
        }
        return physical
    }

    /// The breathing deep dive, on the same terms as `physical`.
    private var respiratory: [String: JSONValue]? {
        let answered =
            differs(congestion, from: "none") || differs(throat, from: "normal") || differs(cough, from: "none")
            || differs(sinusPressure, from: "none") || feelingFeverish == true || differs(sicknessLevel, from: "no")
        guard hasRespiratorySymptoms == true || answered else { return nil }
        var respiratory: [String: JSONValue] = ["feeling_feverish": .bool(feelingFeverish == true)]
        let answers = [
            ("congestion", congestion), ("throat", throat), ("cough", cough), ("sinus_pressure", sinusPressure), ("sickness_level", sicknessLevel),
        ]
        for (key, value) in answers { if let value { respiratory[key] = .string(value) } }
        return respiratory
    }
}

/// The pre-sleep log as its page posts it (`PreSleepForm`); enumerations stay text for the API's own decoding.
struct PreSleepPageForm: Decodable {
    var stressLevel, caffeineCups, alcoholDrinks: Int?
    var intendedSleepTime, bodyPain, exerciseType, napToday, roomTemperature, noiseLevel, notes: String?
    var heavyMealLast3Hours, screenTime30MinPrior: Bool?
    var stressDrivers, sleepAids: [String]?

    enum CodingKeys: String, CodingKey {
        case stressLevel = "stress_level", caffeineCups = "caffeine_cups", alcoholDrinks = "alcohol_drinks"
        case intendedSleepTime = "intended_sleep_time", bodyPain = "body_pain", exerciseType = "exercise_type", napToday = "nap_today"
        case roomTemperature = "room_temperature", noiseLevel = "noise_level", notes
        case heavyMealLast3Hours = "heavy_meal_last_3_hours", screenTime30MinPrior = "screen_time_30_min_prior"
        case stressDrivers = "stress_drivers", sleepAids = "sleep_aids"
    }

    /// The API's pre-sleep object: only what was answered.
    var answers: [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for (key, value) in [("stress_level", stressLevel), ("caffeine_cups", caffeineCups), ("alcohol_drinks", alcoholDrinks)] {
            if let value { object[key] = .int(value) }
        }
        let chosen = [
            ("intended_sleep_time", intendedSleepTime), ("body_pain", bodyPain), ("exercise_type", exerciseType), ("nap_today", napToday),
            ("room_temperature", roomTemperature), ("noise_level", noiseLevel), ("notes", notes),
        ]
        for (key, value) in chosen { if let value { object[key] = .string(value) } }
        for (key, value) in [("heavy_meal_last_3_hours", heavyMealLast3Hours), ("screen_time_30_min_prior", screenTime30MinPrior)] {
            if let value { object[key] = .bool(value) }
        }
        for (key, value) in [("stress_drivers", stressDrivers), ("sleep_aids", sleepAids)] {
            if let value, !value.isEmpty { object[key] = .strings(value) }
        }
        return object
    }
}
