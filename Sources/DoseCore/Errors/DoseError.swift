public import Foundation

/// The situations a person must confirm by name before a risky action is recorded (SPEC §3.3).
public enum ConfirmKind: String, CaseIterable, Codable, Sendable, Hashable {
    case early
    case late
    case extra
    case afterSkip = "after_skip"
    case duplicate
    /// A Dose 1 less than 8 hours after the last oxybate dose, for a night that really is new (D14).
    case newNight = "new_night"
    /// A check-in or wake-up that ends the night while Dose 2 is still undecided (D16).
    case endNight = "end_night"
    /// A titration plan whose step raises the nightly amount faster than the product's label (D19).
    case fastTitration = "fast_titration"

    /// The confirmations of the night's actions (doses, skips, check-ins): every kind but the settings' own.
    public static let nightKinds = allCases.filter { $0 != .fastTitration }
}

/// The kinds of refusal of SPEC §4, by reason. Each edge maps them: DoseApp to the wire code (`ErrorCode.wire`), the
/// server to an HTTP status, the command line to an exit code.
public enum ErrorCode: CaseIterable, Sendable, Hashable {
    case invalidInput
    case deviceNotRegistered
    /// A browser's request that did not come from this server's own page (Origin, Referer, CSRF token).
    case forbidden
    case notFound
    case methodNotAllowed
    case nothingToUndo
    case alreadyTaken
    case alreadySkipped
    case dose2Skipped
    case sessionFinalizing
    case napState
    case duplicateMedication
    case recentDose
    /// A check-in or wake-up while Dose 2 is undecided (D16); `end_night` confirms it.
    case dose2Pending
    case tooLarge
    /// A JSON route was sent a body that is not `application/json`.
    case unsupportedMediaType
    case dose1Required
    /// A Dose 2 (or its skip or snooze) on a night whose regimen has one dose (D19).
    case notInRegimen
    case titrationTooFast
    /// A dose past the night's maximum, or a second extra dose (D20); no confirmation lifts it.
    case nightlyMaximum
    case windowNotOpen
    case windowExceeded
    case snoozeLimit
    case snoozeUnavailable
    case undoExpired
    case idempotencyMismatch
    case rateLimit
    case storageBusy
}

/// Why a snooze is not available right now.
public enum SnoozeUnavailableReason: String, Sendable, Hashable, Codable {
    case disabledInSettings = "disabled_in_settings"
    case tooEarly = "too_early"
    case nearClose = "near_close"
    case windowClosed = "window_closed"
    case nightComplete = "night_complete"
    case finalizing

    /// A sentence for people.
    public var explanation: String {
        switch self {
        case .disabledInSettings: "Snoozing is turned off in settings."
        case .tooEarly: "The Dose 2 window has not opened yet, so there is nothing to snooze."
        case .nearClose: "Less than 15 minutes of the window remain, so snoozing is off. Take Dose 2 now or skip it."
        case .windowClosed: "The Dose 2 window has closed."
        case .nightComplete: "Dose 2 is already taken or skipped tonight."
        case .finalizing: "Wake-up is logged; the night is ending."
        }
    }
}

/// Every refusal DoseTap can give, with what a good message needs (SPEC §4).
///
/// Times are carried as instants plus the wall-clock text in the person's zone, so each edge can present
/// them without recomputing anything.
public enum DoseError: Error, Equatable, Sendable {
    /// Input was malformed or out of range; `field` names it and `allowed` says what is accepted.
    case invalidInput(field: String, problem: String, allowed: String?)
    /// An input file (import, database) could not be used.
    case invalidFile(problem: String)
    /// The request came without a valid device token.
    case deviceNotRegistered
    /// A browser's request to change something that did not come from this server's own page; `why` says what failed.
    case forbidden(why: String)
    /// Someone who shares with the caller does not open this to them: `why` names what it needs and what they hold.
    case notShared(why: String)
    /// A body of another media type than the route takes.
    case unsupportedMediaType(sent: String, accepted: String)
    /// The named thing does not exist.
    case notFound(what: String)
    /// The address exists but does not answer this method; `allowed` lists those it does.
    case methodNotAllowed(method: String, path: String, allowed: [String])
    /// There is no recent action of the person's to undo.
    case nothingToUndo
    /// That dose is already recorded; `confirm` is `extra` when an extra dose may be recorded instead.
    case alreadyTaken(dose: String, at: Date, localTime: String, confirm: ConfirmKind?)
    /// Dose 2 was already skipped tonight.
    case alreadySkipped(at: Date, localTime: String)
    /// Dose 2 was skipped; it can be recorded with the `after_skip` confirmation.
    case dose2Skipped(at: Date, localTime: String, sleptThrough: Bool)
    /// Wake-up is logged and the night awaits its check-in.
    case sessionFinalizing(wokeAt: Date, localTime: String)
    /// A nap start while a nap is open, or a nap end with none open.
    case napState(problem: String)
    /// The same medication was logged within the duplicate guard.
    case duplicateMedication(name: String, otherAt: Date, localTime: String, minutesApart: Int)
    /// A Dose 1 less than 8 hours from an oxybate dose of any night (D14); `new_night` confirms it. `minutesApart` is
    /// negative when that dose came after the (back-dated) Dose 1's time.
    /// `confirmable` is false on the half-asleep surfaces (Tonight, notification actions, buttons, links), which never
    /// record such a Dose 1 (D17).
    case recentDose(
        dose: String, at: Date, localTime: String, minutesApart: Int, allowedFrom: Date, allowedLocalTime: String, confirmable: Bool = true,
        night: SessionID? = nil)
    /// A check-in or wake-up (`ending`, worded for people) while Dose 2 is still undecided (D16); `end_night` confirms it.
    case dose2Pending(ending: String, window: PendingDose2)
    /// A request or file is larger than allowed.
    case tooLarge(what: String, limit: String)
    /// Dose 1 must be recorded first.
    case dose1Required
    /// The night's regimen has no such dose (D19): `action` is worded for people ("Dose 2", "Skipping Dose 2").
    case notInRegimen(action: String, regimen: DoseRegimen)
    /// A titration plan raises the nightly amount faster than the label allows; `fast_titration` confirms it.
    case titrationTooFast(steps: [TitrationPlan.FastStep])
    /// A dose Tonight's take never records, whatever is confirmed (D20): one past the night's maximum, or a second extra.
    case nightlyMaximum(NightlyMaximum)
    /// Dose 2 before the window opens; needs the `early` confirmation.
    case windowNotOpen(minutesUntilOpen: Int, opensAt: Date, localTime: String)
    /// Dose 2 after the window closed; needs the `late` confirmation.
    case windowExceeded(closedAt: Date, localTime: String, minutesLate: Int)
    /// All snoozes of tonight are used.
    case snoozeLimit(maximum: Int)
    /// Snoozing is not possible now, and why.
    case snoozeUnavailable(SnoozeUnavailableReason)
    /// The undo window has passed.
    case undoExpired(windowSeconds: Int, secondsAgo: Double)
    /// An idempotency key was reused for a different request.
    case idempotencyMismatch
    /// The event type is inside its cooldown.
    case rateLimited(event: String, retryAfterSeconds: Int)
    /// A device sent more requests than the API allows per minute.
    case tooManyRequests(retryAfterSeconds: Int)
    /// A person already has as much heavy work running as one person may (insights, reports, exports, imports).
    case heavyWorkBusy(running: Int, retryAfterSeconds: Int)
    /// Storage is busy; try again shortly.
    case storageBusy
    /// An import was stopped (the server is shutting down) before it kept anything.
    case importStopped
    /// The database cannot be reached (a PostgreSQL server down or refusing), named without its password.
    case storageUnavailable(problem: String)

    /// The SPEC §4 code.
    public var code: ErrorCode {
        switch self {
        case .invalidInput, .invalidFile: .invalidInput
        case .deviceNotRegistered: .deviceNotRegistered
        case .forbidden, .notShared: .forbidden
        case .unsupportedMediaType: .unsupportedMediaType
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .nothingToUndo: .nothingToUndo
        case .alreadyTaken: .alreadyTaken
        case .alreadySkipped: .alreadySkipped
        case .dose2Skipped: .dose2Skipped
        case .sessionFinalizing: .sessionFinalizing
        case .napState: .napState
        case .duplicateMedication: .duplicateMedication
        case .recentDose: .recentDose
        case .dose2Pending: .dose2Pending
        case .tooLarge: .tooLarge
        case .dose1Required: .dose1Required
        case .notInRegimen: .notInRegimen
        case .titrationTooFast: .titrationTooFast
        case .nightlyMaximum: .nightlyMaximum
        case .windowNotOpen: .windowNotOpen
        case .windowExceeded: .windowExceeded
        case .snoozeLimit: .snoozeLimit
        case .snoozeUnavailable: .snoozeUnavailable
        case .undoExpired: .undoExpired
        case .idempotencyMismatch: .idempotencyMismatch
        case .rateLimited, .tooManyRequests, .heavyWorkBusy: .rateLimit
        case .storageBusy, .importStopped, .storageUnavailable: .storageBusy
        }
    }

    /// The confirmation that would let the action through, if one exists.
    public var confirm: ConfirmKind? {
        switch self {
        case .alreadyTaken(_, _, _, let confirm): confirm
        case .dose2Skipped: .afterSkip
        case .windowNotOpen: .early
        case .windowExceeded: .late
        case .duplicateMedication: .duplicate
        case .recentDose(_, _, _, _, _, _, let confirmable, _): confirmable ? .newNight : nil
        case .dose2Pending: .endNight
        case .titrationTooFast: .fastTitration
        default: nil
        }
    }

    /// Seconds to wait before trying again, where waiting helps.
    public var retryAfterSeconds: Int? {
        switch self {
        case .rateLimited(_, let seconds), .tooManyRequests(let seconds), .heavyWorkBusy(_, let seconds): seconds
        case .storageBusy: 1
        case .storageUnavailable: 5
        default: nil
        }
    }

    /// Structured facts for machine clients (`details` in the JSON error).
    public var details: [String: String] {
        switch self {
        case .invalidInput(let field, _, let allowed):
            var details = ["field": field]
            if let allowed { details["allowed"] = allowed }
            return details
        case .windowNotOpen(let minutes, let opensAt, let local):
            return ["minutes_until_open": String(minutes), "opens_at": ISO8601.string(opensAt), "opens_at_local": local]
        case .windowExceeded(let closedAt, let local, let late):
            return ["closed_at": ISO8601.string(closedAt), "closed_at_local": local, "minutes_late": String(late)]
        case .alreadyTaken(let dose, let at, let local, _):
            return ["dose": dose, "taken_at": ISO8601.string(at), "taken_at_local": local]
        case .dose2Skipped(let at, let local, _), .alreadySkipped(let at, let local):
            return ["skipped_at": ISO8601.string(at), "skipped_at_local": local]
        case .snoozeUnavailable(let reason):
            return ["reason": reason.rawValue]
        case .dose2Pending(_, let window):
            var details = [
                "window": window.position.rawValue, "closes_at": ISO8601.string(window.closesAt), "closes_at_local": window.closesLocalTime,
            ]
            details["opens_at"] = ISO8601.string(window.opensAt)
            details["opens_at_local"] = window.opensLocalTime
            return details
        case .recentDose(let dose, let at, let local, let minutes, let allowedFrom, let allowedLocal, _, let night):
            var details = [
                "dose": dose, "taken_at": ISO8601.string(at), "taken_at_local": local, "minutes_apart": String(minutes),
                "allowed_from": ISO8601.string(allowedFrom), "allowed_from_local": allowedLocal,
            ]
            details["session_id"] = night?.rawValue
            return details
        case .snoozeLimit(let maximum):
            return ["max_snoozes": String(maximum)]
        case .notInRegimen(_, let regimen):
            return ["regimen": regimen.kind.rawValue, "product": regimen.product]
        case .titrationTooFast(let steps):
            return ["steps": steps.map(\.step.from.description).joined(separator: ",")]
        case .nightlyMaximum(let refusal):
            var details = [
                "reason": refusal.reason.rawValue, "taken_mg": String(refusal.takenMilligrams), "dose_mg": String(refusal.doseMilligrams),
                "maximum_mg": String(refusal.maximumMilligrams),
            ]
            details["extra_at_local"] = refusal.extraLocalTime
            return details
        case .undoExpired(let window, _):
            return ["undo_window_seconds": String(window)]
        case .rateLimited(let event, _):
            // Tells an event's cooldown (a refusal of that tap) from the device's request limit (try again later).
            return ["event": event]
        default:
            return [:]
        }
    }

    /// A message for a person: what happened, when it is allowed, and what to do.
    public var message: String { message { "confirm '\($0.rawValue)'" } }

    /// The message with the way to confirm worded for one surface: `confirmation` gives the words ("add
    /// `--confirm early`"), or nil where the surface offers a button instead and the sentence is left out;
    /// `takenAnyway` names the surface's way to record a dose taken past the night's limits, where it has one.
    /// Long by design: one case per refusal, so every sentence a person reads at night is written beside the others
    /// and a new refusal cannot be added without its words.
    public func message(confirmation: (ConfirmKind) -> String?, takenAnyway: String? = nil) -> String {
        func offer(_ lead: String, _ kind: ConfirmKind) -> String { confirmation(kind).map { " \(lead), \($0)." } ?? "" }
        switch self {
        case .invalidInput(let field, let problem, let allowed):
            let field = Self.quoted(field, limit: 60)
            let problem = Self.quoted(problem)
            if let allowed { return "Invalid \(field): \(problem). Allowed: \(Self.quoted(allowed))." }
            return "Invalid \(field): \(problem)."
        case .invalidFile(let problem):
            return "That file cannot be used: \(Self.quoted(problem))."
        case .forbidden(let why):
            return "Refused: \(why). Changes are accepted only from this DoseTap server's own pages; reload the page and try again."
        case .notShared(let why):
            return "Not open to you: \(why)."
        case .unsupportedMediaType(let sent, let accepted):
            return "The body was sent as '\(Self.quoted(sent, limit: 60))'; this route takes \(accepted). Send the header Content-Type: \(accepted)."
        case .deviceNotRegistered:
            return "This device is not registered. Add it with `dosetap device add` and use its token."
        case .notFound(let what):
            return "\(what) was not found."
        case .methodNotAllowed(let method, let path, let allowed):
            return "\(Self.quoted(path, limit: 100)) does not answer \(Self.quoted(method, limit: 20)). Allowed: \(allowed.joined(separator: ", "))."
        case .nothingToUndo:
            return "There is nothing to undo."
        case .alreadyTaken(let dose, _, let local, let confirm):
            if confirm == .extra {
                return "\(dose) was already taken at \(local). Another dose now would be an extra dose; "
                    + "do not take it unless your prescriber told you to." + offer("To record an extra dose anyway", .extra)
            }
            return "\(dose) was already taken at \(local)."
        case .alreadySkipped(_, let local):
            return "Dose 2 was already skipped at \(local)."
        case .dose2Skipped(_, let local, let sleptThrough):
            let what = sleptThrough ? "Dose 2 was marked as slept through at \(local)" : "Dose 2 was skipped at \(local)"
            return "\(what)." + offer("To record Dose 2 anyway", .afterSkip)
        case .sessionFinalizing(_, let local):
            return
                "Wake-up was logged at \(local), so tonight's doses are closed. Complete the morning check-in, or undo the wake-up if it was a "
                + "mistake."
        case .napState(let problem):
            return problem
        case .duplicateMedication(let name, _, let local, let minutes):
            return "\(name) was already logged at \(local) (\(minutes) min apart)." + offer("If this is a second dose", .duplicate)
        case .dose2Pending(let ending, let window):
            return "\(window.sentence) \(ending) now would end the night and cancel its Dose 2 alarms. "
                + "Keep the night, and take or skip Dose 2 first." + offer("To end the night anyway", .endNight)
        case .recentDose(let dose, _, let local, let minutes, _, let allowedLocal, let confirmable, _):
            let apart =
                minutes == 0
                ? "the same minute as this Dose 1"
                : minutes > 0
                    ? "\(DurationText.words(minutes: minutes)) before this Dose 1"
                    : "\(DurationText.words(minutes: -minutes)) after this Dose 1's time"
            return "\(dose) was taken at \(local), \(apart). Oxybate less than 8 hours after a dose "
                + "is dangerous, even if the night has ended; a new Dose 1 is possible from \(allowedLocal)."
                + (confirmable ? "" : " If that dose's time is wrong, correct it in that night's record.")
                + (confirmable ? offer("If this really is a new night (shift work, a changed schedule)", .newNight) : "")
        case .tooLarge(let what, let limit):
            return "\(what) is too large (limit \(limit))."
        case .dose1Required:
            return "Dose 1 has not been taken tonight. Take Dose 1 first."
        case .notInRegimen(let action, let regimen):
            return "\(action) is not part of tonight. \(RegimenWords.noDose2(regimen))"
        case .titrationTooFast(let steps):
            return steps.map(\.reason).joined(separator: " ") + offer("If your prescriber set these steps", .fastTitration)
        case .nightlyMaximum(let refusal):
            return refusal.sentence(recordedWith: takenAnyway)
        case .windowNotOpen(let minutes, _, let local):
            return "Too early for Dose 2: the window opens at \(local), in \(minutes) min. "
                + "Taking Dose 2 early is risky; wait for the window." + offer("To record it anyway", .early)
        case .windowExceeded(_, let local, let late):
            return "The Dose 2 window closed at \(local), \(late) min ago. A late Dose 2 can leave you drowsy "
                + "into the day; skip it unless your prescriber said otherwise." + offer("To record it anyway", .late)
        case .snoozeLimit(let maximum):
            let used = maximum == 1 ? "Tonight's only snooze is used" : "All \(maximum) snoozes are used tonight"
            return "\(used). Take Dose 2 now or skip it."
        case .snoozeUnavailable(let reason):
            return "Snooze is not available: \(reason.explanation)"
        case .undoExpired(let window, _):
            return "Too late to undo: undo is possible for \(window) seconds after an action. Edit or delete the event in history instead."
        case .idempotencyMismatch:
            return "That idempotency key was already used for a different request."
        case .rateLimited(let event, let seconds):
            return "\(event) was just logged. Wait \(seconds) s before logging it again."
        case .tooManyRequests(let seconds):
            return "Too many requests from this device. Try again in \(seconds) s."
        case .heavyWorkBusy(let running, let seconds):
            return "\(running) of your insights, reports, exports or imports are being made already, as many as run at once for one person. "
                + "Try again in \(seconds) s; the night's actions are not held up."
        case .storageBusy:
            return "Storage is busy. Try again in a moment."
        case .storageUnavailable(let problem):
            return "The database cannot be reached: \(problem). Nothing was changed; try again in a few seconds."
        case .importStopped:
            return "The import was stopped because DoseTap is shutting down; nothing from the file was kept. Import it again once DoseTap is running."
        }
    }
}

extension DoseError {
    /// Text from outside, as a message may quote it: cut at `limit` code points, so a 100,000-column header or a
    /// megabyte-long key cannot become a megabyte-long error.
    static func quoted(_ text: String, limit: Int = 400) -> String {
        let count = text.unicodeScalars.count
        guard count > limit else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit))) + "… (\(count - limit) more characters)"
    }
}

extension DoseError: CustomStringConvertible {
    public var description: String { "\(code): \(message)" }
}

/// Why Tonight's take refused a dose past the night's limits (D20), with the amounts a person is told.
public struct NightlyMaximum: Sendable, Hashable {
    /// Which limit the dose would break.
    public enum Reason: String, Sendable, Hashable {
        /// The night's total would pass the label's largest nightly amount.
        case pastMaximum = "past_maximum"
        /// An extra dose is already recorded tonight.
        case secondExtra = "second_extra"
    }

    /// Which limit.
    public var reason: Reason
    /// Milligrams the night already holds.
    public var takenMilligrams: Int
    /// The refused dose's amount.
    public var doseMilligrams: Int
    /// The night's maximum.
    public var maximumMilligrams: Int
    /// For a second extra: the clock time of the first, in the person's zone.
    public var extraLocalTime: String?

    /// A refusal's facts.
    public init(reason: Reason, takenMilligrams: Int, doseMilligrams: Int, maximumMilligrams: Int, extraLocalTime: String? = nil) {
        self.reason = reason
        self.takenMilligrams = takenMilligrams
        self.doseMilligrams = doseMilligrams
        self.maximumMilligrams = maximumMilligrams
        self.extraLocalTime = extraLocalTime
    }

    /// What a person reads: what the night holds, why nothing more is recorded, and what to do if it was taken, with
    /// the surface's way to record it (`recordedWith`), or, half asleep on a page with none, to do so once awake.
    public func sentence(recordedWith means: String?) -> String {
        let grams = RegimenWords.grams
        let what =
            switch reason {
            case .pastMaximum:
                "Tonight already holds \(grams(takenMilligrams)) of oxybate; another \(grams(doseMilligrams)) would make "
                    + "\(grams(takenMilligrams + doseMilligrams)), more than the \(grams(maximumMilligrams)) a night may hold."
            case .secondExtra:
                "An extra dose is already recorded tonight\(extraLocalTime.map { " (at \($0))" } ?? ""); a night has at most one."
            }
        return what + " DoseTap does not record this dose, whatever is confirmed: do not take any more oxybate tonight. "
            + (means.map { "If it is already taken, record it as taken anyway (\($0)), and if" }
                ?? "If it is already taken, record it as taken anyway once you are awake, and if")
            + " you feel unwell, very sleepy or confused, or breathe slowly, call emergency services now."
    }
}
