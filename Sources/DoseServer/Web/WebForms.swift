import DoseApp
import DoseCore
import Foundation

/// One question of a form, as the `fields` template draws it: choices as large tappable chips, yes/no as a switch,
/// free text as a text area. Values travel in snake_case; people see words.
struct Field {
    struct Option {
        let inputType: String
        let name: String
        let value: String
        let label: String
        let checked: Bool
    }

    struct Choice {
        let label: String
        let options: [Option]
    }

    struct Toggle {
        let name: String
        let label: String
        let checked: Bool
    }

    struct Text {
        let name: String
        let label: String
        let value: String
        let maxLength: Int
    }

    var choice: Choice?
    var toggle: Toggle?
    var text: Text?

    /// One answer of several (radio chips), or several (`multiple`, checkbox chips).
    static func choice(
        _ name: String, _ label: String, _ values: [String], chosen: Set<String>, multiple: Bool = false,
        words: (String) -> String = HumanWords.label
    ) -> Field {
        Field(
            choice: Choice(
                label: label,
                options: values.map {
                    Option(inputType: multiple ? "checkbox" : "radio", name: name, value: $0, label: words($0), checked: chosen.contains($0))
                }))
    }

    /// The choices of an enum, in its order.
    static func choice<T: CaseIterable & RawRepresentable>(_ name: String, _ label: String, _: T.Type, chosen: Set<String>, multiple: Bool = false)
        -> Field
    where T.RawValue == String {
        choice(name, label, T.allCases.map(\.rawValue), chosen: chosen, multiple: multiple)
    }

    static func toggle(_ name: String, _ label: String, on: Bool = false) -> Field { Field(toggle: Toggle(name: name, label: label, checked: on)) }

    static func text(_ name: String, _ label: String, value: String = "", maxLength: Int = TextLimits.note) -> Field {
        Field(text: Text(name: name, label: label, value: value, maxLength: maxLength))
    }
}

/// Stored answer values in words: "cant_function" → "Can't function", "0_15" → "0–15 min".
enum HumanWords {
    static let special: [String: String] = [
        "cant_function": "Can't function", "not_at_all": "Not at all", "very_well": "Very well", "very_low": "Very low",
        "less_than_five": "Under 5 min", "five_to_fifteen": "5–15 min", "fifteen_to_thirty": "15–30 min", "thirty_to_sixty": "30–60 min",
        "more_than_hour": "Over an hour", "0_15": "0–15 min", "15_45": "15–45 min", "45_plus": "Over 45 min", "in_15_min": "In 15 min",
        "in_30_min": "In 30 min", "in_1_hour": "In an hour", "cpap": "CPAP", "tv_on": "TV on", "no": "No",
        "coming_down": "Coming down with something",
        "actively_sick": "Sick", "back_of_head": "Back of head", "behind_eyes": "Behind the eyes", "all_over": "All over", "one_side": "One side",
        "dose": "Doses", "checkin": "Check-ins", "sleep_cycle": "Sleep cycle", "none": "None",
    ]

    static func label(_ raw: String) -> String {
        if let word = special[raw] { return word }
        let spaced = raw.replacingOccurrences(of: "_", with: " ")
        return spaced.prefix(1).uppercased() + spaced.dropFirst()
    }
}

/// The morning check-in as a form (seed 003): the quick questions first, the rest behind disclosures.
enum CheckInForm {
    struct Section {
        let title: String
        let fields: [Field]
    }

    static let scale5 = (1...5).map(String.init)

    static func quick(_ usual: MorningCheckIn = MorningCheckIn()) -> [Field] {
        [
            .choice("sleep_quality", "Sleep quality (1 poor – 5 great)", scale5, chosen: [String(usual.sleepQuality)]),
            .choice("feel_rested", "How rested do you feel?", FeelRested.self, chosen: [usual.feelRested.rawValue]),
            .choice("grogginess", "Grogginess", Grogginess.self, chosen: [usual.grogginess.rawValue]),
            .choice("mood", "Mood", Mood.self, chosen: [usual.mood.rawValue]),
        ]
    }

    /// `hasUsual`: an earlier check-in recorded a room to copy, so "same as usual" can be the default.
    static func sections(_ usual: MorningCheckIn = MorningCheckIn(), hasUsual: Bool) -> [Section] {
        [
            Section(
                title: "Waking up",
                fields: [
                    .choice("sleep_inertia_duration", "How long until you felt awake?", SleepInertia.self, chosen: [usual.sleepInertia.rawValue]),
                    .choice("dream_recall", "Dreams", DreamRecall.self, chosen: [usual.dreamRecall.rawValue]),
                    .choice("mental_clarity", "Mental clarity (1–10)", (1...10).map(String.init), chosen: [String(usual.mentalClarity)]),
                    .choice("anxiety_level", "Anxiety", AnxietyLevel.self, chosen: [usual.anxietyLevel.rawValue]),
                    .choice("readiness_for_day", "Ready for the day (1–5)", scale5, chosen: [String(usual.readiness)]),
                ]),
            Section(
                title: "Narcolepsy symptoms",
                fields: [
                    .toggle("had_sleep_paralysis", "Sleep paralysis"), .toggle("had_hallucinations", "Hallucinations"),
                    .toggle("had_automatic_behavior", "Automatic behaviour"), .toggle("fell_out_of_bed", "Fell out of bed"),
                    .toggle("had_confusion_on_waking", "Confusion on waking"),
                ]),
            Section(
                title: "Pain and body",
                fields: [
                    .toggle("has_physical_symptoms", "I had pain or body symptoms"),
                    .choice("pain_locations", "Where", PainLocation.self, chosen: [], multiple: true),
                    .choice("pain_severity", "Pain (0 none – 10 worst)", (0...10).map(String.init), chosen: ["0"]),
                    .choice("pain_type", "Kind of pain", PainType.self, chosen: []),
                    .choice("headache", "Headache", HeadacheSeverity.self, chosen: [HeadacheSeverity.none.rawValue]),
                    // The model's own default, shown: what the form displays is what a headache without an answer stores.
                    .choice("headache_location", "Where the headache was", HeadacheLocation.self, chosen: [Headache().location.rawValue]),
                    .choice("muscle_stiffness", "Stiffness", Severity.self, chosen: ["none"]),
                    .choice("muscle_soreness", "Soreness", Severity.self, chosen: ["none"]),
                ]),
            Section(
                title: "Breathing and illness",
                fields: [
                    .toggle("has_respiratory_symptoms", "I had breathing or cold symptoms"),
                    .choice("congestion", "Congestion", Congestion.self, chosen: ["none"]),
                    .choice("throat", "Throat", Throat.self, chosen: ["normal"]),
                    .choice("cough", "Cough", Cough.self, chosen: ["none"]),
                    .choice("sinus_pressure", "Sinus pressure", Severity.self, chosen: ["none"]),
                    .toggle("feeling_feverish", "Feverish"),
                    .choice("sickness_level", "Are you sick?", SicknessLevel.self, chosen: ["no"]),
                ]),
            Section(
                title: "Sleep therapy and room",
                fields: [
                    .choice("sleep_therapy", "Therapy used", SleepTherapy.self, chosen: Set(usual.sleepTherapy.map(\.rawValue)), multiple: true),
                    .toggle("same_as_usual", "Room and sleep aids same as usual", on: hasUsual),
                    .choice("sleep_aids_used", "Sleep aids", SleepAid.self, chosen: [], multiple: true),
                    .choice("room_darkness", "Room", RoomDarkness.self, chosen: []),
                    .choice("noise_level", "Noise", NoiseLevel.self, chosen: []),
                    .choice("screen_in_bed_minutes_bucket", "Screen in bed", ScreenBucket.self, chosen: []),
                ]),
            Section(title: "Notes", fields: [.text("notes", "Anything else")]),
        ]
    }
}

/// The pre-sleep log as taps (seed 002 and reference §6.10).
enum PreSleepForm {
    static func fields() -> [Field] {
        [
            .choice("intended_sleep_time", "When will you sleep?", IntendedSleepTime.self, chosen: []),
            .choice("stress_level", "Stress (1 calm – 5 very stressed)", CheckInForm.scale5, chosen: []),
            .choice("stress_drivers", "What is on your mind?", StressDriver.self, chosen: [], multiple: true),
            .choice("body_pain", "Body pain", BodyPain.self, chosen: []),
            .choice("caffeine_cups", "Caffeine today (cups)", ["0", "1", "2", "3", "4", "5", "6"], chosen: [], words: { $0 == "6" ? "6+" : $0 }),
            .choice("alcohol_drinks", "Alcohol today (drinks)", ["0", "1", "2", "3", "4"], chosen: [], words: { $0 == "4" ? "4+" : $0 }),
            .choice("exercise_type", "Exercise today", ExerciseLevel.self, chosen: []),
            .choice("nap_today", "Nap today", NapToday.self, chosen: []),
            .choice(
                "heavy_meal_last_3_hours", "A heavy meal in the last 3 hours?", ["true", "false"], chosen: [],
                words: { $0 == "true" ? "Yes" : "No" }),
            .choice(
                "screen_time_30_min_prior", "Screens in the last 30 minutes?", ["true", "false"], chosen: [], words: { $0 == "true" ? "Yes" : "No" }),
            .choice("room_temperature", "Room", RoomTemperature.self, chosen: []),
            .choice("noise_level", "Noise", NoiseLevel.self, chosen: []),
            .choice("sleep_aids", "Sleep aids tonight", SleepAid.self, chosen: [], multiple: true),
            .text("notes", "Notes"),
        ]
    }
}
