import Foundation

/// How rested the person feels (stored snake_case, D8).
public enum FeelRested: String, Sendable, Codable, CaseIterable {
    case notAtAll = "not_at_all", slightly, moderate, well, veryWell = "very_well"
    /// 1–5, for the wellness score.
    public var score: Int { Self.allCases.firstIndex(of: self)! + 1 }
}

/// Morning grogginess.
public enum Grogginess: String, Sendable, Codable, CaseIterable {
    case none, mild, moderate, severe, cantFunction = "cant_function"
}

/// How long the grogginess lasted.
public enum SleepInertia: String, Sendable, Codable, CaseIterable {
    case lessThanFive = "less_than_five", fiveToFifteen = "five_to_fifteen", fifteenToThirty = "fifteen_to_thirty"
    case thirtyToSixty = "thirty_to_sixty", moreThanHour = "more_than_hour"
}

/// Dreams remembered.
public enum DreamRecall: String, Sendable, Codable, CaseIterable {
    case none, vague, normal, vivid, nightmares, disturbing
}

/// Mood on waking.
public enum Mood: String, Sendable, Codable, CaseIterable {
    case veryLow = "very_low", low, neutral, good, great
    /// 0–4, for the wellness score.
    public var index: Int { Self.allCases.firstIndex(of: self)! }
}

/// Anxiety on waking.
public enum AnxietyLevel: String, Sendable, Codable, CaseIterable {
    case none, mild, moderate, high, severe
}

/// A four-step severity (muscles, sinus pressure).
public enum Severity: String, Sendable, Codable, CaseIterable {
    case none, mild, moderate, severe
}

/// Where it hurts.
public enum PainLocation: String, Sendable, Codable, CaseIterable {
    case head, neck, shoulders, upperBack = "upper_back", lowerBack = "lower_back", hips, legs, knees, feet, hands, arms, chest, abdomen
}

/// What the pain is like.
public enum PainType: String, Sendable, Codable, CaseIterable {
    case aching, sharp, stiff, throbbing, burning, tingling, cramping
}

/// Headache severity.
public enum HeadacheSeverity: String, Sendable, Codable, CaseIterable {
    case none, mild, moderate, severe, migraine
}

/// Headache location.
public enum HeadacheLocation: String, Sendable, Codable, CaseIterable {
    case forehead, temples, backOfHead = "back_of_head", behindEyes = "behind_eyes", allOver = "all_over", oneSide = "one_side"
}

/// Nasal congestion.
public enum Congestion: String, Sendable, Codable, CaseIterable {
    case none, stuffyNose = "stuffy_nose", runnyNose = "runny_nose", both
}

/// Throat.
public enum Throat: String, Sendable, Codable, CaseIterable {
    case normal, dry, sore, scratchy
}

/// Cough.
public enum Cough: String, Sendable, Codable, CaseIterable {
    case none, dry, productive
}

/// Whether the person is ill.
public enum SicknessLevel: String, Sendable, Codable, CaseIterable {
    case no, comingDown = "coming_down", activelySick = "actively_sick", recovering
}

/// Sleep therapy devices (seed 002).
public enum SleepTherapy: String, Sendable, Codable, CaseIterable {
    case cpap, mouthGuard = "mouth_guard", chinStrap = "chin_strap", nasalStrip = "nasal_strip", positionalTherapy = "positional_therapy"
}

/// Sleep aids and screen behaviours (seed 003 "Sleep Setup & Aids").
public enum SleepAid: String, Sendable, Codable, CaseIterable {
    case darkRoom = "dark_room", eyeMask = "eye_mask", earplugs, whiteNoise = "white_noise", fan, weightedBlanket = "weighted_blanket"
    case heatingPad = "heating_pad", humidifier, meditation, music, podcast, cpap, mouthTape = "mouth_tape", nasalStrip = "nasal_strip"
    case tvOn = "tv_on", phoneInBed = "phone_in_bed", other, none
}

/// Room darkness.
public enum RoomDarkness: String, Sendable, Codable, CaseIterable {
    case bright, dim, dark
}

/// Noise in the room.
public enum NoiseLevel: String, Sendable, Codable, CaseIterable {
    case quiet, someNoise = "some_noise", loud
}

/// Minutes of screen in bed.
public enum ScreenBucket: String, Sendable, Codable, CaseIterable {
    case upTo15 = "0_15", from15To45 = "15_45", over45 = "45_plus", unknown
}

/// Sound used for sleep.
public enum SoundType: String, Sendable, Codable, CaseIterable {
    case whiteNoise = "white_noise", rain, fan, other, unknown
}

/// Headache details.
public struct Headache: Hashable, Sendable, Codable {
    public var severity = HeadacheSeverity.mild
    public var location = HeadacheLocation.forehead
    public var isMigraine = false
    public init() {}
    enum CodingKeys: String, CodingKey, CaseIterable { case severity, location, isMigraine = "is_migraine" }

    public init(from decoder: any Decoder) throws {
        let values = try strictContainer(decoder, CodingKeys.self, what: "headache")
        severity = try values.decodeIfPresent(HeadacheSeverity.self, forKey: .severity) ?? .mild
        location = try values.decodeIfPresent(HeadacheLocation.self, forKey: .location) ?? .forehead
        isMigraine = try values.decodeIfPresent(Bool.self, forKey: .isMigraine) ?? (severity == .migraine)
    }
}

/// The physical deep dive.
public struct PhysicalSymptoms: Hashable, Sendable, Codable {
    public var painLocations: [PainLocation] = []
    /// 0–10.
    public var painSeverity = 0
    public var painType: PainType?
    public var headache: Headache?
    public var muscleStiffness = Severity.none
    public var muscleSoreness = Severity.none
    public init() {}
    enum CodingKeys: String, CodingKey, CaseIterable {
        case painLocations = "pain_locations", painSeverity = "pain_severity", painType = "pain_type", headache
        case muscleStiffness = "muscle_stiffness", muscleSoreness = "muscle_soreness"
    }

    public init(from decoder: any Decoder) throws {
        let values = try strictContainer(decoder, CodingKeys.self, what: "physical symptom")
        painLocations = try values.decodeIfPresent([PainLocation].self, forKey: .painLocations) ?? []
        painSeverity = try values.decodeIfPresent(Int.self, forKey: .painSeverity) ?? 0
        painType = try values.decodeIfPresent(PainType.self, forKey: .painType)
        headache = try values.decodeIfPresent(Headache.self, forKey: .headache)
        muscleStiffness = try values.decodeIfPresent(Severity.self, forKey: .muscleStiffness) ?? .none
        muscleSoreness = try values.decodeIfPresent(Severity.self, forKey: .muscleSoreness) ?? .none
    }
}

/// The respiratory deep dive.
public struct RespiratorySymptoms: Hashable, Sendable, Codable {
    public var congestion = Congestion.none
    public var throat = Throat.normal
    public var cough = Cough.none
    public var sinusPressure = Severity.none
    public var feelingFeverish = false
    public var sicknessLevel = SicknessLevel.no
    public init() {}
    enum CodingKeys: String, CodingKey, CaseIterable {
        case congestion, throat, cough, sinusPressure = "sinus_pressure", feelingFeverish = "feeling_feverish", sicknessLevel = "sickness_level"
    }

    public init(from decoder: any Decoder) throws {
        let values = try strictContainer(decoder, CodingKeys.self, what: "respiratory symptom")
        congestion = try values.decodeIfPresent(Congestion.self, forKey: .congestion) ?? .none
        throat = try values.decodeIfPresent(Throat.self, forKey: .throat) ?? .normal
        cough = try values.decodeIfPresent(Cough.self, forKey: .cough) ?? .none
        sinusPressure = try values.decodeIfPresent(Severity.self, forKey: .sinusPressure) ?? .none
        feelingFeverish = try values.decodeIfPresent(Bool.self, forKey: .feelingFeverish) ?? false
        sicknessLevel = try values.decodeIfPresent(SicknessLevel.self, forKey: .sicknessLevel) ?? .no
    }
}

/// The sleep environment card (seed 003), with its "same as usual" shortcut.
public struct SleepEnvironment: Hashable, Sendable, Codable {
    public var sleepAids: [SleepAid] = []
    public var roomDarkness: RoomDarkness?
    public var noiseLevel: NoiseLevel?
    /// Asked only when a screen behaviour (TV on, phone in bed) is selected.
    public var screenBucket: ScreenBucket?
    /// Asked only when white noise is selected.
    public var soundType: SoundType?
    /// With the `other` aid, at most 50 characters.
    public var otherAidText: String?
    /// The person chose "same as usual": aids, darkness and noise were copied from the previous check-in.
    public var sameAsUsual = false
    public init() {}
    enum CodingKeys: String, CodingKey, CaseIterable {
        case sleepAids = "sleep_aids_used", roomDarkness = "room_darkness", noiseLevel = "noise_level"
        case screenBucket = "screen_in_bed_minutes_bucket", soundType = "sound_type", otherAidText = "other_aid_text", sameAsUsual = "same_as_usual"
    }

    public init(from decoder: any Decoder) throws {
        let values = try strictContainer(decoder, CodingKeys.self, what: "sleep environment")
        sleepAids = try values.decodeIfPresent([SleepAid].self, forKey: .sleepAids) ?? []
        roomDarkness = try values.decodeIfPresent(RoomDarkness.self, forKey: .roomDarkness)
        noiseLevel = try values.decodeIfPresent(NoiseLevel.self, forKey: .noiseLevel)
        screenBucket = try values.decodeIfPresent(ScreenBucket.self, forKey: .screenBucket)
        soundType = try values.decodeIfPresent(SoundType.self, forKey: .soundType)
        otherAidText = try values.decodeIfPresent(String.self, forKey: .otherAidText)
        sameAsUsual = try values.decodeIfPresent(Bool.self, forKey: .sameAsUsual) ?? false
    }

    /// Checks the follow-ups agree with the aids chosen.
    func validated() throws(DoseError) -> SleepEnvironment {
        var copy = self
        var seen = Set<SleepAid>()
        copy.sleepAids = sleepAids.filter { seen.insert($0).inserted }
        if copy.sleepAids.contains(.none), copy.sleepAids.count > 1 {
            throw .invalidInput(field: "sleep_aids_used", problem: "'none' is combined with other aids", allowed: "either none or a list of aids")
        }
        let screens = copy.sleepAids.contains(.tvOn) || copy.sleepAids.contains(.phoneInBed)
        if !screens, screenBucket != nil {
            throw .invalidInput(
                field: "screen_in_bed_minutes_bucket", problem: "no screen (tv_on, phone_in_bed) was selected", allowed: "leave it out")
        }
        if screens, copy.screenBucket == nil { copy.screenBucket = .unknown }
        if !copy.sleepAids.contains(.whiteNoise), soundType != nil {
            throw .invalidInput(field: "sound_type", problem: "white_noise was not selected", allowed: "leave it out")
        }
        if copy.sleepAids.contains(.whiteNoise), copy.soundType == nil { copy.soundType = .unknown }
        copy.otherAidText = try TextLimits.validated(otherAidText, field: "other_aid_text", limit: 50)
        if copy.otherAidText != nil, !copy.sleepAids.contains(.other) {
            throw .invalidInput(field: "other_aid_text", problem: "the 'other' aid was not selected", allowed: "select other, or leave the text out")
        }
        return copy
    }
}

/// The morning check-in of SPEC §3.5 (seed 003, reference §6.9): quick fields, deep dives, narcolepsy flags,
/// sleep therapy and environment. Every enum is stored in snake_case (D8).
public struct MorningCheckIn: Hashable, Sendable, Codable {
    /// Sleep quality 1–5.
    public var sleepQuality = 3
    public var feelRested = FeelRested.moderate
    public var grogginess = Grogginess.mild
    public var sleepInertia = SleepInertia.fiveToFifteen
    public var dreamRecall = DreamRecall.none
    /// Mental clarity 1–10.
    public var mentalClarity = 5
    public var mood = Mood.neutral
    public var anxietyLevel = AnxietyLevel.none
    /// Readiness for the day 1–5.
    public var readiness = 3
    public var hadSleepParalysis = false
    public var hadHallucinations = false
    public var hadAutomaticBehavior = false
    public var fellOutOfBed = false
    public var hadConfusionOnWaking = false
    /// Any physical symptom reported; the details are optional.
    public var hasPhysicalSymptoms = false
    public var physical: PhysicalSymptoms?
    /// Any respiratory symptom reported; the details are optional.
    public var hasRespiratorySymptoms = false
    public var respiratory: RespiratorySymptoms?
    /// Sleep therapy used last night.
    public var sleepTherapy: [SleepTherapy] = []
    /// The environment card, when filled in.
    public var environment: SleepEnvironment?
    /// Free notes (at most 500 characters).
    public var notes: String?

    /// The seed defaults.
    public init() {}

    /// Any of the five narcolepsy flags.
    public var hasNarcolepsySymptoms: Bool {
        hadSleepParalysis || hadHallucinations || hadAutomaticBehavior || fellOutOfBed || hadConfusionOnWaking
    }

    /// The stored names of its answers, as every surface takes them.
    public static var fieldNames: [String] { CodingKeys.allCases.map(\.stringValue) }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case sleepQuality = "sleep_quality", feelRested = "feel_rested", grogginess, sleepInertia = "sleep_inertia_duration"
        case dreamRecall = "dream_recall", mentalClarity = "mental_clarity", mood, anxietyLevel = "anxiety_level"
        case readiness = "readiness_for_day", hadSleepParalysis = "had_sleep_paralysis", hadHallucinations = "had_hallucinations"
        case hadAutomaticBehavior = "had_automatic_behavior", fellOutOfBed = "fell_out_of_bed", hadConfusionOnWaking = "had_confusion_on_waking"
        case hasPhysicalSymptoms = "has_physical_symptoms", physical = "physical_symptoms"
        case hasRespiratorySymptoms = "has_respiratory_symptoms", respiratory = "respiratory_symptoms"
        case sleepTherapy = "sleep_therapy", environment = "sleep_environment", notes
    }

    /// Decodes a partial check-in: missing fields take the seed defaults; unknown fields are refused.
    public init(from decoder: any Decoder) throws {
        let values = try strictContainer(decoder, CodingKeys.self, what: "check-in")
        func read<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T { try values.decodeIfPresent(T.self, forKey: key) ?? fallback }
        sleepQuality = try read(.sleepQuality, 3)
        feelRested = try read(.feelRested, .moderate)
        grogginess = try read(.grogginess, .mild)
        sleepInertia = try read(.sleepInertia, .fiveToFifteen)
        dreamRecall = try read(.dreamRecall, .none)
        mentalClarity = try read(.mentalClarity, 5)
        mood = try read(.mood, .neutral)
        anxietyLevel = try read(.anxietyLevel, .none)
        readiness = try read(.readiness, 3)
        hadSleepParalysis = try read(.hadSleepParalysis, false)
        hadHallucinations = try read(.hadHallucinations, false)
        hadAutomaticBehavior = try read(.hadAutomaticBehavior, false)
        fellOutOfBed = try read(.fellOutOfBed, false)
        hadConfusionOnWaking = try read(.hadConfusionOnWaking, false)
        physical = try values.decodeIfPresent(PhysicalSymptoms.self, forKey: .physical)
        hasPhysicalSymptoms = try read(.hasPhysicalSymptoms, physical != nil)
        respiratory = try values.decodeIfPresent(RespiratorySymptoms.self, forKey: .respiratory)
        hasRespiratorySymptoms = try read(.hasRespiratorySymptoms, respiratory != nil)
        sleepTherapy = try read(.sleepTherapy, [])
        environment = try values.decodeIfPresent(SleepEnvironment.self, forKey: .environment)
        notes = try values.decodeIfPresent(String.self, forKey: .notes)
    }

    /// The check-in with every field checked; the first invalid field is named with its allowed range.
    public func validated() throws(DoseError) -> MorningCheckIn {
        var copy = self
        try Self.check(sleepQuality, in: 1...5, field: "sleep_quality")
        try Self.check(mentalClarity, in: 1...10, field: "mental_clarity")
        try Self.check(readiness, in: 1...5, field: "readiness_for_day")
        if let physical {
            guard hasPhysicalSymptoms else {
                throw .invalidInput(
                    field: "physical_symptoms", problem: "details given without has_physical_symptoms", allowed: "set has_physical_symptoms")
            }
            try Self.check(physical.painSeverity, in: 0...10, field: "pain_severity")
            var seen = Set<PainLocation>()
            copy.physical?.painLocations = physical.painLocations.filter { seen.insert($0).inserted }
        }
        if respiratory != nil, !hasRespiratorySymptoms {
            throw .invalidInput(
                field: "respiratory_symptoms", problem: "details given without has_respiratory_symptoms", allowed: "set has_respiratory_symptoms")
        }
        var therapies = Set<SleepTherapy>()
        copy.sleepTherapy = sleepTherapy.filter { therapies.insert($0).inserted }
        copy.environment = try environment?.validated()
        copy.notes = try TextLimits.validated(notes, field: "notes", limit: TextLimits.note)
        return copy
    }

    /// Wellness 0–100: quality/5·30 + rested/5·25 + clarity/10·20 + (mood+1)/5·15 + readiness/5·10,
    /// less 10 for physical, 5 for respiratory and 5 for narcolepsy symptoms. Defaults give 58.
    public var wellnessScore: Int {
        var score = Double(sleepQuality) / 5 * 30
        score += Double(feelRested.score) / 5 * 25
        score += Double(mentalClarity) / 10 * 20
        score += Double(mood.index + 1) / 5 * 15
        score += Double(readiness) / 5 * 10
        if hasPhysicalSymptoms { score -= 10 }
        if hasRespiratorySymptoms { score -= 5 }
        if hasNarcolepsySymptoms { score -= 5 }
        return Int(min(100, max(0, score)).rounded())
    }

    private static func check(_ value: Int, in range: ClosedRange<Int>, field: String) throws(DoseError) {
        guard range.contains(value) else {
            throw .invalidInput(field: field, problem: "\(value) is out of range", allowed: "\(range.lowerBound)–\(range.upperBound)")
        }
    }
}

/// A keyed container that refuses keys the type does not know, naming the first one.
func strictContainer<Key: CodingKey & CaseIterable>(_ decoder: any Decoder, _: Key.Type, what: String) throws -> KeyedDecodingContainer<Key> {
    let keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
    let known = Key.allCases.map(\.stringValue)
    if let unknown = keys.first(where: { !known.contains($0) }) {
        throw DoseError.invalidInput(field: unknown, problem: "'\(unknown)' is not a \(what) field", allowed: known.joined(separator: ", "))
    }
    return try decoder.container(keyedBy: Key.self)
}

/// Any string key, to find the unknown ones.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension MorningCheckIn {
    /// The answers with a "same as usual" sleep environment filled in from `usual` (the latest earlier check-in's);
    /// unchanged when the shortcut was not chosen. The shortcut copies aids, darkness and noise, and skips the
    /// follow-up questions.
    public func resolvingSameAsUsual(with usual: SleepEnvironment?) throws(DoseError) -> MorningCheckIn {
        guard var environment, environment.sameAsUsual else { return self }
        guard let usual else {
            throw .invalidInput(
                field: "same_as_usual", problem: "no earlier check-in has a sleep environment to copy",
                allowed: "the aids, darkness and noise of last night")
        }
        environment.sleepAids = usual.sleepAids
        environment.roomDarkness = usual.roomDarkness
        environment.noiseLevel = usual.noiseLevel
        environment.otherAidText = usual.otherAidText
        environment.screenBucket = nil
        environment.soundType = nil
        var copy = self
        copy.environment = environment
        return try copy.validated()
    }
}
