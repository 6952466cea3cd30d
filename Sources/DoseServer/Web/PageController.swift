import DoseApp
import DoseCore
import DoseStore
import Foundation
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

    /// Where a page's own links lead: the person's pages at the site's root, or, for someone who shares with the browser's
    /// person, their pages under `/people/{id}`.
    func base(_ context: DoseRequestContext) -> String { context.grantee?.pageBase ?? "" }

    /// A page's frame: the person's own tabs, or for a grantee the tabs of the person's pages their share opens, with
    /// whose pages these are in the title.
    func frame(_ title: String, current: String, _ context: DoseRequestContext, flash: String? = nil) throws -> Frame {
        guard let grantee = context.grantee else { return Frame(title, current: current, flash: flash) }
        var frame = Frame.forGrantee(
            "\(grantee.ownerName): \(title)", base: grantee.pageBase, current: current, grants: Set(grantee.grants), switcher: try switcher(context))
        frame.flash = flash
        frame.note = zoneNote(context)
        return frame
    }

    /// For a grantee whose zone is not the person's: whose times a page shows, with both zones named; nil otherwise.
    func zoneNote(_ context: DoseRequestContext) -> String? {
        guard let grantee = context.grantee, let theirs = try? environment.useCases().settings.zone() else { return nil }
        var browser = environment
        browser.store = environment.store.of(person: grantee.person)
        guard let own = try? browser.useCases().settings.zone(), own.identifier != theirs.identifier else { return nil }
        return "Times are \(grantee.ownerName)'s, in \(theirs.identifier) (yours: \(own.identifier))."
    }

    /// Who gave Dose 2 for the person, as the reader knows them: "you" for the grantee who did, else the name the
    /// person's share gives them, else their address; nil when the person took it themself.
    func givenBy(_ actor: String?, _ context: DoseRequestContext) -> String? {
        guard let actor else { return nil }
        if let grantee = context.grantee, actor == grantee.email || actor == grantee.person { return "you" }
        let shares = (try? environment.useCases().sharing.given().shares) ?? []
        return shares.first { $0.grantee.email == actor || $0.grantee.id == actor }.map { $0.grantee.name ?? $0.grantee.shownName } ?? actor
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
