public import DoseCore
public import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A vital sign a wearable measured.
public enum VitalKind: String, Sendable, Codable, CaseIterable {
    case heartRate = "heart_rate"
    case heartRateVariability = "hrv_sdnn"
    case respiratoryRate = "respiratory_rate"
    case oxygenSaturation = "oxygen_saturation"
}

/// One vital-sign sample: what, when, the value (beats or breaths a minute, ms, or a fraction for SpO₂), and its source.
public struct VitalSample: Hashable, Sendable {
    public var kind: VitalKind
    public var start: Date
    public var end: Date
    public var value: Double
    public var source: String
}

/// Reads the iPhone Health app's `export.xml` as a stream (Foundation's `XMLParser`, libxml2 underneath), keeping only
/// sleep analysis and the four vitals. The file is never loaded whole, and entities are refused outright: a Health
/// export declares none, so any entity declaration (the billion-laughs and XXE attacks start with one) stops the read.
public enum AppleHealthReader {
    /// What a read found.
    public struct Result: Sendable {
        public var sleep: [SleepSample] = []
        public var vitals: [VitalSample] = []
        /// Records of other types, skipped.
        public var skipped = 0
    }

    /// One record read, handed on as soon as it is read so a file of gigabytes is never held in memory.
    public enum Record: Sendable {
        case sleep(SleepSample)
        case vital(VitalSample)
    }

    /// Health's sleep-analysis values and the stages they mean.
    static let stages: [String: SleepStage] = [
        "HKCategoryValueSleepAnalysisInBed": .inBed, "HKCategoryValueSleepAnalysisAsleep": .asleep,
        "HKCategoryValueSleepAnalysisAsleepUnspecified": .asleep, "HKCategoryValueSleepAnalysisAsleepCore": .core,
        "HKCategoryValueSleepAnalysisAsleepDeep": .deep, "HKCategoryValueSleepAnalysisAsleepREM": .rem,
        "HKCategoryValueSleepAnalysisAwake": .awake,
    ]

    /// Health's quantity types read, and the plausible range of each value (anything outside is refused as malformed).
    static let vitals: [String: (VitalKind, ClosedRange<Double>)] = [
        "HKQuantityTypeIdentifierHeartRate": (.heartRate, 20...250),
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": (.heartRateVariability, 0...500),
        "HKQuantityTypeIdentifierRespiratoryRate": (.respiratoryRate, 2...80),
        "HKQuantityTypeIdentifierOxygenSaturation": (.oxygenSaturation, 0.5...1),
    ]

    /// The longest attribute value taken; Health's are short (a source name, a date).
    static let longestAttribute = 1000

    /// How much of the file's start is searched for a DTD that points outside it.
    static let prologLimit = 64 * 1024

    /// Reads a whole `export.xml` into memory: for tests and small files; an import uses the sink.
    public static func read(path: String) throws(DoseError) -> Result {
        var result = Result()
        result.skipped = try read(path: path) { record in
            switch record {
            case .sleep(let sample): result.sleep.append(sample)
            case .vital(let sample): result.vitals.append(sample)
            }
        }
        return result
    }

    /// Reads an `export.xml` file, handing each record to `sink` in file order; returns how many other records were
    /// skipped. A problem stops the read and is thrown; the records handed on before it are the caller's to discard
    /// (an import reads inside one transaction and rolls it back).
    ///
    /// Its prolog (the text before `<HealthData`) may hold the internal DTD Health writes, but nothing that points
    /// outside the file (`SYSTEM`, `PUBLIC`) and no entity: those are refused before parsing. The DTD itself is blanked
    /// out (its bytes become spaces, its newlines stay, so line numbers hold) before the parser sees it: nothing in it
    /// is needed, and Foundation's parser on Linux crashes on the `#REQUIRED` attribute declarations every Health
    /// export has. After it, `HealthExportStream` hands the parser only markup it cannot crash on.
    public static func read(path: String, sink: (Record) throws -> Void) throws(DoseError) -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .invalidFile(problem: "\(path) cannot be read") }
        let head = (try? handle.read(upToCount: prologLimit)) ?? Data()
        try? handle.close()
        let prolog = try prolog(of: [UInt8](head), complete: head.count < prologLimit)
        guard let stream = HealthExportStream(path: path, prolog: prolog) else { throw .invalidFile(problem: "\(path) cannot be read") }
        return try read(stream, sink: sink)
    }

    /// Where an export's prolog has its XML declaration (the one `<?` the parser is given) and its DOCTYPE (blanked
    /// before parsing).
    struct Prolog: Equatable {
        var declaration: Int?
        var doctype: Range<Int>?
    }

    /// Reads the prolog as XML does: the XML declaration, white space, comments and at most one DOCTYPE (its quotes,
    /// brackets and comments followed), then `<HealthData`. Anything else before the root (another processing
    /// instruction, a declaration outside the DOCTYPE) is refused, so no declaration can reach the parser hidden behind
    /// text that merely looks like the root.
    static func prolog(of bytes: [UInt8], complete: Bool) throws(DoseError) -> Prolog {
        func starts(_ text: String, at index: Int) -> Bool { bytes[index...].starts(with: text.utf8) }
        func end(of terminator: String, from index: Int) -> Int? { bytes[index...].firstRange(of: Array(terminator.utf8))?.upperBound }
        func refuse(_ what: String) -> DoseError { .invalidFile(problem: "export.xml: \(what); a Health export's start does not, so it is refused") }
        let cut = "no <HealthData> element in its first \(prologLimit / 1024) KB; a Health export starts with it"
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var declaration: Int?
        if starts("<?xml", at: index), index + 5 < bytes.count, XMLDeclaration.isSpace(bytes[index + 5]) {
            declaration = index
            index = try XMLDeclaration.end(in: bytes, from: index)
        }
        var blank: Range<Int>?
        while true {
            while index < bytes.count, XMLDeclaration.isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count else {
                throw complete
                    ? .invalidFile(problem: "export.xml has no <HealthData> element: it is not an Apple Health export")
                    : .invalidFile(problem: "export.xml: \(cut)")
            }
            if starts("<!--", at: index) {
                guard let close = end(of: "-->", from: index + 4) else { throw .invalidFile(problem: "export.xml: \(cut)") }
                index = close
            } else if starts("<!DOCTYPE", at: index) {
                guard blank == nil else { throw refuse("it has two DOCTYPEs") }
                let close = try doctypeEnd(bytes, from: index, cut: cut)
                let text = String(decoding: bytes[index..<close], as: UTF8.self)
                for word in ["<!ENTITY", "SYSTEM", "PUBLIC"] where text.contains(word) {
                    throw .invalidFile(
                        problem:
                            "export.xml: its DOCTYPE holds \(word); a Health export's does not, so it is refused (no entity is expanded, no "
                            + "file is read)"
                    )
                }
                blank = index..<close
                index = close
            } else if starts("<HealthData", at: index) {
                return Prolog(declaration: declaration, doctype: blank)
            } else if starts("<", at: index), index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "?"), bytes[index + 1] != UInt8(ascii: "!") {
                // Another root: the parser says so with its line, as before.
                return Prolog(declaration: declaration, doctype: blank)
            } else if bytes[index] != UInt8(ascii: "<") {
                let line = bytes[..<index].count { $0 == 0x0A } + 1
                throw .invalidFile(
                    problem: "export.xml line \(line): text before the <HealthData> element; a Health export is XML that starts with it")
            } else {
                throw refuse("before <HealthData> it has markup other than the XML declaration, comments and one DOCTYPE")
            }
        }
    }

    /// Where a DOCTYPE that starts at `start` ends: its closing `>` outside quotes, comments and its `[…]` subset.
    private static func doctypeEnd(_ bytes: [UInt8], from start: Int, cut: String) throws(DoseError) -> Int {
        var index = start + 9
        var depth = 0
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if bytes[index...].starts(with: "<!--".utf8) {
                guard let close = bytes[(index + 4)...].firstRange(of: Array("-->".utf8))?.upperBound else { break }
                index = close
                continue
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "]") {
                depth = max(0, depth - 1)
            } else if byte == UInt8(ascii: ">"), depth == 0 {
                return index + 1
            }
            index += 1
        }
        throw .invalidFile(problem: "export.xml: its DOCTYPE does not end before <HealthData> (\(cut))")
    }

    /// Reads a stream to its end, or throws the first problem with its line and reason; nothing is returned then.
    static func read(_ stream: HealthExportStream, sink: (Record) throws -> Void) throws(DoseError) -> Int {
        try withoutActuallyEscaping(sink) { sink throws(DoseError) in try read(stream, escapingSink: sink) }
    }

    private static func read(_ stream: HealthExportStream, escapingSink sink: @escaping (Record) throws -> Void) throws(DoseError) -> Int {
        let reader = HealthDelegate(sink: sink)
        let parser = XMLParser(stream: stream)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = reader
        reader.parser = parser
        let finished = parser.parse()
        if let refusal = stream.refusal { throw .invalidFile(problem: "export.xml line \(stream.refusalLine): \(refusal.reason)") }
        if let failure = reader.failure { throw failure }
        // A document cut short can parse "successfully" with the error left beside it.
        guard finished, parser.parserError == nil else {
            let line = parser.lineNumber
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "the XML is malformed"
            throw .invalidFile(problem: "export.xml line \(line): \(reason)")
        }
        guard reader.sawRoot else { throw .invalidFile(problem: "export.xml has no <HealthData> element: it is not an Apple Health export") }
        return reader.skipped
    }

    /// `2026-02-07 22:20:00 -0500`: the instant and its offset in minutes; nil for anything else.
    static func instant(_ text: String) -> (date: Date, offset: Int)? {
        let bytes = Array(text.utf8)
        guard bytes.count == 25, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x20, bytes[13] == 0x3A, bytes[16] == 0x3A, bytes[19] == 0x20,
            bytes[20] == 0x2B || bytes[20] == 0x2D
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), let offsetHours = number(21..<23), let offsetMinutes = number(23..<25),
            (1970...2999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
            second < 60, offsetHours <= 18, offsetMinutes < 60
        else { return nil }
        let offset = (bytes[20] == 0x2D ? -1 : 1) * (offsetHours * 60 + offsetMinutes)
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset * 60
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        return (date, offset)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// The parser's delegate: keeps the records wanted and stops at the first problem.
final class HealthDelegate: NSObject, XMLParserDelegate {
    typealias Result = AppleHealthReader.Result
    var skipped = 0
    let sink: (AppleHealthReader.Record) throws -> Void

    init(sink: @escaping (AppleHealthReader.Record) throws -> Void) { self.sink = sink }

    private func hand(_ record: AppleHealthReader.Record) {
        do { try sink(record) } catch let error as DoseError {
            failure = failure ?? error
            parser?.abortParsing()
        } catch {
            fail("the record could not be kept: \(type(of: error))")
        }
    }
    var failure: DoseError?
    var sawRoot = false
    weak var parser: XMLParser?

    private func fail(_ reason: String) {
        guard failure == nil else { return }
        failure = .invalidFile(problem: "export.xml line \(parser?.lineNumber ?? 0): \(reason)")
        parser?.abortParsing()
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        fail("it declares the entity '\(name.prefix(40))'; a Health export declares none, so it is refused")
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        fail("it declares the external entity '\(name.prefix(40))'; a Health export declares none, so it is refused")
    }

    func parser(_ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String, publicID: String?, systemID: String?, notationName: String?)
    {
        fail("it declares the entity '\(name.prefix(40))'; a Health export declares none, so it is refused")
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        if elementName == "HealthData" { sawRoot = true }
        guard elementName == "Record" else { return }
        guard sawRoot else { return fail("a <Record> outside <HealthData>") }
        if let long = attributes.first(where: { $0.value.utf8.count > AppleHealthReader.longestAttribute }) {
            return fail("the attribute \(long.key.prefix(40)) is \(long.value.utf8.count) bytes long (at most \(AppleHealthReader.longestAttribute))")
        }
        let type = attributes["type"] ?? ""
        let stage = type == "HKCategoryTypeIdentifierSleepAnalysis" ? AppleHealthReader.stages[attributes["value"] ?? ""] : nil
        let vital = AppleHealthReader.vitals[type]
        if type == "HKCategoryTypeIdentifierSleepAnalysis", stage == nil {
            return fail("the sleep value '\((attributes["value"] ?? "").prefix(60))' is not one Health writes")
        }
        guard stage != nil || vital != nil else {
            skipped += 1
            return
        }
        guard let source = attributes["sourceName"], !source.isEmpty else { return fail("a \(type) record has no sourceName") }
        guard let start = attributes["startDate"].flatMap(AppleHealthReader.instant),
            let end = attributes["endDate"].flatMap(AppleHealthReader.instant)
        else {
            return fail("a \(type) record's startDate or endDate is not a Health date (yyyy-MM-dd HH:mm:ss ±hhmm)")
        }
        guard end.date >= start.date else { return fail("a \(type) record ends before it starts") }
        guard end.date.timeIntervalSince(start.date) <= 24 * 3600 else { return fail("a \(type) record lasts more than a day") }
        if let stage {
            hand(
                .sleep(
                    SleepSample(
                        source: source, stage: stage, start: start.date, end: end.date, startOffsetMinutes: start.offset, endOffsetMinutes: end.offset
                    ))
            )
        } else if let (kind, range) = vital {
            // Decimal digits only: Swift's Double(_:) would also take "0x36", "nan" and "infinity".
            guard let text = attributes["value"], !text.isEmpty, text.allSatisfy({ "0123456789.-+eE".contains($0) }), let value = Double(text),
                value.isFinite, range.contains(value)
            else {
                return fail(
                    "a \(type) value '\((attributes["value"] ?? "").prefix(40))' is not a plausible number (\(range.lowerBound)–\(range.upperBound))")
            }
            hand(.vital(VitalSample(kind: kind, start: start.date, end: end.date, value: value, source: source)))
        }
    }

}
