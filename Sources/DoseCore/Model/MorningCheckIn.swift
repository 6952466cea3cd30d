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

/// Mood on waking.
public enum Mood: String, Sendable, Codable, CaseIterable {
    case veryLow = "very_low", low, neutral, good, great

    /// 0–4, for the wellness score.
    public var index: Int { Self.allCases.firstIndex(of: self)! }
}

/// The morning check-in's quick fields and the flags that lower the wellness score (SPEC §3.5, seed 003).
/// The full questionnaire extends this in DoseStore's later issue; the score rules live here.
public struct MorningCheckIn: Hashable, Sendable, Codable {
    /// Sleep quality 1–5.
    public var sleepQuality = 3
    /// How rested.
    public var feelRested = FeelRested.moderate
    /// Grogginess.
    public var grogginess = Grogginess.mild
    /// Mental clarity 1–10.
    public var mentalClarity = 5
    /// Mood.
    public var mood = Mood.neutral
    /// Readiness for the day 1–5.
    public var readiness = 3
    /// Any physical symptom reported.
    public var hasPhysicalSymptoms = false
    /// Any respiratory symptom reported.
    public var hasRespiratorySymptoms = false
    /// Any of the five narcolepsy flags.
    public var hasNarcolepsySymptoms = false
    /// Free notes (at most 500 characters).
    public var notes: String?

    /// The seed defaults.
    public init() {}

    /// The check-in with every field checked; the first invalid field is named with its allowed range.
    public func validated() throws(DoseError) -> MorningCheckIn {
        var copy = self
        try Self.check(sleepQuality, in: 1...5, field: "sleep_quality")
        try Self.check(mentalClarity, in: 1...10, field: "mental_clarity")
        try Self.check(readiness, in: 1...5, field: "readiness")
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
