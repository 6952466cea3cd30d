import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Reading what a request sends: dates and periods in its query, and its body within the size limit.
enum APIInput {
    /// A date as a query or a path gives it (YYYY-MM-DD), or the refusal naming `field`.
    static func date(_ text: String, field: String) throws -> SessionKey {
        guard let key = SessionKey(parsing: text) else {
            throw DoseError.invalidInput(field: field, problem: "'\(text)' is not a date", allowed: "YYYY-MM-DD")
        }
        return key
    }

    /// The period a query asks for: `nights`, or `from`/`to`. From a page's form (`form`), an empty field is absent;
    /// through the API it is an error like any other bad date.
    static func period(_ request: Request, form: Bool = false) throws -> (nights: Int?, from: SessionKey?, to: SessionKey?) {
        let parameters = request.uri.queryParameters
        func value(_ name: Substring) -> String? { parameters[name].map(String.init).flatMap { form && $0.isEmpty ? nil : $0 } }
        let nights = try value("nights").map { text in
            guard let number = Int(text) else {
                throw DoseError.invalidInput(field: "nights", problem: "'\(text)' is not a number", allowed: "7, 30 or 90")
            }
            return number
        }
        return (nights, try value("from").map { try APIInput.date($0, field: "from") }, try value("to").map { try APIInput.date($0, field: "to") })
    }
}

/// Reading a request's body within the size limit.
extension JSONBody {
    static func collect(_ request: Request, limit: Int = ServerLimits.body) async throws -> Data {
        let buffer = try await request.body.collect(upTo: limit)
        return Data(buffer.readableBytesView)
    }

    /// The body of a JSON route: a body of any other media type, or declared in a charset other than UTF-8, is refused
    /// before it is read as JSON, so a form or text a client did not mean as JSON is never acted on. An empty body needs
    /// no type.
    static func collectJSON(_ request: Request) async throws -> Data {
        let data = try await collect(request)
        guard !data.isEmpty else { return data }
        let sent = request.headers[.contentType] ?? ""
        let parts = sent.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let mediaType = parts.first?.lowercased() ?? ""
        // JSON is UTF-8 (RFC 8259 §8.1): a body declared in another charset would be read as what it does not say.
        let charsets = parts.dropFirst().compactMap { parameter -> String? in
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { return nil }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
        }
        guard mediaType == "application/json", charsets.allSatisfy({ $0 == "utf-8" }) else {
            throw DoseError.unsupportedMediaType(sent: sent.isEmpty ? "no Content-Type" : sent, accepted: "application/json (UTF-8)")
        }
        return data
    }

    /// The body of a JSON route as its type, through the one strict decoder.
    static func read<Body: Decodable>(_ type: Body.Type, _ request: Request) async throws -> Body {
        try BodyDecoder.decode(Body.self, from: try await collectJSON(request))
    }
}
