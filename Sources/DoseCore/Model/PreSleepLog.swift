import Foundation

/// How far the pre-sleep questionnaire was answered.
public enum PreSleepCompletion: String, Sendable, Codable, CaseIterable {
    case partial, complete, skipped
}

/// When the person means to sleep.
public enum IntendedSleepTime: String, Sendable, Codable, CaseIterable {
    case now, in15Minutes = "in_15_min", in30Minutes = "in_30_min", inAnHour = "in_1_hour", later
}

/// Pain at bedtime.
public enum BodyPain: String, Sendable, Codable, CaseIterable {
    case none, mild, moderate, severe
}

/// Exercise today.
public enum ExerciseLevel: String, Sendable, Codable, CaseIterable {
    case none, light, moderate, intense
}

/// Nap today.
public enum NapToday: String, Sendable, Codable, CaseIterable {
    case none, short, medium, long
}

/// What is on the person's mind.
public enum StressDriver: String, Sendable, Codable, CaseIterable {
    case work, family, health, money, sleep, other
}

/// Room temperature at bedtime.
public enum RoomTemperature: String, Sendable, Codable, CaseIterable {
    case cold, comfortable, warm
}

/// The pre-sleep log (D11; seed 002 fields plus reference §6.10): one per night, saving again replaces it.
public struct PreSleepLog: Hashable, Sendable, Codable {
    /// The person declined the questionnaire tonight.
    public var skipped = false
    public var intendedSleepTime: IntendedSleepTime?
    /// 1–5.
    public var stressLevel: Int?
    public var stressDrivers: [StressDriver] = []
    public var bodyPain: BodyPain?
    /// 0–20.
    public var caffeineCups: Int?
    /// Local time of the last caffeine.
    public var caffeineLastTime: ClockTime?
    /// 0–2000 mg in the day.
    public var caffeineMg: Int?
    /// 0–20.
    public var alcoholDrinks: Int?
    public var exercise: ExerciseLevel?
    /// 0–600.
    public var exerciseMinutes: Int?
    public var napToday: NapToday?
    public var heavyMealLast3Hours: Bool?
    public var screenTime30MinutesPrior: Bool?
    public var roomTemperature: RoomTemperature?
    public var noiseLevel: NoiseLevel?
    public var sleepAids: [SleepAid] = []
    /// At most 500 characters.
    public var notes: String?

    /// An empty log.
    public init() {}

    /// `skipped` if declined, `complete` when the seven core questions are answered, else `partial`.
    public var completion: PreSleepCompletion {
        if skipped { return .skipped }
        let core: [Any?] = [intendedSleepTime, stressLevel, bodyPain, caffeineCups, alcoholDrinks, exercise, napToday]
        return core.allSatisfy { $0 != nil } ? .complete : .partial
    }

    /// The stored names of its answers, as every surface takes them.
    public static var fieldNames: [String] { CodingKeys.allCases.map(\.stringValue) }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case skipped, intendedSleepTime = "intended_sleep_time", stressLevel = "stress_level", stressDrivers = "stress_drivers"
        case bodyPain = "body_pain", caffeineCups = "caffeine_cups", caffeineLastTime = "caffeine_last_time", caffeineMg = "caffeine_mg"
        case alcoholDrinks = "alcohol_drinks", exercise = "exercise_type", exerciseMinutes = "exercise_minutes", napToday = "nap_today"
        case heavyMealLast3Hours = "heavy_meal_last_3_hours", screenTime30MinutesPrior = "screen_time_30_min_prior"
        case roomTemperature = "room_temperature", noiseLevel = "noise_level", sleepAids = "sleep_aids", notes
    }

    /// Decodes a partial log; unknown fields are refused.
    public init(from decoder: any Decoder) throws {
        let values = try strictContainer(decoder, CodingKeys.self, what: "pre-sleep")
        skipped = try values.decodeIfPresent(Bool.self, forKey: .skipped) ?? false
        intendedSleepTime = try values.decodeIfPresent(IntendedSleepTime.self, forKey: .intendedSleepTime)
        stressLevel = try values.decodeIfPresent(Int.self, forKey: .stressLevel)
        stressDrivers = try values.decodeIfPresent([StressDriver].self, forKey: .stressDrivers) ?? []
        bodyPain = try values.decodeIfPresent(BodyPain.self, forKey: .bodyPain)
        caffeineCups = try values.decodeIfPresent(Int.self, forKey: .caffeineCups)
        if let text = try values.decodeIfPresent(String.self, forKey: .caffeineLastTime) {
            guard let time = ClockTime(parsing: text) else {
                throw DoseError.invalidInput(field: "caffeine_last_time", problem: "'\(text)' is not a time of day", allowed: "HH:mm")
            }
            caffeineLastTime = time
        }
        caffeineMg = try values.decodeIfPresent(Int.self, forKey: .caffeineMg)
        alcoholDrinks = try values.decodeIfPresent(Int.self, forKey: .alcoholDrinks)
        exercise = try values.decodeIfPresent(ExerciseLevel.self, forKey: .exercise)
        exerciseMinutes = try values.decodeIfPresent(Int.self, forKey: .exerciseMinutes)
        napToday = try values.decodeIfPresent(NapToday.self, forKey: .napToday)
        heavyMealLast3Hours = try values.decodeIfPresent(Bool.self, forKey: .heavyMealLast3Hours)
        screenTime30MinutesPrior = try values.decodeIfPresent(Bool.self, forKey: .screenTime30MinutesPrior)
        roomTemperature = try values.decodeIfPresent(RoomTemperature.self, forKey: .roomTemperature)
        noiseLevel = try values.decodeIfPresent(NoiseLevel.self, forKey: .noiseLevel)
        sleepAids = try values.decodeIfPresent([SleepAid].self, forKey: .sleepAids) ?? []
        notes = try values.decodeIfPresent(String.self, forKey: .notes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if skipped { try container.encode(true, forKey: .skipped) }
        try container.encodeIfPresent(intendedSleepTime, forKey: .intendedSleepTime)
        try container.encodeIfPresent(stressLevel, forKey: .stressLevel)
        if !stressDrivers.isEmpty { try container.encode(stressDrivers, forKey: .stressDrivers) }
        try container.encodeIfPresent(bodyPain, forKey: .bodyPain)
        try container.encodeIfPresent(caffeineCups, forKey: .caffeineCups)
        try container.encodeIfPresent(caffeineLastTime?.description, forKey: .caffeineLastTime)
        try container.encodeIfPresent(caffeineMg, forKey: .caffeineMg)
        try container.encodeIfPresent(alcoholDrinks, forKey: .alcoholDrinks)
        try container.encodeIfPresent(exercise, forKey: .exercise)
        try container.encodeIfPresent(exerciseMinutes, forKey: .exerciseMinutes)
        try container.encodeIfPresent(napToday, forKey: .napToday)
        try container.encodeIfPresent(heavyMealLast3Hours, forKey: .heavyMealLast3Hours)
        try container.encodeIfPresent(screenTime30MinutesPrior, forKey: .screenTime30MinutesPrior)
        try container.encodeIfPresent(roomTemperature, forKey: .roomTemperature)
        try container.encodeIfPresent(noiseLevel, forKey: .noiseLevel)
        if !sleepAids.isEmpty { try container.encode(sleepAids, forKey: .sleepAids) }
        try container.encodeIfPresent(notes, forKey: .notes)
    }

    /// The log with every answer checked; a skipped log carries no answers.
    public func validated() throws(DoseError) -> PreSleepLog {
        var copy = self
        func check(_ value: Int?, _ range: ClosedRange<Int>, _ field: String) throws(DoseError) {
            guard let value, !range.contains(value) else { return }
            throw .invalidInput(field: field, problem: "\(value) is out of range", allowed: "\(range.lowerBound)–\(range.upperBound)")
        }
        try check(stressLevel, 1...5, "stress_level")
        try check(caffeineCups, 0...20, "caffeine_cups")
        try check(caffeineMg, 0...2000, "caffeine_mg")
        try check(alcoholDrinks, 0...20, "alcohol_drinks")
        try check(exerciseMinutes, 0...600, "exercise_minutes")
        copy.notes = try TextLimits.validated(notes, field: "notes", limit: TextLimits.note)
        if skipped {
            var empty = PreSleepLog()
            empty.skipped = true
            empty.notes = copy.notes
            guard copy == empty else {
                throw .invalidInput(field: "skipped", problem: "a skipped log also has answers", allowed: "either skipped or answers")
            }
        }
        var drivers = Set<StressDriver>()
        copy.stressDrivers = stressDrivers.filter { drivers.insert($0).inserted }
        var aids = Set<SleepAid>()
        copy.sleepAids = sleepAids.filter { aids.insert($0).inserted }
        return copy
    }
}
