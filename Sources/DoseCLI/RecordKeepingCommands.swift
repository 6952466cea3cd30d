import ArgumentParser
import DoseApp
import DoseCore
import DoseStore
import Foundation

/// Splits repeatable, comma-separated option values.
func listValues(_ values: [String]) -> [String] {
    values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

struct CheckIn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkin",
        abstract: "Morning check-in; closes the night. Unset answers take the defaults.",
        discussion:
            "In a terminal with no answers given, asks the quick questions and offers the deep dives. --from-json FILE reads any field by its "
            + "stored name; flags override it. --edit DATE changes an existing check-in."
    )
    @OptionGroup var options: GlobalOptions
    @OptionGroup var action: ActionOptions
    @Option(help: "Read answers from a JSON object (stored field names).") var fromJSON: String?
    @Option(help: "Change the check-in of the night of DATE instead of adding one.") var edit: String?
    @Flag(help: ArgumentHelp("Ask the questions on standard input even when it is not a terminal.", visibility: .hidden)) var interactive = false
    @Option(help: "Sleep quality 1–5 (default 3).") var quality: Int?
    @Option(help: "How rested: not_at_all, slightly, moderate, well, very_well.") var rested: String?
    @Option(help: "Grogginess: none, mild, moderate, severe, cant_function.") var grogginess: String?
    @Option(help: "How long the grogginess lasted: less_than_five, five_to_fifteen, fifteen_to_thirty, thirty_to_sixty, more_than_hour.") var inertia:
        String?
    @Option(help: "Dreams: none, vague, normal, vivid, nightmares, disturbing.") var dreams: String?
    @Option(help: "Mental clarity 1–10 (default 5).") var clarity: Int?
    @Option(help: "Mood: very_low, low, neutral, good, great.") var mood: String?
    @Option(help: "Anxiety: none, mild, moderate, high, severe.") var anxiety: String?
    @Option(help: "Readiness for the day 1–5 (default 3).") var readiness: Int?
    @Flag(help: "Sleep paralysis.") var sleepParalysis = false
    @Flag(help: "Hallucinations.") var hallucinations = false
    @Flag(help: "Automatic behaviour.") var automaticBehavior = false
    @Flag(help: "Fell out of bed.") var fellOutOfBed = false
    @Flag(help: "Confusion on waking.") var confusionOnWaking = false
    @Flag(help: "Physical symptoms.") var physicalSymptoms = false
    @Option(help: "Where it hurts (repeatable): head, neck, shoulders, upper_back, lower_back, hips, legs, knees, feet, hands, arms, chest, abdomen.")
    var painLocation: [String] = []
    @Option(help: "Pain severity 0–10.") var painSeverity: Int?
    @Option(help: "Pain type: aching, sharp, stiff, throbbing, burning, tingling, cramping.") var painType: String?
    @Option(help: "Headache: none, mild, moderate, severe, migraine.") var headache: String?
    @Option(help: "Headache location: forehead, temples, back_of_head, behind_eyes, all_over, one_side.") var headacheLocation: String?
    @Option(help: "Muscle stiffness: none, mild, moderate, severe.") var muscleStiffness: String?
    @Option(help: "Muscle soreness: none, mild, moderate, severe.") var muscleSoreness: String?
    @Flag(help: "Respiratory symptoms.") var respiratorySymptoms = false
    @Option(help: "Congestion: none, stuffy_nose, runny_nose, both.") var congestion: String?
    @Option(help: "Throat: normal, dry, sore, scratchy.") var throat: String?
    @Option(help: "Cough: none, dry, productive.") var cough: String?
    @Option(help: "Sinus pressure: none, mild, moderate, severe.") var sinusPressure: String?
    @Flag(help: "Feeling feverish.") var feverish = false
    @Option(help: "Sickness: no, coming_down, actively_sick, recovering.") var sickness: String?
    @Option(help: "Sleep therapy used (repeatable): cpap, mouth_guard, chin_strap, nasal_strip, positional_therapy.") var sleepTherapy: [String] = []
    @Option(help: "Sleep aid used (repeatable): dark_room, eye_mask, earplugs, white_noise, fan, …, tv_on, phone_in_bed, other, none.")
    var sleepAid: [String] = []
    @Option(help: "Room darkness: bright, dim, dark.") var roomDarkness: String?
    @Option(help: "Noise: quiet, some_noise, loud.") var noiseLevel: String?
    @Option(help: "Screen in bed (with tv_on or phone_in_bed): 0_15, 15_45, 45_plus.") var screenTime: String?
    @Option(help: "Sound (with white_noise): white_noise, rain, fan, other.") var soundType: String?
    @Option(help: "The 'other' aid, at most 50 characters.") var otherAid: String?
    @Flag(help: "Sleep environment same as usual (copies last check-in's aids, darkness and noise).") var sameAsUsual = false
    @Option(help: "Notes (at most 500 characters).") var notes: String?
    @OptionGroup var endNight: EndNightConfirmation

    /// The flags given, as stored field names over a base object.
    func overlay(on base: [String: JSONValue]) -> [String: JSONValue] {
        var answers = base
        func set(_ key: String, _ value: JSONValue?) { if let value { answers[key] = value } }
        set("sleep_quality", quality.map(JSONValue.int))
        set("feel_rested", choice(rested))
        set("grogginess", choice(grogginess))
        set("sleep_inertia_duration", choice(inertia))
        set("dream_recall", choice(dreams))
        set("mental_clarity", clarity.map(JSONValue.int))
        set("mood", choice(mood))
        set("anxiety_level", choice(anxiety))
        set("readiness_for_day", readiness.map(JSONValue.int))
        for (key, flag) in [
            ("had_sleep_paralysis", sleepParalysis), ("had_hallucinations", hallucinations), ("had_automatic_behavior", automaticBehavior),
            ("fell_out_of_bed", fellOutOfBed), ("had_confusion_on_waking", confusionOnWaking),
            ("has_physical_symptoms", physicalSymptoms), ("has_respiratory_symptoms", respiratorySymptoms),
        ] where flag {
            answers[key] = true
        }
        let physical = physicalDetails(over: answers["physical_symptoms"]?.objectValue ?? [:])
        if !physical.isEmpty {
            answers["physical_symptoms"] = .object(physical)
            answers["has_physical_symptoms"] = true
        }
        let respiratory = respiratoryDetails(over: answers["respiratory_symptoms"]?.objectValue ?? [:])
        if !respiratory.isEmpty {
            answers["respiratory_symptoms"] = .object(respiratory)
            answers["has_respiratory_symptoms"] = true
        }
        if !sleepTherapy.isEmpty { answers["sleep_therapy"] = choices(sleepTherapy) }
        let environment = environmentDetails(over: answers["sleep_environment"]?.objectValue ?? [:])
        if !environment.isEmpty { answers["sleep_environment"] = .object(environment) }
        set("notes", notes.map(JSONValue.string))
        return answers
    }

    private func choice(_ text: String?) -> JSONValue? { text.map { .string(SleepEventCatalogue.normalize($0)) } }

    private func choices(_ texts: [String]) -> JSONValue { .strings(listValues(texts).map(SleepEventCatalogue.normalize)) }

    /// The pain and headache flags over the stored physical symptoms.
    private func physicalDetails(over stored: [String: JSONValue]) -> [String: JSONValue] {
        var physical = stored
        if !painLocation.isEmpty { physical["pain_locations"] = choices(painLocation) }
        if let painSeverity { physical["pain_severity"] = .int(painSeverity) }
        if let painType { physical["pain_type"] = choice(painType) }
        if headache != nil || headacheLocation != nil {
            var details = physical["headache"]?.objectValue ?? [:]
            if let headache { details["severity"] = choice(headache) }
            if let headacheLocation { details["location"] = choice(headacheLocation) }
            if headache == "migraine" { details["is_migraine"] = true }
            physical["headache"] = .object(details)
        }
        if let muscleStiffness { physical["muscle_stiffness"] = choice(muscleStiffness) }
        if let muscleSoreness { physical["muscle_soreness"] = choice(muscleSoreness) }
        return physical
    }

    /// The congestion, throat, cough and sickness flags over the stored respiratory symptoms.
    private func respiratoryDetails(over stored: [String: JSONValue]) -> [String: JSONValue] {
        var respiratory = stored
        if let congestion { respiratory["congestion"] = choice(congestion) }
        if let throat { respiratory["throat"] = choice(throat) }
        if let cough { respiratory["cough"] = choice(cough) }
        if let sinusPressure { respiratory["sinus_pressure"] = choice(sinusPressure) }
        if feverish { respiratory["feeling_feverish"] = true }
        if let sickness { respiratory["sickness_level"] = choice(sickness) }
        return respiratory
    }

    /// The sleep aids, darkness, noise, screen and sound flags over the stored sleep environment.
    private func environmentDetails(over stored: [String: JSONValue]) -> [String: JSONValue] {
        var environment = stored
        if !sleepAid.isEmpty { environment["sleep_aids_used"] = choices(sleepAid) }
        if let roomDarkness { environment["room_darkness"] = choice(roomDarkness) }
        if let noiseLevel { environment["noise_level"] = choice(noiseLevel) }
        if let screenTime { environment["screen_in_bed_minutes_bucket"] = .string(screenTime) }
        if let soundType { environment["sound_type"] = choice(soundType) }
        if let otherAid { environment["other_aid_text"] = .string(otherAid) }
        if sameAsUsual { environment["same_as_usual"] = true }
        return environment
    }

    var hasAnswerFlags: Bool {
        overlay(on: [:]).isEmpty == false
    }

    func run() throws {
        if let edit {
            try Output.run(options) { context in
                let date = try sessionDate(edit)
                let current = try context.app.records.nights(on: date).compactMap(\.checkIn).last
                guard let current else { throw DoseError.notFound(what: "A check-in for the night of \(date)") }
                var base = QuestionnaireInput.object(from: current)
                if let fromJSON { base.merge(try QuestionnaireInput.object(fromFile: fromJSON)) { $1 } }
                let answers = try AnswerDecoding.decode(MorningCheckIn.self, from: overlay(on: base), allowed: AnswerDecoding.checkInAllowed)
                let saved = try context.app.records.editCheckIn(on: date, answers: answers)
                Output.show(
                    json: options.json, JSONValue(response: CheckInResponse(saved)),
                    "Check-in of \(date) updated. Wellness score: \(saved.wellnessScore)/100.")
            }
            return
        }
        try Output.run(json: options.json) { try record(endNight.parse("checkin")) }
    }

    private func record(_ kinds: Set<ConfirmKind>) throws {
        try perform(options, actionOptions: action, confirmations: kinds, asking: [.endNight]) { _ in
            var base = try fromJSON.map(QuestionnaireInput.object(fromFile:)) ?? [:]
            if fromJSON == nil, !hasAnswerFlags, interactive || (Terminal.current.inputIsTerminal && !options.json) {
                base = Prompter().morningCheckIn()
            }
            let answers = try AnswerDecoding.decode(MorningCheckIn.self, from: overlay(on: base), allowed: AnswerDecoding.checkInAllowed)
            return NightAction(.checkIn(answers))
        }
    }
}

struct PreSleep: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presleep",
        abstract: "Tonight's pre-sleep log; joins or starts tonight's session. Saving again replaces it.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "When it was filled in, if earlier: local HH:mm or ISO-8601.") var at: String?
    @Option(help: "Read answers from a JSON object (stored field names).") var fromJSON: String?
    @Flag(help: "Skip the questionnaire tonight (recorded as skipped).") var skip = false
    @Option(help: "When you mean to sleep: now, in_15_min, in_30_min, in_1_hour, later.") var intendedSleep: String?
    @Option(help: "Stress 1–5.") var stress: Int?
    @Option(help: "Stress drivers (repeatable): work, family, health, money, sleep, other.") var stressDriver: [String] = []
    @Option(help: "Body pain: none, mild, moderate, severe.") var pain: String?
    @Option(help: "Cups of caffeine today (0–20).") var caffeineCups: Int?
    @Option(help: "Last caffeine, local HH:mm.") var caffeineLast: String?
    @Option(help: "Caffeine today in mg (0–2000).") var caffeineMg: Int?
    @Option(help: "Alcoholic drinks today (0–20).") var alcohol: Int?
    @Option(help: "Exercise: none, light, moderate, intense.") var exercise: String?
    @Option(help: "Exercise minutes (0–600).") var exerciseMinutes: Int?
    @Option(help: "Nap today: none, short, medium, long.") var nap: String?
    @Option(help: "Heavy meal in the last 3 hours: true or false.") var heavyMeal: Bool?
    @Option(help: "Screens in the 30 minutes before bed: true or false.") var screens: Bool?
    @Option(help: "Room temperature: cold, comfortable, warm.") var roomTemperature: String?
    @Option(help: "Noise: quiet, some_noise, loud.") var noiseLevel: String?
    @Option(help: "Sleep aids (repeatable).") var sleepAid: [String] = []
    @Option(help: "Notes (at most 500 characters).") var notes: String?
    @Option(help: "A note on the log itself.") var note: String?

    func run() throws {
        try Output.run(options) { context in
            var answers = try fromJSON.map(QuestionnaireInput.object(fromFile:)) ?? [:]
            func set<Value: Encodable>(_ key: String, _ value: Value?) { if let value { answers[key] = JSONValue.encoding(value) } }
            if skip { answers["skipped"] = true }
            set("intended_sleep_time", intendedSleep.map(SleepEventCatalogue.normalize))
            set("stress_level", stress)
            if !stressDriver.isEmpty { set("stress_drivers", listValues(stressDriver).map(SleepEventCatalogue.normalize)) }
            set("body_pain", pain.map(SleepEventCatalogue.normalize))
            set("caffeine_cups", caffeineCups)
            set("caffeine_last_time", caffeineLast)
            set("caffeine_mg", caffeineMg)
            set("alcohol_drinks", alcohol)
            set("exercise_type", exercise.map(SleepEventCatalogue.normalize))
            set("exercise_minutes", exerciseMinutes)
            set("nap_today", nap.map(SleepEventCatalogue.normalize))
            set("heavy_meal_last_3_hours", heavyMeal)
            set("screen_time_30_min_prior", screens)
            set("room_temperature", roomTemperature.map(SleepEventCatalogue.normalize))
            set("noise_level", noiseLevel.map(SleepEventCatalogue.normalize))
            if !sleepAid.isEmpty { set("sleep_aids", listValues(sleepAid).map(SleepEventCatalogue.normalize)) }
            set("notes", notes)
            let log = try AnswerDecoding.decode(PreSleepLog.self, from: answers, allowed: AnswerDecoding.preSleepAllowed)
            let zone = try context.app.settings.zone()
            let occurredAt = try context.occurrence(at, in: zone)
            let saved = try context.app.records.savePreSleep(log, at: occurredAt, note: note)
            if options.json {
                Output.line(
                    JSONValue(
                        dictionaryLiteral: ("id", .string(saved.id)), ("session_id", .string(saved.sessionID.rawValue)),
                        ("session_date", .string(saved.sessionDate.description)), ("completion_state", .string(saved.completion.rawValue)),
                        ("replaced", .bool(saved.replaced)), ("started_session", .bool(saved.startedSession))
                    ).rendered())
            } else {
                Output.line(
                    "Pre-sleep log \(saved.replaced ? "replaced" : "saved") for the night of \(saved.sessionDate) (\(saved.completion.rawValue)).")
            }
        }
    }
}
