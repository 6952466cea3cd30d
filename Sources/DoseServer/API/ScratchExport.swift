import DoseApp
import Foundation
import Hummingbird
import NIOCore

/// An export made into a file of its own owner-only scratch folder and sent from there a piece at a time, so a long
/// history is never held whole in memory. The folder goes once the answer is written, or when it is dropped unwritten.
final class ScratchExport: Sendable {
    let folder: URL

    /// How many bytes of the file each write sends.
    static let piece = 64 * 1024

    init(_ app: UseCases, prefix: String) throws {
        folder = app.scratchPath(prefix)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The path of the file `name` in the folder.
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The answer: the file `name`, sent as `type` for download under that name.
    func response(_ name: String, type: String) throws -> Response {
        let path = path(name)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        let body = ResponseBody(contentLength: size) { [self] writer in
            let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? file.close() }
            while let data = try file.read(upToCount: Self.piece), !data.isEmpty { try await writer.write(ByteBuffer(bytes: data)) }
            try await writer.finish(nil)
            // The folder stays until the last piece is sent.
            withExtendedLifetime(self) {}
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
