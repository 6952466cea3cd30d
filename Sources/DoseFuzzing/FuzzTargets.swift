public import DoseApp
import DoseCore
public import DoseStore
public import Foundation
import ZIPFoundation

/// The parsers that take outside input, each as a function of bytes. A thrown error is the right answer to bad input;
/// the only finding is a trap (a crash), which stops the process. libFuzzer drives these through `dosetap-fuzz`, and
/// `swift test` replays the committed corpus and every past crash through the same functions.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Every JSON request body decoder of the API (`RequestBodies`), on the same bytes.
    case requestBody = "request_body"
    /// The web pages' urlencoded forms.
    case form
    /// `--at`, `--now`, `--tz`, dates, `dosetap://` links and ISO-8601 text.
    case clockInput = "clock_input"
    /// Medication entries as the CLI and the web form take them, the amount checks, and titration plans (typed amounts too).
    case medicationEntry = "medication_entry"
    /// An events.csv imported beside an open night.
    case eventsCSV = "events_csv"
    /// A whole file given to `import` as a bundle (zip).
    case bundle
    /// One entry of an otherwise valid bundle: the first byte picks the entry, the rest is its content.
    case bundleEntry = "bundle_entry"
    /// A database file given to `import` as the original app's.
    case originalDatabase = "original_db"
    /// A file given to `import` as the Health app's `export.xml`.
    case healthXML = "health_xml"
    /// WHOOP's CSV text read as `sleeps.csv` and as `physiological_cycles.csv`, then imported as a file.
    case whoopCSV = "whoop_csv"
    /// A push subscription body (`POST` and `DELETE /v1/push/subscriptions`) and the outbound-target rule on its text.
    case pushSubscription = "push_subscription"
    /// A reminder link's token (`/a/TOKEN`); and a link made from the bytes must read back as itself.
    case actionLink = "action_link"
    /// What an operator or a person types about people: an e-mail address (kept as it reads back), a name, a sign-in
    /// link's token and base, and the sign-in form.
    case personInput = "person_input"

    /// Runs one input through the target.
    public func run(_ data: Data) {
        switch self {
        case .requestBody:
            for kind in RequestBodies.Kind.allCases { _ = try? RequestBodies.decode(kind, data) }
        case .form:
            _ = try? FormBody.fields(data)
        case .clockInput:
            Self.clockInput(String(decoding: data, as: UTF8.self))
        case .medicationEntry:
            Self.medicationEntry(String(decoding: data, as: UTF8.self))
        case .eventsCSV:
            Self.importing(data, named: "events.csv")
        case .bundle:
            Self.importing(data, named: "bundle.zip")
        case .bundleEntry:
            guard let first = data.first, let bundle = try? Self.bundleReplacing(entry: Int(first), with: data.dropFirst()) else { return }
            Self.importing(bundle, named: "bundle.zip")
        case .originalDatabase:
            Self.importing(data, named: "original.sqlite")
        case .healthXML:
            Self.importing(data, named: "export.xml")
        case .whoopCSV:
            let text = String(decoding: data, as: UTF8.self)
            _ = try? WhoopExport.read([.sleeps: text])
            _ = try? WhoopExport.read([.cycles: text])
            Self.importing(data, named: "sleeps.csv")
        case .pushSubscription:
            if let body = try? BodyDecoder.decode(PushSubscriptionBody.self, from: data) {
                _ = try? body.subscription()
                _ = try? body.subscription(targets: OutboundTargets(allowLoopback: true))
                _ = try? body.endpointToRemove()
            }
            _ = OutboundTargets().refusal(of: String(decoding: data, as: UTF8.self))
        case .actionLink:
            Self.actionLink(data)
        case .personInput:
            Self.personInput(data)
        }
    }

    static func personInput(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        if let address = try? EmailAddress(text) {
            // An address kept is one that reads back as itself: lower case, at most 254 characters, one @.
            precondition((try? EmailAddress(address.text))?.text == address.text, "a kept address did not read back as itself")
            precondition(address.text == address.text.lowercased() && address.text.unicodeScalars.count <= 254, "a kept address is not canonical")
        }
        _ = try? PeopleService.checkedName(text)
        _ = SignInLinks.isWellFormed(text)
        _ = try? SignInLinks.checkedBase(text)
        _ = SharingService.isWellFormed(text)
        // Grants, comma-separated: a kept set names only grants, once each, sorted, with `view` wherever `log` is.
        if let grants = try? Grant.parse(text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)) {
            precondition(grants == Array(Set(grants)).sorted() && (!grants.contains(.log) || grants.contains(.view)), "grants not canonical")
        }
        // A claimed night of a reminder link's token (it only chooses whose key checks the token).
        _ = ActionLinkSigner.claimedNight(of: text)
        if let fields = try? FormBody.fields(data) {
            _ = try? BodyDecoder.decode(SignInFields.self, form: fields)
            _ = try? BodyDecoder.decode(InvitationFields.self, form: fields)
        }
    }

    /// The sign-in page's form as the server reads it.
    struct SignInFields: Decodable {
        var token: String
    }

    /// The invitation page's form as the server reads it.
    struct InvitationFields: Decodable {
        var token: String
        var answer: String
    }

    /// The signer of every run: a fixed key, so a seed token is valid.
    public static let linkSigner = ActionLinkSigner(secretHex: String(repeating: "5a", count: 32))

    static func actionLink(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        _ = try? linkSigner.link(from: text, now: FuzzFixture.now)
        // Any session and device text, and a hex nonce of the bytes, must survive signing and reading back unchanged.
        let nonce = data.prefix(16).map { String(format: "%02x", $0) }.joined()
        let expires = Date(timeIntervalSince1970: (FuzzFixture.now.timeIntervalSince1970 + 3_600).rounded(.down))
        for device in [nil, text] where !nonce.isEmpty && device?.isEmpty != true {
            let link = ActionLink(action: .take, sessionID: text, expiresAt: expires, nonce: nonce, deviceID: device)
            let token = linkSigner.token(for: link)
            guard token.utf8.count <= 400 else { continue }
            precondition((try? linkSigner.link(from: token, now: FuzzFixture.now)) == link, "a signed link did not read back as itself")
        }
    }

    static func clockInput(_ text: String) {
        let zone = TimeZone(identifier: "America/New_York") ?? TimeZone(secondsFromGMT: 0)!
        _ = try? ClockInput.instant(text, field: "now")
        _ = try? ClockInput.occurrence(text, now: FuzzFixture.now, timeZone: zone)
        _ = try? ClockInput.timeZone(text)
        _ = try? DoseLink.action(from: text)
        _ = SessionKey(parsing: text)
        _ = ClockTime(parsing: text)
        if let date = ISO8601.parse(text) { _ = ISO8601.string(date) }
    }

    static func medicationEntry(_ text: String) {
        // A titration plan is amounts typed the same way: read it, and ask it everything the settings ask.
        if let settings = try? DoseSettings(timeZoneID: "UTC").setting(SettingKey.titration.rawValue, to: text) {
            _ = settings.regimenConflict
            _ = settings.fastTitrationSteps
            _ = try? settings.setting(SettingKey.titration.rawValue, to: settings.titrationPlan.text)
        }
        guard let input = try? MedicationEntryText.parse(text, at: nil, note: nil),
            let medication = try? MedicationCatalogue.medication(id: input.medicationID)
        else { return }
        _ = try? MedicationCatalogue.validatedMilligrams(input.amount, unit: input.unit, for: medication)
    }

    /// Imports the bytes as a file into a fresh database that has tonight's night open.
    static func importing(_ data: Data, named name: String) {
        guard let database = try? FuzzFixture.databaseWithOpenNight() else { return }
        let path = FuzzFixture.directory.appendingPathComponent(name).path
        guard FileManager.default.createFile(atPath: path, contents: data) else { return }
        let clock = FuzzFixture.clock()
        _ = try? database.transfer.importFile(
            at: path, clock: clock, settling: NightLedger.settling(clock: clock), scratchFolder: FuzzFixture.directory)
    }

    /// A valid bundle with one entry's content replaced.
    static func bundleReplacing(entry index: Int, with content: Data) throws -> Data {
        var files = FuzzFixture.validBundle
        guard !files.isEmpty else { return Data() }
        files[index % files.count].data = Data(content)
        return try FuzzFixture.zip(files)
    }
}

/// The fixed world the targets run in: one clock, one scratch folder, one valid bundle.
public enum FuzzFixture {
    /// The clock of every run: 00:00 in New York, an hour and a half after tonight's Dose 1.
    public static let now = Date(timeIntervalSince1970: 1_795_323_600)

    static func clock() -> StoreClock {
        StoreClock(now: now, machineTimeZoneID: "America/New_York", makeID: { UUID().uuidString.lowercased() }, random: .system)
    }

    /// A per-process scratch folder.
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// An in-memory database with a night open since Dose 1 at 22:30, so imports meet an open night; each call gets
    /// its own copy of one prepared database.
    public static func databaseWithOpenNight() throws -> AppDatabase {
        guard let template = openNightTemplate else { throw CocoaError(.featureUnsupported) }
        return try template.inMemoryCopy()
    }

    static let openNightTemplate: AppDatabase? = {
        guard let database = try? AppDatabase.inMemory() else { return nil }
        var atDose1 = FuzzFixture.clock()
        atDose1.now = now.addingTimeInterval(-90 * 60)
        _ = try? database.ledger.perform(NightAction(.dose1), clock: atDose1)
        return database
    }()

    /// The entries of a valid bundle of a few nights, in archive order.
    public static let validBundle: [(name: String, data: Data)] = (try? makeValidBundle()) ?? []

    static func makeValidBundle() throws -> [(name: String, data: Data)] {
        let database = try AppDatabase.inMemory()
        let ledger = database.ledger
        for night in (0..<3).reversed() {
            var clock = clock()
            let dose1 = now.addingTimeInterval(Double(-(night + 1) * 86_400) - 90 * 60)
            for (offset, action) in [
                (0.0, NightAction(.dose1)), (9_000, NightAction(.dose2)), (10_000, NightAction(.log(event: "bathroom"), note: "=quote \"me\"")),
            ] {
                clock.now = dose1.addingTimeInterval(offset)
                _ = try ledger.perform(action, clock: clock)
            }
        }
        let path = directory.appendingPathComponent("valid.zip").path
        _ = try UseCases(store: .sqlite(database), clock: clock()).transfer.exportBundle(to: path)
        guard let archive = try? Archive(url: URL(fileURLWithPath: path), accessMode: .read, pathEncoding: nil) else { return [] }
        var entries: [(name: String, data: Data)] = []
        for entry in archive {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            entries.append((entry.path, data))
        }
        return entries
    }

    /// Zips entries in order, in memory.
    public static func zip(_ files: [(name: String, data: Data)]) throws -> Data {
        let url = directory.appendingPathComponent("rebuilt.zip")
        try? FileManager.default.removeItem(at: url)
        do {
            let archive = try Archive(url: url, accessMode: .create)
            for (name, data) in files {
                try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
        }
        return try Data(contentsOf: url)
    }
}
