import DoseCore
import Foundation

/// The export file as the parser is given it: the DOCTYPE turned into spaces (newlines kept), then only strict UTF-8
/// without NUL, without `<?` other than the XML declaration and without `<!` other than a comment's `<!--`.
///
/// Foundation's parser on Linux runs libxml2 in recovery mode, so after a syntax error it reads on and hands its
/// callbacks whatever it resynchronises on; three of those callbacks crash on input that fuzzing found (a name that is
/// not UTF-8, `<?x?>` without data, an `<!ATTLIST` with `#REQUIRED`). Whatever libxml2 makes of a malformed file, it can
/// reach none of them when those bytes never arrive: the parser gets the bytes before the first one, then an error, and
/// `refusal` says why. A Health export has none of them after its DOCTYPE.
final class HealthExportStream: InputStream {
    /// Why the stream stopped short of the file's end.
    enum Refusal: Equatable {
        case notUTF8
        case nul
        case processingInstruction
        case declaration

        /// The reason, for the person whose file it is.
        var reason: String {
            switch self {
            case .notUTF8: "the text is not UTF-8; a Health export is UTF-8 throughout"
            case .nul: "a NUL byte; XML text has none"
            case .processingInstruction: "a processing instruction (<?…?>) after the XML declaration; a Health export has none, so it is refused"
            case .declaration: "a declaration (<!…>) outside the DOCTYPE; a Health export has none, so it is refused"
            }
        }
    }

    private let path: String
    private let handle: FileHandle
    private let prolog: AppleHealthReader.Prolog
    private var offset = 0
    private var failed: (any Error)?
    private var utf8 = UTF8Check()
    private var markup: MarkupGuard
    /// Why the parser was handed only part of the file; nil while it has had every byte so far.
    private(set) var refusal: Refusal?
    /// Where in the file the refused byte is.
    private var refusedAt = 0

    init?(path: String, prolog: AppleHealthReader.Prolog) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.path = path
        self.handle = handle
        self.prolog = prolog
        self.markup = MarkupGuard(declaration: prolog.declaration)
        super.init(data: Data())
    }

    override func open() {}

    override func close() { try? handle.close() }

    override var hasBytesAvailable: Bool { failed == nil }

    override var streamError: (any Error)? { failed }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard refusal == nil else { return -1 }
        let chunk: Data
        do {
            chunk = try handle.read(upToCount: length) ?? Data()
        } catch {
            failed = error
            return -1
        }
        chunk.copyBytes(to: buffer, count: chunk.count)
        if let blank = prolog.doctype, offset < blank.upperBound, offset + chunk.count > blank.lowerBound {
            for index in max(blank.lowerBound, offset)..<min(blank.upperBound, offset + chunk.count) where buffer[index - offset] != 0x0A {
                buffer[index - offset] = 0x20
            }
        }
        let bytes = UnsafeBufferPointer(start: buffer, count: chunk.count)
        let start = offset
        var findings: [(index: Int, refusal: Refusal)] = []
        if let bad = utf8.firstInvalid(in: bytes) ?? (chunk.isEmpty && utf8.isInsideCharacter ? 0 : nil) { findings.append((bad, .notUTF8)) }
        if !chunk.isEmpty, let nul = memchr(buffer, 0, chunk.count) {
            findings.append((buffer.distance(to: nul.assumingMemoryBound(to: UInt8.self)), .nul))
        }
        if let found = markup.firstForbidden(in: bytes, at: offset) { findings.append(found) }
        offset += chunk.count
        guard let first = findings.min(by: { $0.index < $1.index }) else { return chunk.count }
        refusal = first.refusal
        refusedAt = start + first.index
        failed = DoseError.invalidFile(problem: "export.xml was refused before its end")
        return first.index > 0 ? first.index : -1
    }

    /// The line of the refused byte, counted in the file itself: the parser's own line lags behind what it was handed.
    /// Read again only when a file is refused; the DOCTYPE's blanking keeps its newlines, so the lines are the same.
    var refusalLine: Int {
        guard let reader = FileHandle(forReadingAtPath: path) else { return 0 }
        defer { try? reader.close() }
        var line = 1
        var remaining = refusedAt
        while remaining > 0, let chunk = try? reader.read(upToCount: min(remaining, 1 << 20)), !chunk.isEmpty {
            line += chunk.count { $0 == 0x0A }
            remaining -= chunk.count
        }
        return line
    }
}

/// Finds markup the parser must never be given, chunk by chunk: `<?` anywhere but at the XML declaration, and `<!` not
/// followed by `--`. A `<` near a chunk's end is judged with the next chunk's first bytes.
struct MarkupGuard {
    enum Verdict { case fine, undecided, forbidden(HealthExportStream.Refusal) }

    /// Where the XML declaration starts, if the file has one.
    let declaration: Int?
    /// The bytes from a `<` at the end of the chunk before, not yet judged.
    private var pending: [UInt8] = []
    private var pendingOffset = 0

    init(declaration: Int?) { self.declaration = declaration }

    /// The first forbidden markup in `bytes`, which start at `offset` in the file (index 0 when it began in the chunk
    /// before, whose bytes are already handed on).
    mutating func firstForbidden(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (index: Int, refusal: HealthExportStream.Refusal)? {
        if !pending.isEmpty {
            pending += bytes.prefix(4 - pending.count)
            switch judge(pending, at: pendingOffset) {
            case .forbidden(let refusal):
                pending = []
                return (0, refusal)
            case .undecided where !bytes.isEmpty: return nil
            case .fine, .undecided: pending = []
            }
        }
        // From the chunk's start: the bytes the pending `<` was judged with may hold the next one.
        var index = 0
        guard let base = bytes.baseAddress else { return nil }
        while index < bytes.count, let found = memchr(base + index, Int32(UInt8(ascii: "<")), bytes.count - index) {
            let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let look = Array(bytes[at..<min(bytes.count, at + 4)])
            switch judge(look, at: offset + at) {
            case .fine: index = at + 1
            case .forbidden(let refusal): return (at, refusal)
            case .undecided:
                pending = look
                pendingOffset = offset + at
                return nil
            }
        }
        return nil
    }

    /// Judges the up to four bytes from a `<`.
    private func judge(_ look: [UInt8], at position: Int) -> Verdict {
        guard look.count >= 2 else { return .undecided }
        switch look[1] {
        case UInt8(ascii: "?"): return position == declaration ? .fine : .forbidden(.processingInstruction)
        case UInt8(ascii: "!"):
            let dashes = look.dropFirst(2)
            guard dashes.allSatisfy({ $0 == UInt8(ascii: "-") }) else { return .forbidden(.declaration) }
            return dashes.count == 2 ? .fine : .undecided
        default: return .fine
        }
    }
}

/// Reads an XML declaration strictly, so that where it ends is the same for DoseTap and for the parser: `version`,
/// `encoding` and `standalone` in that order (the version required), values of letters, digits, `.`, `_` and `-`, the encoding UTF-8, then
/// `?>`. A declaration naming another encoding would make the parser read bytes the stream never checked.
enum XMLDeclaration {
    /// The index just past the declaration's `?>`; `start` is where its `<?xml` is.
    static func end(in bytes: [UInt8], from start: Int) throws(DoseError) -> Int {
        let refusal = DoseError.invalidFile(
            problem: "export.xml line 1: its XML declaration is not <?xml version=\"1.0\" encoding=\"UTF-8\"?> or like it (UTF-8 only); "
                + "a Health export's is, so it is refused")
        var index = start + 5
        var expected = ["version", "encoding", "standalone"]
        while true {
            let spaced = index < bytes.count && isSpace(bytes[index])
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            if bytes[index...].starts(with: "?>".utf8) { return index + 2 }
            guard spaced, let name = expected.first(where: { bytes[index...].starts(with: $0.utf8) }), name == "version" || expected.count < 3
            else { throw refusal }
            expected.removeSubrange(...expected.firstIndex(of: name)!)
            index += name.utf8.count
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw refusal }
            index += 1
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { throw refusal }
            let quote = bytes[index]
            let valueStart = index + 1
            index = valueStart
            while index < bytes.count, isValueByte(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == quote, index > valueStart, index - valueStart <= 40 else { throw refusal }
            let value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
            if name == "encoding", value.lowercased() != "utf-8" { throw refusal }
            index += 1
        }
    }

    /// XML's white space: space, tab, line feed, carriage return.
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private static func isValueByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }
}

/// Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), checked as chunks go by.
struct UTF8Check {
    /// Continuation bytes still owed by the character being read, and the range the next one must fall in.
    private var owed = 0
    private var low: UInt8 = 0x80
    private var high: UInt8 = 0xBF

    /// Whether the bytes so far end inside a character.
    var isInsideCharacter: Bool { owed > 0 }

    /// The index of the first byte that breaks UTF-8 in `bytes`, continuing from the chunks before; nil when all fit.
    mutating func firstInvalid(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            if owed == 0 {
                // Eight ASCII bytes at a time: an export is almost all ASCII.
                while index + 8 <= count,
                    UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < count else { break }
                let byte = bytes[index]
                switch byte {
                case 0x00...0x7F: break
                case 0xC2...0xDF: (owed, low, high) = (1, 0x80, 0xBF)
                case 0xE0: (owed, low, high) = (2, 0xA0, 0xBF)
                case 0xE1...0xEC, 0xEE...0xEF: (owed, low, high) = (2, 0x80, 0xBF)
                case 0xED: (owed, low, high) = (2, 0x80, 0x9F)
                case 0xF0: (owed, low, high) = (3, 0x90, 0xBF)
                case 0xF1...0xF3: (owed, low, high) = (3, 0x80, 0xBF)
                case 0xF4: (owed, low, high) = (3, 0x80, 0x8F)
                default: return index
                }
            } else {
                let byte = bytes[index]
                guard byte >= low, byte <= high else { return index }
                owed -= 1
                (low, high) = (0x80, 0xBF)
            }
            index += 1
        }
        return nil
    }
}
