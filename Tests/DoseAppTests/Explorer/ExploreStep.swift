import DoseApp
import DoseCore
import Foundation

/// One step of the explorer's alphabet: an action with the confirmations it carries, at an instant of the boundary
/// set, through one surface.
struct ExploreStep: Hashable, Sendable, CustomStringConvertible {
    /// The night's actions.
    enum Action: Hashable, Sendable, CaseIterable {
        case dose1, dose2, skip, snooze, undo, bathroom, napStart, napEnd, wake, checkIn, takenAnyway

        var kind: NightAction.Kind {
            switch self {
            case .dose1: .dose1
            case .dose2: .dose2
            case .skip: .skip(reason: nil)
            case .snooze: .snooze
            case .undo: .undo
            case .bathroom: .log(event: "bathroom")
            case .napStart: .log(event: "nap_start")
            case .napEnd: .log(event: "nap_end")
            case .wake: .wake
            case .checkIn: .checkIn(MorningCheckIn())
            case .takenAnyway: .takenAnyway(amountMilligrams: nil)
            }
        }

        /// Every set of confirmations the action can carry, the empty one first.
        var confirmationSets: [Set<ConfirmKind>] {
            switch self {
            case .dose1: [[], [.newNight]]
            case .dose2: [[], [.early], [.late], [.extra], [.afterSkip], Set(ConfirmKind.nightKinds)]
            case .wake, .checkIn: [[], [.endNight]]
            default: [[]]
            }
        }

        /// What a signed link or a notification's button asks for, when it can ask for this at all.
        var linkAction: ActionLink.Action? {
            switch self {
            case .dose2: .take
            case .snooze: .snooze
            case .skip: .skip
            default: nil
            }
        }

        /// The command line's words.
        var command: String {
            switch self {
            case .dose1: "dose1"
            case .dose2: "dose2"
            case .skip: "skip"
            case .snooze: "snooze"
            case .undo: "undo"
            case .bathroom: "log bathroom"
            case .napStart: "log nap_start"
            case .napEnd: "log nap_end"
            case .wake: "wake"
            case .checkIn: "checkin --quality 3"
            case .takenAnyway: "event took-anyway"
            }
        }
    }

    /// Where a step comes from.
    enum Surface: String, Hashable, Sendable, CaseIterable {
        /// The command line, awake.
        case cli
        /// A device on the API, with an idempotency key (the same request sent again must be one action).
        case api
        /// Tonight in the browser: half asleep (D17).
        case page
        /// A notification's action button: no confirmation ever.
        case push
        /// A signed link in a reminder: no confirmation ever.
        case link
        /// A caregiver holding `log`, acting for the person.
        case caregiver
        /// An action kept offline and replayed with its event id, sent twice.
        case offline

        /// Whether the surface is one a person uses half asleep.
        var isHalfAsleep: Bool { [.page, .push, .link, .offline].contains(self) }
    }

    let action: Action
    let confirmations: Set<ConfirmKind>
    /// Index into `ExploreStep.instants`.
    let instant: Int
    let surface: Surface

    /// The boundary instants, in minutes after the night's Dose 1 (before it, after the start).
    static let instants: [Double] = [0, 149.99, 150, 224.99, 225, 239.99, 240, 269.99, 270, 479.99, 480]

    /// Every step at one instant: each action with each of its confirmation sets through each surface that can send it.
    static func alphabet(at instant: Int) -> [ExploreStep] {
        var steps: [ExploreStep] = []
        for surface in Surface.allCases {
            for action in Action.allCases {
                switch surface {
                case .push, .link:
                    if action.linkAction != nil { steps.append(ExploreStep(action: action, confirmations: [], instant: instant, surface: surface)) }
                default:
                    for confirmations in action.confirmationSets {
                        steps.append(ExploreStep(action: action, confirmations: confirmations, instant: instant, surface: surface))
                    }
                }
            }
        }
        return steps
    }

    var confirmationWords: String { confirmations.map(\.rawValue).sorted().joined(separator: ",") }

    var description: String {
        "\(action.command)\(confirmations.isEmpty ? "" : " --confirm \(confirmationWords)") at +\(NumberText.plain(Self.instants[instant])) min via \(surface.rawValue)"
    }
}
