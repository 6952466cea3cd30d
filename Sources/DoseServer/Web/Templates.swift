import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// Pages rendered from the Mustache templates compiled into the binary (Sources/DoseServer/Resources/Templates).
///
/// `{{name}}` escapes `& < > " '`; the templates never use the unescaped forms `{{{…}}}` or `{{&…}}` (a test reads
/// every template to keep it so), so nothing a person typed can become markup. View models hold plain text.
enum Templates {
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        // `sources` is generated at build time from Resources/Templates (Plugins/TemplateCatalogue): a new template file is
        // a new page template, with nothing to list.
        for (name, text) in sources {
            do {
                try library.register(text, named: name)
            } catch {
                // The templates are part of the program; every one is rendered by the tests.
                preconditionFailure("The template \(name) does not parse: \(error)")
            }
        }
        return library
    }()

    /// An HTML response from a template and its view model.
    /// A template that is not in the library is DoseTap's bug: it is answered as one (a 500 with a request id in the
    /// log), never as an empty page a half-asleep person could take for a working one.
    static func page(_ template: String, _ model: Any, status: HTTPResponse.Status = .ok) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        guard let text = library.render(model, withTemplate: template) else { throw MissingTemplate(name: template) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A page asked for a template the library does not hold.
    struct MissingTemplate: Error {
        let name: String
    }
}

/// What every page's frame shows: the title, the tabs, and a one-line confirmation after a save.
struct Frame {
    struct Tab {
        let path: String
        let label: String
        let current: Bool
    }

    let title: String
    let nav: [Tab]
    /// Whether the page has the tab bar (a grantee's page for another person has none).
    let hasTabs: Bool
    var flash: String?
    /// A line under the tabs that every page of its kind says (a grantee's: whose zone the times are in).
    var note: String?
    /// Whose pages these are, on a page of the person or of someone who shares with them: "You · Alice · Bob".
    var switcher: Switcher?

    struct Switcher {
        let tabs: [Tab]
    }

    static let tabs: [(path: String, label: String)] = [
        ("/", "Tonight"), ("/details", "Details"), ("/history", "History"), ("/insights", "Insights"), ("/settings", "Settings"),
    ]

    init(_ title: String, current: String, flash: String? = nil) {
        self.title = title
        self.nav = Self.tabs.map { Tab(path: $0.path, label: $0.label, current: $0.path == current) }
        hasTabs = true
        self.flash = flash
    }

    init(title: String, nav: [Tab], switcher: [Tab]) {
        self.title = title
        self.nav = nav
        hasTabs = !nav.isEmpty
        self.switcher = Self.switcher(showing: switcher)
    }

    /// The switcher of `tabs`; none when it has none.
    static func switcher(showing tabs: [Tab]) -> Switcher? { tabs.isEmpty ? nil : Switcher(tabs: tabs) }

    /// Which Tonight a page is, for the switcher to mark.
    enum Place {
        case you, person(String), elsewhere
    }

    /// The frame of a grantee's page for another person: the tabs of their pages the grantee's share opens (their
    /// Settings stay theirs alone), under `base`, with the one at `current` marked; the switcher leads back to the
    /// grantee's own Tonight and on to their People.
    static func forGrantee(_ title: String, base: String, current: String, grants: Set<Grant>, switcher: [Tab]) -> Frame {
        let shown = granteeTabs.filter { !$0.needs.isDisjoint(with: grants) }
        let nav = shown.map { Tab(path: base + $0.path, label: $0.label, current: $0.path == current) }
        return Frame(title: title, nav: nav, switcher: switcher + [Tab(path: "/people", label: "People", current: false)])
    }

    /// The tabs a grantee may see of another person's pages, and the grants that open each.
    static let granteeTabs: [(path: String, label: String, needs: Set<Grant>)] = [
        ("/", "Tonight", [.view, .log]), ("/details", "Details", [.view, .log]), ("/history", "History", [.view, .log]),
        ("/insights", "Insights", [.view, .log, .report]),
    ]

    /// The person switcher: the person's own Tonight and that of each person who shares `view` with them, the one at
    /// `place` marked; empty when no one does.
    static func switcher(_ shares: [ShareRecord], at place: Place) -> [Tab] {
        let viewable = shares.filter { $0.grants.contains(.view) }
        guard !viewable.isEmpty else { return [] }
        func isHere(_ owner: String) -> Bool { if case .person(owner) = place { true } else { false } }
        let you: Bool = if case .you = place { true } else { false }
        return [Tab(path: "/", label: "You", current: you)]
            + viewable.map { Tab(path: "/people/\($0.owner.id)/", label: $0.owner.name ?? $0.owner.shownName, current: isHere($0.owner.id)) }
    }
}

/// A page that only says one thing (not paired, cleared, a refusal outside Tonight).
struct NoticePage {
    struct Link {
        let href: String
        let label: String
    }

    let frame: Frame
    let heading: String
    let message: String
    let link: Link?
}
