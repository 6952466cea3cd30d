import Foundation

/// What a person lets another do with their records (SPEC §5.6). `log` includes `view`: whoever records for someone
/// must see the night they act on.
public enum Grant: String, Sendable, CaseIterable, Comparable, Codable {
    /// Tonight's status, the history and one night's details.
    case view
    /// The insights and the clinician's report.
    case report
    /// A rung of the escalation ladder: told when Dose 2 is still pending, and may acknowledge.
    case alarms
    /// Record actions for the person, under the same rules, each recorded with who acted.
    case log

    public static func < (lhs: Grant, rhs: Grant) -> Bool { allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)! }

    /// The allowed names, as an error message says them.
    public static let allowed = "one or more of view, report, alarms, log"

    /// The grants `names` ask for, checked, with what each implies (`log` adds `view`), sorted and without repeats.
    public static func parse(_ names: [String], field: String = "grants") throws(DoseError) -> [Grant] {
        guard !names.isEmpty, names.count <= 8 else {
            throw .invalidInput(field: field, problem: names.isEmpty ? "no grant was given" : "\(names.count) grants", allowed: allowed)
        }
        var grants = Set<Grant>()
        for name in names {
            guard let grant = Grant(rawValue: name) else {
                throw .invalidInput(field: field, problem: "'\(name.prefix(40))' is not a grant", allowed: allowed)
            }
            grants.insert(grant)
        }
        if grants.contains(.log) { grants.insert(.view) }
        return grants.sorted()
    }
}
