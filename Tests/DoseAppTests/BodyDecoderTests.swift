import DoseApp
import DoseCore
import Foundation
import Testing

/// The one decoder of request bodies: each route's body type, read from strict JSON with no coercion and refused by
/// the field's own name.
@Suite("Request bodies: one strict decoder into typed bodies")
struct BodyDecoderTests {
    static func refusal(_ kind: RequestBodies.Kind, _ body: String) -> (field: String, problem: String, allowed: String?)? {
        do {
            try RequestBodies.decode(kind, Data(body.utf8))
            return nil
        } catch {
            guard case .invalidInput(let field, let problem, let allowed) = error else { return ("?", "\(error)", nil) }
            return (field, problem, allowed)
        }
    }

    /// A body, and the field and words its refusal must carry.
    static let refused: [(kind: RequestBodies.Kind, body: String, field: String, problem: String)] = [
        (.take, #"{"type":"dose1","timestmap":"2026-11-22T02:10:00Z"}"#, "timestmap", "does not take the key 'timestmap'"),
        (.medications, #"{"entries":[{"medication_id":"modafinil","amount":100,"dose":200}]}"#, "entries[0].dose", "does not take the key"),
        (.pushSubscription, #"{"endpoint":"https://push.example/x","keys":{"p256dh":"a","auth":"b","x":1}}"#, "keys.x", "does not take"),
        (.undo, #"{"everything":true}"#, "everything", "does not take the key"),
        (.log, #"{"type":"water","type":"bathroom"}"#, "type", "appears twice"),
        (.take, "[1]", "body", "not a JSON object"),
        (.take, #"{"type":"dose1",}"#, "body", "not strict JSON"),
        (.refill, #"{"bottles":"2"}"#, "bottles", "the text '2' is not a number"),
        (.refill, #"{"bottles":2.5}"#, "bottles", "2.5 is not a whole number"),
        (.refill, #"{"bottles":true}"#, "bottles", "true is not a number"),
        (.adjustment, #"{"change_ml":"-5","reason":"spilled"}"#, "change_ml", "is not a number"),
        (.planner, #"{"target_interval":180,"confirm":1}"#, "confirm", "'1' is not true or false"),
        (.planner, #"{"confirm":true}"#, "target_interval", "missing"),
        (.take, #"{"type":"dose1","timestamp":"yesterday"}"#, "timestamp", "'yesterday' is not a time"),
        (.take, #"{"type":"dose1","timestamp":1764000000}"#, "timestamp", "is not a time"),
        (.take, #"{"type":"dose1","confirm":"early"}"#, "confirm", "is not a list"),
        (.take, #"{"type":"dose1","confirm":["later"]}"#, "confirm", "'later' is not a confirmation"),
        (.take, "{}", "type", "missing"),
        (.take, #"{"type":null}"#, "type", "missing"),
        (.take, #"{"type":"dose3"}"#, "type", "'dose3' is not a dose"),
        (.skip, #"{"sequence":1}"#, "sequence", "only Dose 2"),
        (.snooze, #"{"minutes":15}"#, "minutes", "always 10 minutes"),
        (.log, #"{"type":"Bathroom"}"#, "type", "not a wire name"),
        (.wake, #"{"confirm":["early"]}"#, "confirm", "'early' is not a confirmation"),
        (.medications, #"{"entries":[{"medication_id":"modafinil"}]}"#, "entries[0].amount", "missing"),
        (.medications, #"{"entries":[{"medication_id":"modafinil","amount":"100"}]}"#, "entries[0].amount", "is not a number"),
        (.medications, #"{"entries":[]}"#, "entries", "0 entries"),
        (.medications, #"{"entries":{"medication_id":"modafinil"}}"#, "entries", "an object is not a list"),
        (.medications, #"{"entries":[{"medication_id":"modafinil","amount":100,"unit":"tsp"}]}"#, "entries[0].unit", "'tsp' is not a unit"),
        (.clearAll, "{}", "confirm", "missing"),
        (.alarmAck, #"{"via":7}"#, "via", "'7' is not text"),
        (.editEvent, #"{"note":5}"#, "note", "is not text"),
        (.settings, #"{"target_interval":"180"}"#, "target_interval", "is not a number"),
        (.settings, #"{"allow_snoozing":"false"}"#, "allow_snoozing", "is not true or false"),
        (.settings, #"{"target_interval":null}"#, "target_interval", "null is not a value"),
        (.settings, "{}", "body", "no setting given"),
        (.checkIn, #"{"sleep_quality":"5"}"#, "sleep_quality", "is not a number"),
        (.checkIn, #"{"grogginess":"very"}"#, "grogginess", "has a value that is not allowed"),
        (.preSleep, #"{"stress_level":true}"#, "stress_level", "is not a number"),
    ]

    @Test("a wrong body is refused by the field's own name, with what is allowed", arguments: refused)
    func refusals(kind: RequestBodies.Kind, body: String, field: String, problem: String) throws {
        let refusal = try #require(Self.refusal(kind, body), "\(kind) took \(body)")
        #expect(refusal.field == field, "\(refusal)")
        #expect(refusal.problem.contains(problem), "\(refusal)")
        #expect(!(refusal.allowed ?? "").isEmpty || field == "body", "\(refusal) says what is allowed")
    }

    @Test("every route's body refuses a key it does not take, naming it", arguments: RequestBodies.Kind.allCases)
    func unknownKeys(kind: RequestBodies.Kind) throws {
        let refusal = try #require(Self.refusal(kind, #"{"zz_unknown": 1}"#))
        #expect(refusal.field == "zz_unknown" || refusal.problem.contains("zz_unknown"), "\(kind): \(refusal)")
    }

    @Test("values are taken as sent: null is absent, 2.0 is the whole number 2, a negative amount stays negative, no body is {}")
    func accepted() throws {
        let take = try BodyDecoder.decode(TakeBody.self, from: Data(#"{"type":"dose1","timestamp":null,"note":null,"id":"a-1"}"#.utf8))
        #expect(take.type == "dose1" && take.timestamp == nil && take.note == nil && take.id == "a-1")
        let at = try BodyDecoder.decode(TakeBody.self, from: Data(#"{"type":"dose2","timestamp":"2026-11-22T02:10:00Z"}"#.utf8))
        #expect(at.timestamp == ISO8601.parse("2026-11-22T02:10:00Z"))
        #expect(try BodyDecoder.decode(RefillBody.self, from: Data(#"{"bottles":2.0}"#.utf8)).bottles == 2)
        #expect(try BodyDecoder.decode(AdjustmentBody.self, from: Data(#"{"change_ml":-5,"reason":"spilled"}"#.utf8)).changeML == -5)
        guard case .undo = try BodyDecoder.decode(UndoBody.self, from: Data()).action().kind else {
            Issue.record("no body is an undo")
            return
        }
        let removeNote = try BodyDecoder.decode(EventEditBody.self, from: Data(#"{"note":null}"#.utf8))
        #expect(removeNote.note == .some(nil), "a note key, even null, changes the note")
        #expect(try BodyDecoder.decode(EventEditBody.self, from: Data("{}".utf8)).note == nil, "no note key leaves it alone")
        let medications = try BodyDecoder.decode(
            MedicationsBody.self, from: Data(#"{"entries":[{"medication_id":"modafinil","amount":100,"unit":"mg"}],"confirm":["duplicate"]}"#.utf8))
        #expect(try medications.inputs().map(\.amount) == [100] && medications.confirmations() == [.duplicate])
        let settings = try BodyDecoder.decode(SettingsBody.self, from: Data(#"{"quick_log":["water","bathroom"],"target_interval":180}"#.utf8))
        #expect(settings.changes.map(\.key) == ["quick_log", "target_interval"] && settings.changes.map(\.value) == ["water,bathroom", "180"])
        let checkIn = try BodyDecoder.decode(CheckInBody.self, from: Data(#"{"sleep_quality":4,"timestamp":"2026-11-22T14:00:00Z","id":"c-1"}"#.utf8))
        #expect(checkIn.answers.sleepQuality == 4 && checkIn.id == "c-1")
    }

    /// A page's form, as a type with every kind of field.
    struct SampleForm: Decodable, Equatable {
        var minutes: Int?
        var ml: Double?
        var ticked: Bool?
        var dates: [String]?
        var name: String?
    }

    @Test("a page's form is read as its type: text as numbers and switches, repeated fields as a list, an empty field as absent")
    func forms() throws {
        let read = try BodyDecoder.decode(
            SampleForm.self, form: ["minutes": "180", "ml": "12.5", "ticked": "yes", "dates": "2026-11-20,2026-11-21", "name": "", "csrf": "t"])
        #expect(read == SampleForm(minutes: 180, ml: 12.5, ticked: true, dates: ["2026-11-20", "2026-11-21"], name: nil))
        #expect(try BodyDecoder.decode(SampleForm.self, form: [:]) == SampleForm())
        let refusals: [([String: String], String, String)] = [
            (["minutes": "180.5"], "minutes", "not a whole number"), (["ml": "1e3"], "ml", "not a number"),
            (["ml": "nan"], "ml", "not a number"), (["ticked": "maybe"], "ticked", "not yes or no"),
        ]
        for (fields, field, problem) in refusals {
            do {
                _ = try BodyDecoder.decode(SampleForm.self, form: fields)
                Issue.record("\(fields) was taken")
            } catch {
                guard case .invalidInput(let named, let said, _) = error else { throw error }
                #expect(named == field && said.contains(problem), "\(fields): \(said)")
            }
        }
    }
}
