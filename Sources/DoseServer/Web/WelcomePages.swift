import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird

/// First-run setup in five steps (`/welcome`), required before the first Dose 1 on the web and re-run from Settings.
/// Each step's answers are saved when it is sent, checked as the settings they are; accepting the disclaimer at the
/// last step completes setup and lands on Tonight.
struct WelcomePages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }
    var channels: AlarmChannels { site.channels }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/welcome") { request, context in
            let step = request.uri.queryParameters["step"].flatMap { Int($0) }.flatMap(SetupStep.init(rawValue:)) ?? .sleepSchedule
            return try Self(context).welcome(step, context)
        }
        routes.post("/ui/welcome") { request, context in try await Self(context).saveWelcomeStep(request, context) }
        return routes
    }

    struct WelcomeView {
        struct Dot {
            let number: Int
            let title: String
            let current, done: Bool
        }

        let frame: Frame
        let banner: String?
        let csrf: String
        let step: Int
        let title: String
        let dots: [Dot]
        let fields: [Field]
        let explanation: [String]
        let back: String?
        let isSchedule, isMedication, isWindow, isNotifications, isPrivacy: Bool
        let times: [TextInput]
        let zones: [SelectOption]
        let numbers: [TextInput]
        /// The medication step's product and regimen.
        let medicationChoices: MedicationChoices?
        /// The medication step's titration plan.
        let titration: TitrationField?
        /// The setup diagram of the label's window, from the regimen's words, never restated.
        let diagram: Diagram?
        let channels: [String]
        let testReport: [String]
        let hasTestReport: Bool
        let privacy: [String]
        let disclaimer: [String]
        let switches: String
        let submitLabel: String
    }

    /// The window diagram: where its edges are drawn (one unit a minute) and what they say.
    struct Diagram {
        let label, opensText, closesText: String
        let opensX, closesX, width, middleX: Int

        init(_ window: DoseWindow) {
            label = "The Dose 2 window: \(RegimenWords.dose2Rule(window))"
            (opensText, closesText) = (String(window.opensAfterMinutes), "\(window.closesAfterMinutes) min")
            (opensX, closesX) = (window.opensAfterMinutes - 15, window.closesAfterMinutes - 15)
            (width, middleX) = (window.closesAfterMinutes - window.opensAfterMinutes, (window.opensAfterMinutes + window.closesAfterMinutes) / 2 - 15)
        }
    }

    /// A text input of a step: a time, an amount.
    struct TextInput {
        let name, label, value, inputMode, hint: String
    }

    /// The step's page; `typed` are answers a refusal sent back, shown as typed rather than replaced by the settings.
    func welcome(
        _ step: SetupStep, _ context: DoseRequestContext, banner: String? = nil, test: AlarmTestResponse? = nil, status: HTTPResponse.Status = .ok,
        typed: [String: String] = [:], refusal: DoseError? = nil
    ) throws -> Response {
        let app = environment.useCases()
        let settings = try app.settings.current()
        let frame = Frame("Set up DoseTap", current: "/settings")
        let inputs = Self.inputs(of: step, settings)
        func keepTyped(_ input: TextInput) -> TextInput {
            guard let value = typed[input.name] else { return input }
            return TextInput(name: input.name, label: input.label, value: value, inputMode: input.inputMode, hint: input.hint)
        }
        let times = inputs.times.map(keepTyped)
        let numbers = inputs.numbers.map(keepTyped)
        let labels = Dictionary(uniqueKeysWithValues: (times + numbers).map { ($0.name, $0.label) })
        let zones = step == .sleepSchedule ? SelectOption.zones(current: settings.timeZoneID) : []
        let view = WelcomeView(
            frame: frame, banner: banner.map { Self.named($0, labels) }, csrf: csrf(context), step: step.rawValue, title: step.title,
            dots: SetupStep.allCases.map { WelcomeView.Dot(number: $0.rawValue, title: $0.title, current: $0 == step, done: $0 < step) },
            fields: inputs.fields,
            explanation: Self.welcomeExplanation(step, settings.regimen), back: step == .sleepSchedule ? nil : "/welcome?step=\(step.rawValue - 1)",
            isSchedule: step == .sleepSchedule, isMedication: step == .medication, isWindow: step == .doseWindow,
            isNotifications: step == .notifications,
            isPrivacy: step == .privacy, times: times, zones: zones, numbers: numbers,
            medicationChoices: step == .medication ? MedicationChoices(settings, typed: typed) : nil,
            titration: step != .medication
                ? nil
                : refusal.map { TitrationField(typed: typed[SettingKey.titration.rawValue] ?? "", refusal: $0) }
                    ?? TitrationField(settings, typed: typed[SettingKey.titration.rawValue]),
            diagram: step == .doseWindow ? settings.regimen.window.map(Diagram.init) : nil,
            channels: step == .notifications ? try alarmChannelWords(app) : [], testReport: test.map { [$0.message] + $0.lines } ?? [],
            hasTestReport: test != nil,
            privacy: SetupWizard.privacy(storedIn: environment.store.place), disclaimer: SetupWizard.disclaimer, switches: inputs.switches,
            submitLabel: step == .privacy ? "I accept: finish setup" : "Save and continue")
        return try Templates.page("welcome", view, status: status)
    }

    /// What a step asks for: choices and switches, times, and amounts, each showing the settings in force.
    struct StepInputs {
        var fields: [Field] = []
        var times: [TextInput] = []
        var numbers: [TextInput] = []
        /// The switches the step's form shows, so one turned off is saved as off.
        var switches = ""
    }

    /// The inputs of `step`, filled from `settings`.
    static func inputs(of step: SetupStep, _ settings: DoseSettings) -> StepInputs {
        var inputs = StepInputs()
        switch step {
        case .sleepSchedule:
            inputs.times = [
                TextInput(name: "sleep_start", label: "Usual bedtime", value: settings.sleepStart.description, inputMode: "", hint: ""),
                TextInput(name: "wake_time", label: "Usual wake time", value: settings.wakeTime.description, inputMode: "", hint: ""),
                TextInput(
                    name: "prep_time", label: "A new evening begins at", value: settings.prepTime.description, inputMode: "",
                    hint: "An older night still open closes then."),
            ]
        case .medication:
            inputs.numbers = [
                TextInput(
                    name: "dose1_g", label: "Dose 1 (grams)", value: SetupWizard.grams(settings.dose1Milligrams), inputMode: "decimal",
                    hint: "Once nightly, the night's one dose. \(Self.doseRange(settings)), e.g. 2.25"),
                TextInput(
                    name: "dose2_g", label: "Dose 2 (grams)", value: SetupWizard.grams(settings.dose2Milligrams), inputMode: "decimal",
                    hint: "Twice nightly only. \(Self.doseRange(settings))"),
                TextInput(
                    name: "concentration_mg_per_ml", label: "Bottle concentration (mg/mL)", value: String(settings.concentrationMgPerML),
                    inputMode: "numeric",
                    hint: "500 for XYWAV, Xyrem and the generics"),
                TextInput(
                    name: "bottle_ml", label: "One bottle holds (mL)", value: String(settings.bottleML), inputMode: "numeric",
                    hint: "180 mL usually"),
            ]
        case .doseWindow:
            inputs.switches = SettingKey.allowSnoozing.rawValue
            inputs.fields = [
                .choice(
                    SettingKey.targetInterval.rawValue, "Wake alarm: minutes after Dose 1", DoseSettings.targetIntervalOptions.map(String.init),
                    chosen: [String(settings.targetIntervalMinutes)], words: { "\($0) min" }),
                .toggle(SettingKey.allowSnoozing.rawValue, "Allow snoozing (10 minutes each)", on: settings.allowSnoozing),
                .choice(
                    SettingKey.maxSnoozes.rawValue, "Snoozes per night", DoseSettings.maxSnoozesRange.map(String.init),
                    chosen: [String(settings.maxSnoozes)]),
                .choice(
                    SettingKey.undoWindowSeconds.rawValue, "Time to undo a tap", DoseSettings.undoWindowOptions.map(String.init),
                    chosen: [String(settings.undoWindowSeconds)], words: { "\($0) s" }),
            ]
        case .notifications:
            inputs.switches = SettingKey.remindersEnabled.rawValue
            inputs.fields = [
                .toggle(SettingKey.remindersEnabled.rawValue, "Alarms and reminders", on: settings.remindersEnabled),
                .choice(
                    SettingKey.wakeAlarmRefireMinutes.rawValue, "Ring the wake alarm again if nobody answers within",
                    Array(DoseSettings.wakeAlarmRefireRange).filter { [0, 2, 5, 10].contains($0) }.map(String.init),
                    chosen: [String(settings.wakeAlarmRefireMinutes)], words: { $0 == "0" ? "Off" : "\($0) min" }),
            ]
        case .privacy:
            break
        }
        return inputs
    }

    /// A refusal worded with the field's label as the page shows it ("Dose 1 (grams)"), not its stored name.
    static func named(_ message: String, _ labels: [String: String]) -> String {
        var message = message
        for (name, label) in labels { message = message.replacingOccurrences(of: "Invalid \(name):", with: "\(label):") }
        return message
    }

    /// The page sends the regimen it showed chosen with every answer. Left as it was while the product changed to one whose
    /// label allows another, it gives way (choosing Lumryz on the page brings once nightly); a regimen the person chose is
    /// sent on, and checked with the product as the CLI's `--regimen` is.
    static func regimenGivingWay(_ answers: [String: String], settings: DoseSettings) throws -> [String: String] {
        let regimen = SettingKey.regimen.rawValue
        guard answers[regimen]?.lowercased() == settings.regimenKind.rawValue, let product = answers[SettingKey.medicationProduct.rawValue],
            let entry = RegimenCatalogue.entry(product), !entry.allows(settings.regimenKind)
        else { return answers }
        var answers = answers
        answers[regimen] = nil
        return answers
    }

    /// The amounts one dose of the person's product may have, by regimen: "0.25–4.5 g twice nightly, 0.25–6 g once nightly".
    static func doseRange(_ settings: DoseSettings) -> String {
        guard let entry = RegimenCatalogue.entry(settings.medicationProduct) else { return "" }
        return entry.kinds.map { kind in
            let range = entry.doseRange(kind)
            return "\(SetupWizard.grams(range.lowerBound))–\(RegimenWords.grams(range.upperBound)) \(RegimenWords.kind(kind))"
        }.joined(separator: ", ")
    }

    static func welcomeExplanation(_ step: SetupStep, _ regimen: DoseRegimen) -> [String] {
        switch step {
        case .sleepSchedule: return ["Nights are dated by the evening they start. The time zone dates them and shows every time."]
        case .medication:
            return [
                "Lumryz is taken once nightly; XYWAV twice nightly, or once nightly for idiopathic hypersomnia; Xyrem and the generics twice "
                    + "nightly. A change applies from your next Dose 1: past nights keep the regimen they were taken under.",
                "The amounts count your supply down and tell you when to order a refill. They never change when a dose may be taken.",
            ]
        case .doseWindow:
            guard let window = regimen.window else {
                return [
                    "\(RegimenWords.summary(regimen)). There is no Dose 2, so no Dose 2 window or wake alarm; the settings below are "
                        + "kept for a twice-nightly regimen."
                ]
            }
            return [
                "\(RegimenWords.dose2Rule(window)). DoseTap refuses it before the window opens and asks before it is late.",
                "The wake alarm rings at your target inside the window. Snoozes stop 15 minutes before it closes.",
            ]
        case .notifications:
            return ["Alarms ring on open pages and on the channels below. Send a test alarm now to hear how tonight's will reach you."]
        case .privacy: return []
        }
    }

    /// Where tonight's alarms go, in words.
    func alarmChannelWords(_ app: UseCases) throws -> [String] {
        var words = ["This page, while it is open"]
        let phones = try app.alarms.subscriptions(role: .alarm).count
        words.append(
            phones == 0
                ? "No phone takes push alarms yet (Settings → Alarms, once setup is done)" : "Web Push to \(phones) phone\(phones == 1 ? "" : "s")")
        for delivery in channels.configured where delivery.audience == .sleeper {
            switch delivery {
            case let webhook as WebhookDelivery: words.append("\(webhook.channel == .ntfy ? "ntfy" : "Webhook") at \(webhook.target)")
            case is CommandDelivery: words.append("A command on the server (--on-reminder)")
            default: continue
            }
        }
        return words
    }

    func saveWelcomeStep(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let posted = try BodyDecoder.decode(WelcomeStepForm.self, form: fields)
        guard let step = SetupStep(rawValue: posted.step) else {
            throw DoseError.invalidInput(field: "step", problem: "\(posted.step) is not a setup step", allowed: "1–5")
        }
        if posted.testAlarm == true {
            return try welcome(step, context, banner: nil, test: await channels.test().coarse())
        }
        var answers: [String: String] = [:]
        for name in step.answers { if let value = fields[name] { answers[name] = value } }
        for name in (fields["switches"] ?? "").split(separator: ",").map(String.init) where step.answers.contains(name) {
            answers[name] = fields[name] == "true" ? "true" : "false"
        }
        answers = try Self.regimenGivingWay(answers, settings: try environment.useCases().settings.current())
        do {
            try environment.useCases().setup.apply(step, answers: answers, surface: "web")
        } catch let error as DoseError {
            // A titration refusal is shown beside the plan's box instead, with the box to confirm a fast step.
            let titration = step == .medication && error.code == .titrationTooFast
            return try welcome(
                step, context, banner: titration ? nil : error.message, status: .badRequest, typed: answers, refusal: titration ? error : nil)
        }
        guard step == .privacy else { return WebPages.redirect("/welcome?step=\(step.rawValue + 1)") }
        return WebPages.redirect("/?welcome=done")
    }
}
