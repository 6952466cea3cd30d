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
