import DoseApp
import DoseCore
import DoseStore
import Hummingbird

/// A controller of pages: one concern's routes (`routes`, mounted at the site's root), reaching the use cases through
/// its environment, never a store. Every page shares the CSRF token and the checked form read below.
protocol PageController {
    var environment: AppEnvironment { get }
}

extension PageController {
    /// The CSRF token for this page: bound to the browser's device, rotated every 12 hours.
    func csrf(_ context: DoseRequestContext) -> String {
        guard let device = context.device, let tokens = try? environment.csrfTokens(of: context) else { return "" }
        return tokens.token(device: device.id, at: environment.now())
    }

    /// The person switcher for whoever is at the browser (the person, or a grantee on a page for someone who shares with
    /// them); empty on a SQLite file, or when no one shares `view` with them. On a page that is no one's Tonight (People),
    /// `onTonight` false marks none of its tabs.
    func switcher(_ context: DoseRequestContext, onTonight: Bool = true) throws -> [Frame.Tab] {
        guard environment.store.shared != nil else { return [] }
        var browser = environment
        if let grantee = context.grantee { browser.store = environment.store.of(person: grantee.person) }
        let place: Frame.Place = !onTonight ? .elsewhere : context.grantee.map { .person($0.owner) } ?? .you
        return Frame.switcher(try browser.useCases().sharing.received(), at: place)
    }

    /// Reads a urlencoded form within the body limit and checks its CSRF token.
    func form(_ request: Request, _ context: DoseRequestContext) async throws -> [String: String] {
        let data = try await JSONBody.collect(request)
        let fields = try FormBody.fields(data)
        guard let device = context.device, let sent = fields["csrf"],
            try environment.csrfTokens(of: context).accepts(sent, device: device.id, at: environment.now())
        else {
            throw DoseError.forbidden(why: "the form's token is missing, wrong or from a page loaded more than a day ago")
        }
        return fields
    }

    /// Reads a page's form into its type (`PageForms.swift`), after the same checks.
    func form<Form: Decodable>(_ request: Request, _ context: DoseRequestContext, as type: Form.Type) async throws -> Form {
        try BodyDecoder.decode(Form.self, form: try await form(request, context))
    }
}
