import Foundation

/// Minimal HTML building: escaped text and the page frame. Templates live in the binary, as code.
enum HTML {
    /// Escapes text for element content and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static let pages: [(path: String, label: String)] = [
        ("/", "Tonight"), ("/details", "Details"), ("/history", "History"), ("/insights", "Insights"), ("/settings", "Settings"),
    ]

    /// The page frame: no inline script or style (the CSP forbids them), the night palette, the navigation.
    static func page(title: String, current: String, body: String) -> String {
        let nav = pages.map { page in
            "<a href=\"\(page.path)\"\(page.path == current ? " aria-current=\"page\"" : "")>\(page.label)</a>"
        }.joined()
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
            <meta name="color-scheme" content="dark">
            <title>\(escape(title)) · DoseTap</title>
            <link rel="stylesheet" href="/assets/app.css">
            <script src="/assets/app.js" defer></script>
            </head>
            <body>
            <nav class="tabs" aria-label="Pages">\(nav)</nav>
            <main id="main">\(body)</main>
            <div id="announcer" class="sr-only" role="status" aria-live="assertive"></div>
            </body>
            </html>
            """
    }

    /// A POST form with the CSRF token.
    static func form(action: String, csrf: String, fields: [(String, String)] = [], button: String, className: String = "button",
                     label: String? = nil, extra: String = "") -> String {
        let hidden = ([("csrf", csrf)] + fields).map { "<input type=\"hidden\" name=\"\(escape($0.0))\" value=\"\(escape($0.1))\">" }.joined()
        return "<form method=\"post\" action=\"\(escape(action))\" class=\"inline\"\(extra)>\(hidden)<button type=\"submit\" class=\"\(className)\"\(label.map { " aria-label=\"\(escape($0))\"" } ?? "")>\(button)</button></form>"
    }
}
