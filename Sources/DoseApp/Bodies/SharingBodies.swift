public import DoseCore
public import Foundation

/// `POST /v1/shares` `{email, grants}`.
public struct ShareBody: Decodable {
    public var email: String
    public var grants: [String]

    public enum CodingKeys: String, BodyKey {
        case email, grants
        public var allowed: String {
            switch self {
            case .email: EmailAddress.allowed
            case .grants: "an array of " + Grant.allowed
            }
        }
    }
}

/// `POST /v1/invitations/accept` and `…/decline` `{token}`.
public struct InvitationAnswerBody: Decodable {
    public var token: String

    public enum CodingKeys: String, BodyKey {
        case token
        public var allowed: String { "the token of an invitation link (dti_ and 64 hex digits)" }
    }
}

/// `PUT /v1/ladder` `{rungs: [{email, minutes_after_dose1}]}`: the whole escalation ladder, in order (empty: none).
public struct LadderBody: Decodable {
    public var rungs: [Rung]

    public struct Rung: Decodable {
        public var email: String
        public var minutesAfterDose1: Int

        public enum CodingKeys: String, BodyKey {
            case email, minutesAfterDose1 = "minutes_after_dose1"
            public var allowed: String {
                switch self {
                case .email: EmailAddress.allowed + " of someone you share alarms with"
                case .minutesAfterDose1:
                    "a whole number of minutes after Dose 1, \(EscalationLadder.minutes.lowerBound)–\(EscalationLadder.minutes.upperBound - 1)"
                }
            }
        }
    }

    public enum CodingKeys: String, BodyKey {
        case rungs
        public var allowed: String { "an array of at most 5 rungs, each {\"email\", \"minutes_after_dose1\"}, in order" }
    }
}
