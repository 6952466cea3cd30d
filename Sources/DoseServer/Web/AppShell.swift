import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The installable app's shell: the stylesheet, the scripts, the manifest, the icons and the service worker, all
/// compiled into the binary and open (a browser fetches a manifest and a worker without the pairing cookie; none holds
/// any data).
enum AppShell {
    struct Asset {
        let path: String
        let type: String
        let bytes: [UInt8]
    }

    static let assets: [Asset] = [
        Asset(path: "/assets/app.css", type: "text/css; charset=utf-8", bytes: PackageResources.app_css),
        Asset(path: "/assets/app.js", type: "text/javascript; charset=utf-8", bytes: PackageResources.app_js),
        Asset(path: "/assets/tap.js", type: "text/javascript; charset=utf-8", bytes: PackageResources.tap_js),
        Asset(path: "/assets/period.js", type: "text/javascript; charset=utf-8", bytes: PackageResources.period_js),
        Asset(path: "/assets/queue.js", type: "text/javascript; charset=utf-8", bytes: PackageResources.queue_js),
        Asset(path: "/assets/icon.svg", type: "image/svg+xml", bytes: PackageResources.icon_svg),
        Asset(path: "/assets/icon-192.png", type: "image/png", bytes: PackageResources.icon_192_png),
        Asset(path: "/assets/icon-512.png", type: "image/png", bytes: PackageResources.icon_512_png),
        Asset(path: "/manifest.webmanifest", type: "application/manifest+json", bytes: PackageResources.manifest_webmanifest),
    ]

    /// A digest of everything the worker caches (and the worker itself): a new build with a changed shell gets a new
    /// cache name, so phones drop the old shell instead of mixing versions.
    static let version: String = {
        var hash = SHA256()
        for part in [PackageResources.sw_js] + assets.map(\.bytes) { hash.update(data: part) }
        return hash.finalize().prefix(6).map { String(format: "%02x", $0) }.joined()
    }()

    /// The service worker with its cache version written in.
    static let worker = String(decoding: PackageResources.sw_js, as: UTF8.self).replacingOccurrences(of: "__SHELL_VERSION__", with: version)

    /// The shell's routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        for asset in assets {
            routes.get(RouterPath(asset.path)) { _, _ in response(asset.bytes, type: asset.type) }
        }
        // Every answer carries `Cache-Control: no-store` (SecurityHeadersMiddleware), so a phone asks for the worker again
        // at each visit and learns of a new version at once.
        routes.get("/sw.js") { _, _ in response(Array(worker.utf8), type: "text/javascript; charset=utf-8") }
        return routes
    }

    static func response(_ bytes: [UInt8], type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
