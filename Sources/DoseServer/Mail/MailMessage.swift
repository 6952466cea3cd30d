public import DoseCore
public import Foundation

/// One message as it is submitted: plain text with an HTML part (SPEC §5.7), no tracking, no attachment.
public struct MailMessage: Sendable, Equatable {
    public var to: EmailAddress
    public var subject: String
    public var text: String
    public var html: String
    /// The `Message-ID`, the same on every attempt to send this mail, so a receiver that sees it twice can tell.
    public var id: String

    public init(to: EmailAddress, subject: String, text: String, html: String, id: String) {
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.id = id
    }

    /// The message in Internet Message Format (RFC 5322, MIME multipart/alternative), with CRLF line ends, as sent after
    /// DATA (before dot-stuffing).
    public func rendered(from: EmailAddress, at date: Date) -> String {
        let boundary = "dosetap-" + id.filter { $0.isLetter || $0.isNumber }.prefix(40)
        var lines = [
            "From: DoseTap <\(from.text)>",
            "To: <\(to.text)>",
            "Subject: \(Self.headerText(subject))",
            "Date: \(Self.dateText(date))",
            "Message-ID: <\(id)>",
            "MIME-Version: 1.0",
            "Auto-Submitted: auto-generated",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
            "--\(boundary)",
        ]
        lines += Self.part(text, type: "text/plain")
        lines.append("--\(boundary)")
        lines += Self.part(html, type: "text/html")
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A part's headers and its body in base64, 76 characters a line: any text survives any relay unchanged.
    static func part(_ body: String, type: String) -> [String] {
        let encoded = Data(body.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        return ["Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", ""] + encoded.components(separatedBy: "\r\n")
    }

    /// A header's text: as it is when it is plain ASCII without line breaks, else an RFC 2047 encoded word.
    static func headerText(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if flat.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 32 }) { return flat }
        return "=?utf-8?B?\(Data(flat.utf8).base64EncodedString())?="
    }

    /// RFC 5322's date, in UTC: "Sun, 29 Nov 2026 22:54:25 +0000".
    static func dateText(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return "\(days[(parts.weekday ?? 1) - 1]), \(two(parts.day)) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }
}
