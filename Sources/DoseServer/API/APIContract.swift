import Foundation

/// The published contract of these routes: OpenAPI 3.1, written beside the handlers and checked against them by tests
/// (every route of the router is described, and every enumeration matches the rules') and by schemathesis in CI.
enum APIContract {
    /// The document served at `/openapi.json`.
    static let document = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}
