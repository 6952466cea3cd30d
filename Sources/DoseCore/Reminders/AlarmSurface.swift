import Foundation

/// Where a person answered an alarm: any action of the night, or an explicit "I'm up", from any of these.
public enum AlarmSurface: String, Sendable, CaseIterable, Codable {
    /// The web page (its buttons, forms and the JSON calls it makes with its pairing cookie).
    case page
    /// An action of a Web Push notification.
    case push
    /// A signed reminder link (ntfy buttons, webhooks, a command hook's URLs).
    case link
    /// The command line.
    case cli
    /// The JSON API with a device token.
    case api
    /// A hardware button (`dosetap press`).
    case button

    /// Its words in the alarm log ("acknowledged 01:16 by push action").
    public var label: String {
        switch self {
        case .page: "page"
        case .push: "push action"
        case .link: "link"
        case .cli: "CLI"
        case .api: "API"
        case .button: "button"
        }
    }
}

/// The channels a reminder goes out on.
public enum AlarmChannel: String, Sendable, CaseIterable, Codable {
    /// Open pages, through server-sent events.
    case page
    /// Web Push to installed apps.
    case push
    /// An ntfy topic.
    case ntfy
    /// A JSON webhook.
    case webhook
    /// The local command hook.
    case command
}
