import DoseApp
import DoseCore

// The pages' forms as types, read by `BodyDecoder.decode(_:form:)` through `PageController.form(_:_:as:)`. The
// questionnaires' forms (`QuestionnaireForms.swift`) become the API's check-in and pre-sleep objects. The settings',
// setup's and the alarm ladder's forms carry settings, setup answers and rungs by their own keys, as the use cases take
// them (`settings set KEY VALUE`, a setup step's answers), so those three are read as fields.

/// A tap on Tonight: the action, the event of a quick-log button, the confirmations a question added, the revision of
/// tonight the page was drawn on, where on the page the tap was (`answer` for a question's answer), and the wall-clock
/// instant of the tap that drew the page, if one did (D15).
struct TonightTapForm: Decodable {
    var action: String
    var event: String?
    var confirm: [String]?
    var spot: String?
    var revision: String?
    var after: String?
}

/// A form about one thing by its id: a device to unpair, a push subscription, a supply entry.
struct ChosenForm: Decodable {
    var id: String
}

/// The sign-in page's button: the link's token.
struct SignInForm: Decodable {
    var token: String
}

/// The sign-up page's address.
struct SignUpForm: Decodable {
    /// Nil when left empty: refused by the address's own check, on the form.
    var email: String?
}

/// The answer to an invitation: its token and `accept` or `decline`.
struct InvitationForm: Decodable {
    var token: String
    var answer: String
}

/// A device's new name.
struct RenameForm: Decodable {
    var id: String
    var name: String
}

/// Clear All's phrase, typed out.
struct ClearAllForm: Decodable {
    var phrase: String?
}

/// Nights to delete: those ticked, or all before a date.
struct DeleteNightsForm: Decodable {
    var date: [String]?
    var before: String?
}

/// A dose's corrected time, from Details: the event, its night, and the local time.
struct CorrectTimeForm: Decodable {
    var id: String
    var night: String?
    var at: String
}

/// Applying the weekly planner's suggestion.
struct PlannerForm: Decodable {
    var targetInterval: Int
    var confirm: Bool?

    enum CodingKeys: String, CodingKey {
        case targetInterval = "target_interval", confirm
    }
}

/// A refill or an adjustment from the Supply page.
struct SupplyForm: Decodable {
    var ml: Double?
    var bottles: Int?
    /// `add`, `remove` or `count`, for an adjustment.
    var direction: String?
    var reason: String?

    enum CodingKeys: String, BodyKey {
        case ml, bottles, direction, reason
        var allowed: String {
            switch self {
            case .ml: "a number of mL, such as 180 or 12.5"
            case .bottles: "1–12 bottles"
            case .direction: "add, remove or count"
            case .reason: "text"
            }
        }
    }
}

/// The support bundle, after its review page.
struct SupportBundleForm: Decodable {
    var reviewed: Bool?
    var includeDatabase: Bool?

    enum CodingKeys: String, CodingKey {
        case reviewed, includeDatabase = "include_database"
    }
}

/// One medication taken, from the Medications page: a chip's amount or one typed.
struct MedicationForm: Decodable {
    var medication: String
    var amount: String?
    var otherAmount: String?
    var unit: String?
    var confirm: String?
    var note: String?

    enum CodingKeys: String, CodingKey {
        case medication, amount, otherAmount = "other_amount", unit, confirm, note
    }
}

/// A setup step's number and whether its test alarm button was pressed; its answers are the settings' own fields.
struct WelcomeStepForm: Decodable {
    var step: Int
    var testAlarm: Bool?

    enum CodingKeys: String, CodingKey {
        case step, testAlarm = "test_alarm"
    }
}

/// An invitation to share, from Settings → Sharing: the invitee's address and the grants ticked.
struct ShareForm: Decodable {
    var email: String
    var grants: [String]?
}

/// The operator's page adding a person: their address and, if given, a name.
struct OperatorAddForm: Decodable {
    var email: String
    var name: String?
}

/// The operator's page removing a person: who, and the phrase typed to confirm it.
struct OperatorRemoveForm: Decodable {
    var id: String
    var confirm: String?
}
