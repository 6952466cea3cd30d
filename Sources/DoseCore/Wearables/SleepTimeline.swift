public import Foundation

/// A sleep stage as wearables report it (Apple Health's sleep analysis, WHOOP's stages).
public enum SleepStage: String, Sendable, Codable, CaseIterable {
    case inBed = "in_bed"
    /// Asleep, stage not given.
    case asleep
    case core
    case deep
    case rem
    case awake

    /// Whether it counts as sleep.
    public var isAsleep: Bool { self == .asleep || self == .core || self == .deep || self == .rem }

    /// Within one source, which of two overlapping samples says more: a stage over plain "asleep", anything over "in
    /// bed" (Apple Health writes an in-bed sample around the stages).
    var specificity: Int {
        switch self {
        case .inBed: 0
        case .asleep: 1
        case .core, .deep, .rem, .awake: 2
        }
    }
}

/// One sleep record of a wearable: a stage from one source over an interval, with the UTC offsets it was written with.
public struct SleepSample: Hashable, Sendable {
    public var source: String
    public var stage: SleepStage
    public var start: Date
    public var end: Date
    /// The offsets the export gave its start and end (minutes east of UTC), when it gave them.
    public var startOffsetMinutes: Int?
    public var endOffsetMinutes: Int?

    public init(source: String, stage: SleepStage, start: Date, end: Date, startOffsetMinutes: Int? = nil, endOffsetMinutes: Int? = nil) {
        self.source = source
        self.stage = stage
        self.start = start
        self.end = end
        self.startOffsetMinutes = startOffsetMinutes
        self.endOffsetMinutes = endOffsetMinutes
    }
}

/// A stretch of the merged timeline: one stage, from the one source chosen for it.
public struct StageSpan: Hashable, Sendable {
    public var stage: SleepStage
    public var start: Date
    public var end: Date
    public var source: String

    public init(stage: SleepStage, start: Date, end: Date, source: String) {
        self.stage = stage
        self.start = start
        self.end = end
        self.source = source
    }

    /// Its length in minutes.
    public var minutes: Double { end.timeIntervalSince(start) / 60 }
}

/// Which source speaks for a stretch of time where several overlap: the first in the list whose word appears in the
/// source's name (case-insensitive); sources matching none come after, in name order. Nothing is ever counted twice.
public struct SourcePriority: Hashable, Sendable, Codable {
    /// Words in priority order, e.g. `["watch", "whoop", "ring", "phone"]`.
    public var words: [String]

    public init(words: [String]) { self.words = words.map { $0.lowercased() } }

    /// A watch measures sleep best, then a dedicated band, a ring, an app, and the phone last.
    public static let standard = SourcePriority(words: ["watch", "whoop", "ring", "oura", "iphone", "phone"])

    /// The most words a priority may list, and the longest word.
    public static let maximumWords = 12
    public static let maximumWordLength = 40

    /// A priority from the setting's text: words separated by commas, first preferred, each of letters, digits, spaces
    /// or hyphens, none twice (case-insensitive).
    public init(setting text: String, field: String = "sleep_source_priority") throws(DoseError) {
        let allowed =
            "1–\(Self.maximumWords) words of wearable names, comma-separated, first preferred (e.g. watch,whoop,ring,phone); each up to "
            + "\(Self.maximumWordLength) letters, digits, spaces or hyphens"
        let words = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard (1...Self.maximumWords).contains(words.count) else {
            throw .invalidInput(field: field, problem: "\(words.count) words", allowed: allowed)
        }
        for (index, word) in words.enumerated() {
            guard !word.isEmpty, word.count <= Self.maximumWordLength,
                word.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" })
            else { throw .invalidInput(field: field, problem: "word \(index + 1) is empty, too long or has other characters", allowed: allowed) }
            guard !words[..<index].contains(word) else { throw .invalidInput(field: field, problem: "'\(word)' is listed twice", allowed: allowed) }
        }
        self.init(words: words)
    }

    /// Lower is preferred.
    public func rank(_ source: String) -> Int {
        let name = source.lowercased()
        return words.firstIndex { name.contains($0) } ?? words.count
    }
}

/// The merged sleep timeline of a night: overlapping samples of several sources become one sequence of stages.
public enum SleepTimeline {
    /// Merges samples: each stretch of time is told by the preferred source covering it, and by that source's most
    /// specific sample; neighbouring stretches of the same stage and source join. Samples whose end is not after their
    /// start are ignored.
    public static func merge(_ samples: [SleepSample], priority: SourcePriority = .standard) -> [StageSpan] {
        let valid = samples.filter { $0.end > $0.start }
        guard !valid.isEmpty else { return [] }
        let boundaries = Array(Set(valid.flatMap { [$0.start, $0.end] })).sorted()
        let byStart = valid.sorted { $0.start < $1.start }
        var spans: [StageSpan] = []
        var active: [SleepSample] = []
        var next = 0
        for (from, to) in zip(boundaries, boundaries.dropFirst()) {
            active.removeAll { $0.end <= from }
            while next < byStart.count, byStart[next].start <= from {
                if byStart[next].end > from { active.append(byStart[next]) }
                next += 1
            }
            let best = active.min { a, b in
                (priority.rank(a.source), a.source, -a.stage.specificity, a.stage.rawValue)
                    < (priority.rank(b.source), b.source, -b.stage.specificity, b.stage.rawValue)
            }
            guard let best else { continue }
            if let last = spans.last, last.end == from, last.stage == best.stage, last.source == best.source {
                spans[spans.count - 1].end = to
            } else {
                spans.append(StageSpan(stage: best.stage, start: from, end: to, source: best.source))
            }
        }
        return spans
    }

    /// Splits a merged timeline into sleep periods: a gap with no data longer than `gap` starts a new period.
    public static func periods(_ spans: [StageSpan], gap: TimeInterval = 2 * 3600) -> [[StageSpan]] {
        var periods: [[StageSpan]] = []
        for span in spans {
            if let last = periods.last?.last, span.start.timeIntervalSince(last.end) <= gap {
                periods[periods.count - 1].append(span)
            } else {
                periods.append([span])
            }
        }
        return periods
    }
}

extension SleepTimeline {
    /// The night a sleep period belongs to: of the nights' intervals it overlaps, the one it overlaps most; nil when
    /// it overlaps none (a nap on a day without a night, say).
    public static func night<Key>(for period: [StageSpan], among nights: [(key: Key, from: Date, to: Date)]) -> Key? {
        nights.map { (item: $0.key, overlap: overlap(of: period, from: $0.from, to: $0.to)) }.filter { $0.overlap > 0 }.max {
            $0.overlap < $1.overlap
        }?.item
    }

    /// Of several periods, the one overlapping `from..<to` most, if any overlaps it.
    public static func period(overlappingMost periods: [[StageSpan]], from: Date, to: Date) -> [StageSpan]? {
        periods.map { (item: $0, overlap: overlap(of: $0, from: from, to: to)) }.filter { $0.overlap > 0 }.max { $0.overlap < $1.overlap }?.item
    }

    /// Seconds a period shares with `from..<to` (negative when apart).
    static func overlap(of period: [StageSpan], from: Date, to: Date) -> TimeInterval {
        guard let start = period.first?.start, let end = period.last?.end else { return 0 }
        return min(end, to).timeIntervalSince(max(start, from))
    }
}
