import Foundation

/// A kind of sleep event, identified by its wire name (`bathroom`, `wake_temp`, or a custom type's name).
public struct SleepEventType: RawRepresentable, Hashable, Sendable, Codable, Comparable {
    /// The snake_case name used in storage, exports and the API.
    public let rawValue: String
    /// Wraps a wire name; use ``SleepEventCatalogue/resolve(_:)`` to accept what a person typed.
    public init(rawValue: String) { self.rawValue = rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public static let bathroom = Self(rawValue: "bathroom")
    public static let water = Self(rawValue: "water")
    public static let snack = Self(rawValue: "snack")
    public static let inBed = Self(rawValue: "in_bed")
    public static let lightsOut = Self(rawValue: "lights_out")
    public static let wakeFinal = Self(rawValue: "wake_final")
    public static let wakeTemp = Self(rawValue: "wake_temp")
    public static let napStart = Self(rawValue: "nap_start")
    public static let napEnd = Self(rawValue: "nap_end")
    public static let anxiety = Self(rawValue: "anxiety")
    public static let dream = Self(rawValue: "dream")
    public static let heartRacing = Self(rawValue: "heart_racing")
    public static let noise = Self(rawValue: "noise")
    public static let temperature = Self(rawValue: "temperature")
    public static let pain = Self(rawValue: "pain")
}

/// The group a sleep event is shown in.
public enum SleepEventCategory: String, Sendable, Codable, CaseIterable {
    case physical
    case sleepCycle = "sleep_cycle"
    case mental
    case environment
    case custom

    /// Label for people.
    public var label: String {
        switch self {
        case .physical: "Physical"
        case .sleepCycle: "Sleep cycle"
        case .mental: "Mental"
        case .environment: "Environment"
        case .custom: "Custom"
        }
    }
}

/// Everything DoseTap knows about one sleep-event type.
public struct SleepEventDefinition: Hashable, Sendable, Codable {
    /// The wire name.
    public let type: SleepEventType
    /// What people see ("Brief Wake").
    public let label: String
    /// The camelCase name of the original app (`wakeTemp`), accepted as input.
    public let camelName: String
    /// The group it belongs to.
    public let category: SleepEventCategory
    /// Seconds before the same type may be logged again, unless a setting overrides it.
    public let defaultCooldownSeconds: Int
    /// A short symbol for the UI.
    public let icon: String
    /// `#RRGGBB`, for custom types; built-ins use the category colour.
    public let colour: String?
}

/// A person's own event type (up to ``SleepEventCatalogue/maximumCustomTypes``).
public struct CustomEventType: Hashable, Sendable, Codable {
    /// The name as the person wrote it (1–30 characters).
    public var name: String
    /// A short symbol (at most 4 characters, such as an emoji).
    public var icon: String
    /// `#RRGGBB`.
    public var colour: String

    /// Creates a custom type; validated when the catalogue is built.
    public init(name: String, icon: String = "●", colour: String = "#8E8E93") {
        self.name = name
        self.icon = icon
        self.colour = colour
    }
}

/// The catalogue of sleep events (SPEC D6): the fifteen built-ins plus the person's custom types.
public struct SleepEventCatalogue: Sendable, Hashable {
    /// At most this many custom types.
    public static let maximumCustomTypes = 8
    /// Longest custom type name.
    public static let maximumCustomNameLength = 30
    /// Allowed cooldown range in seconds (a per-type setting).
    public static let cooldownRange = 0...3600

    /// The built-in types, in display order.
    public static let builtIn: [SleepEventDefinition] = [
        .init(type: .bathroom, label: "Bathroom", camelName: "bathroom", category: .physical, defaultCooldownSeconds: 60, icon: "🚽", colour: nil),
        .init(type: .water, label: "Water", camelName: "water", category: .physical, defaultCooldownSeconds: 60, icon: "💧", colour: nil),
        .init(type: .snack, label: "Snack", camelName: "snack", category: .physical, defaultCooldownSeconds: 60, icon: "🍿", colour: nil),
        .init(type: .inBed, label: "In Bed", camelName: "inBed", category: .sleepCycle, defaultCooldownSeconds: 0, icon: "🛏", colour: nil),
        .init(
            type: .lightsOut, label: "Lights Out", camelName: "lightsOut", category: .sleepCycle, defaultCooldownSeconds: 0, icon: "🌙", colour: nil),
        .init(
            type: .wakeFinal, label: "Wake Up", camelName: "wakeFinal", category: .sleepCycle, defaultCooldownSeconds: 3600, icon: "☀️", colour: nil),
        .init(type: .wakeTemp, label: "Brief Wake", camelName: "wakeTemp", category: .sleepCycle, defaultCooldownSeconds: 0, icon: "👁", colour: nil),
        .init(type: .napStart, label: "Nap Start", camelName: "napStart", category: .sleepCycle, defaultCooldownSeconds: 0, icon: "💤", colour: nil),
        .init(type: .napEnd, label: "Nap End", camelName: "napEnd", category: .sleepCycle, defaultCooldownSeconds: 0, icon: "⏰", colour: nil),
        .init(type: .anxiety, label: "Anxiety", camelName: "anxiety", category: .mental, defaultCooldownSeconds: 0, icon: "😰", colour: nil),
        .init(type: .dream, label: "Dream", camelName: "dream", category: .mental, defaultCooldownSeconds: 0, icon: "💭", colour: nil),
        .init(
            type: .heartRacing, label: "Heart Racing", camelName: "heartRacing", category: .mental, defaultCooldownSeconds: 0, icon: "💓",
            colour: nil),
        .init(type: .noise, label: "Noise", camelName: "noise", category: .environment, defaultCooldownSeconds: 0, icon: "🔊", colour: nil),
        .init(
            type: .temperature, label: "Temperature", camelName: "temperature", category: .environment, defaultCooldownSeconds: 0, icon: "🌡",
            colour: nil),
        .init(type: .pain, label: "Pain", camelName: "pain", category: .environment, defaultCooldownSeconds: 0, icon: "🩹", colour: nil),
    ]

    /// Names that can never be sleep events because they are dose or session actions.
    /// Compared without underscores, so `Dose 1`, `dose_1` and `dose1` are all refused.
    static let reservedNames: Set<String> = [
        "dose1", "dose2", "extradose", "dose2skipped", "snooze", "undo", "checkin", "wake", "skip", "skipped",
    ]

    static func isReserved(_ key: String) -> Bool {
        reservedNames.contains(key.replacingOccurrences(of: "_", with: ""))
    }

    /// Every type, built-ins first.
    public let definitions: [SleepEventDefinition]
    private let lookup: [String: SleepEventDefinition]

    /// The built-ins alone.
    public static let standard = try! SleepEventCatalogue(custom: [])

    /// Builds the catalogue with the person's custom types, refusing any that is invalid or clashes.
    public init(custom: [CustomEventType]) throws(DoseError) {
        guard custom.count <= Self.maximumCustomTypes else {
            throw .invalidInput(
                field: "custom event types", problem: "\(custom.count) defined",
                allowed: "at most \(Self.maximumCustomTypes)")
        }
        var definitions = Self.builtIn
        var lookup: [String: SleepEventDefinition] = [:]
        for definition in Self.builtIn {
            for key in [definition.type.rawValue, definition.camelName, definition.label] {
                lookup[Self.normalize(key)] = definition
            }
        }
        for item in custom {
            let name = item.name.trimmingCharacters(in: .whitespacesAndNewlines)
            let key = Self.normalize(name)
            guard !name.isEmpty, TextLimits.length(name) <= Self.maximumCustomNameLength, !key.isEmpty else {
                throw .invalidInput(
                    field: "custom event name", problem: "'\(item.name)' has \(TextLimits.length(name)) characters (Unicode code points)",
                    allowed: "1–\(Self.maximumCustomNameLength) characters")
            }
            guard lookup[key] == nil, !Self.isReserved(key) else {
                throw .invalidInput(
                    field: "custom event name", problem: "'\(name)' is already a DoseTap event",
                    allowed: "a name that is not a built-in event")
            }
            guard Self.isHexColour(item.colour) else {
                throw .invalidInput(field: "custom event colour", problem: "'\(item.colour)' is not a colour", allowed: "#RRGGBB")
            }
            guard (1...4).contains(item.icon.count) else {
                throw .invalidInput(field: "custom event icon", problem: "'\(item.icon)'", allowed: "1–4 characters")
            }
            let definition = SleepEventDefinition(
                type: SleepEventType(rawValue: key), label: name, camelName: key, category: .custom,
                defaultCooldownSeconds: 0, icon: item.icon, colour: item.colour)
            definitions.append(definition)
            lookup[key] = definition
        }
        self.definitions = definitions
        self.lookup = lookup
    }

    /// Accepts a wire name, camelCase name or label, case-insensitively; otherwise an error listing the valid names.
    public func resolve(_ input: String) throws(DoseError) -> SleepEventDefinition {
        let key = Self.normalize(input)
        if let definition = lookup[key] { return definition }
        throw .invalidInput(
            field: "event", problem: "'\(input)' is not a sleep event",
            allowed: definitions.map(\.type.rawValue).joined(separator: ", "))
    }

    /// The definition of a wire name, if the catalogue has it.
    public func definition(of type: SleepEventType) -> SleepEventDefinition? { lookup[type.rawValue] }

    static let hexDigits = Set("0123456789abcdefABCDEF")

    static func isHexColour(_ text: String) -> Bool {
        text.count == 7 && text.first == "#" && text.dropFirst().allSatisfy { hexDigits.contains($0) }
    }

    /// Folds `Brief Wake`, `briefWake`, `BRIEF-WAKE` and ` brief_wake ` to `brief_wake`.
    public static func normalize(_ input: String) -> String {
        var result = ""
        var previous: Character?
        for character in input.trimmingCharacters(in: .whitespacesAndNewlines) {
            if character == " " || character == "-" || character == "_" {
                if !result.isEmpty, result.last != "_" { result.append("_") }
            } else {
                // camelCase: a capital after a lower-case letter or digit starts a new word.
                if character.isUppercase, let previous, previous.isLowercase || previous.isNumber, result.last != "_" {
                    result.append("_")
                }
                result.append(contentsOf: character.lowercased())
            }
            previous = character
        }
        while result.last == "_" { result.removeLast() }
        return result
    }
}
