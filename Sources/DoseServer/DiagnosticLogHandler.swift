public import DoseApp
import DoseCore
public import Foundation
public import Logging
import NIOConcurrencyHelpers

/// A swift-log handler that appends to the diagnostic log beside the database, keeping only what `DiagnosticLog`
/// allows, and rotates the file at `DiagnosticLog.maximumBytes` (the one before is kept as `….1`).
public struct DiagnosticLogHandler: LogHandler {
    /// The file, shared by every logger of the process; each line is appended under one lock, rotating first if due.
    final class Sink: Sendable {
        let path: String
        let maximumBytes: Int
        private let lock = NIOLock()

        init(path: String, maximumBytes: Int) {
            self.path = path
            self.maximumBytes = maximumBytes
        }

        func append(_ line: String) {
            lock.withLock {
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                if size + line.utf8.count > maximumBytes {
                    _ = try? FileManager.default.removeItem(atPath: path + ".1")
                    _ = try? FileManager.default.moveItem(atPath: path, toPath: path + ".1")
                }
                if !FileManager.default.fileExists(atPath: path) {
                    _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
                }
                guard let handle = FileHandle(forWritingAtPath: path) else { return }
                defer { try? handle.close() }
                _ = try? handle.seekToEnd()
                try? handle.write(contentsOf: Data(line.utf8))
            }
        }
    }

    let label: String
    let sink: Sink
    let now: @Sendable () -> Date
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info

    /// A handler for `label` writing to the diagnostic log in `folder`, dating lines by `now`.
    public static func factory(folder: URL, maximumBytes: Int = DiagnosticLog.maximumBytes, now: @escaping @Sendable () -> Date)
        -> @Sendable (String) -> DiagnosticLogHandler
    {
        let sink = Sink(path: DiagnosticLogFile.path(in: folder), maximumBytes: maximumBytes)
        return { label in DiagnosticLogHandler(label: label, sink: sink, now: now) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) { fields[key] = "\(value)" }
        let line = DiagnosticLog.line(
            at: ISO8601.string(now()), level: event.level.rawValue, label: label, message: event.message.description, metadata: fields)
        sink.append(line + "\n")
    }
}
