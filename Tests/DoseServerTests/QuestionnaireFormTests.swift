import DoseApp
import DoseCore
import Testing

@testable import DoseServer

/// The check-in and pre-sleep pages' forms as types: what a page posts becomes the API's object, decoded by the API's
/// own check-in and pre-sleep decoding, with unanswered deep dives left out and a value that does not read refused by
/// its field's name.
@Suite("the questionnaires' forms are types, read into the API's objects")
struct QuestionnaireFormTests {
    static func checkIn(_ fields: [String: String]) throws -> MorningCheckIn {
        let posted = try BodyDecoder.decode(CheckInPageForm.self, form: fields)
        return try AnswerDecoding.decode(MorningCheckIn.self, from: posted.answers, allowed: AnswerDecoding.checkInAllowed)
    }

    /// The deep dives' fields as the page preselects them, untouched.
    static let preselected = [
        "pain_severity": "0", "headache": "none", "headache_location": "temples", "muscle_stiffness": "none", "muscle_soreness": "none",
        "congestion": "none", "throat": "normal", "cough": "none", "sinus_pressure": "none", "sickness_level": "no",
    ]

    @Test(
        "a deep dive is recorded when its switch is on or an answer differs from what the page preselects, and left out otherwise",
        arguments: [
            ([:], false, false),
            (["has_physical_symptoms": "true"], true, false),
            (["pain_severity": "3"], true, false),
            (["pain_locations": "neck,lower_back"], true, false),
            (["headache": "migraine"], true, false),
            (["muscle_soreness": "mild"], true, false),
            (["has_respiratory_symptoms": "true"], false, true),
            (["feeling_feverish": "true"], false, true),
            (["sickness_level": "coming_down"], false, true),
            (["throat": "sore", "pain_type": "aching"], true, true),
        ] as [([String: String], Bool, Bool)])
    func deepDives(changed: [String: String], physical: Bool, respiratory: Bool) throws {
        var fields = Self.preselected.merging(["csrf": "t", "sleep_quality": "4"]) { $1 }
        fields.merge(changed) { $1 }
        let answers = try Self.checkIn(fields)
        #expect(answers.sleepQuality == 4)
        #expect(answers.hasPhysicalSymptoms == physical && (answers.physical != nil) == physical, "\(changed)")
        #expect(answers.hasRespiratorySymptoms == respiratory && (answers.respiratory != nil) == respiratory, "\(changed)")
    }

    @Test("a headache chosen with the pain switch off keeps its severity and place; a migraine is marked as one")
    func headache() throws {
        let answers = try Self.checkIn(Self.preselected.merging(["headache": "migraine", "headache_location": "temples"]) { $1 })
        let headache = try #require(answers.physical?.headache)
        #expect(headache.severity == .migraine && headache.isMigraine && headache.location == .temples)
    }

    @Test("the room: the same as usual, answered, or not at all (then no environment is recorded, not an empty one)")
    func room() throws {
        #expect(try Self.checkIn(["same_as_usual": "true", "room_darkness": "dim"]).environment?.sameAsUsual == true)
        let answered = try Self.checkIn(["room_darkness": "dim", "sleep_aids_used": "earplugs,eye_mask"]).environment
        #expect(answered?.roomDarkness == .dim && answered?.sleepAids.count == 2)
        #expect(try Self.checkIn(["sleep_quality": "2", "notes": ""]).environment == nil)
        #expect(try Self.checkIn(["sleep_quality": "2", "notes": ""]).notes == nil, "an empty box is no note")
    }

    @Test(
        "a value that does not read is refused by its field's name, and one outside its choices by the API's words",
        arguments: [
            (["sleep_quality": "three"], "sleep_quality"),
            (["pain_severity": "a lot"], "pain_severity"),
            (["had_hallucinations": "maybe"], "had_hallucinations"),
            (["mood": "ecstatic"], "mood"),
        ])
    func refusals(fields: [String: String], field: String) throws {
        let error = try #require(throws: DoseError.self) { try Self.checkIn(fields) }
        #expect(error.code == .invalidInput && error.message { _ in nil }.contains(field), "\(error)")
    }

    @Test("the pre-sleep form: whole numbers, ticked lists, yes or no, and only what was answered")
    func preSleep() throws {
        let fields = [
            "csrf": "t", "stress_level": "4", "stress_drivers": "work,family", "caffeine_cups": "2", "heavy_meal_last_3_hours": "false",
            "screen_time_30_min_prior": "true", "noise_level": "quiet", "notes": "",
        ]
        let posted = try BodyDecoder.decode(PreSleepPageForm.self, form: fields)
        let log = try AnswerDecoding.decode(PreSleepLog.self, from: posted.answers, allowed: AnswerDecoding.preSleepAllowed)
        #expect(log.stressLevel == 4 && log.stressDrivers == [.work, .family] && log.caffeineCups == 2)
        #expect(log.heavyMealLast3Hours == false && log.screenTime30MinutesPrior == true && log.noiseLevel == .quiet)
        #expect(log.alcoholDrinks == nil && log.sleepAids.isEmpty && log.notes == nil, "unanswered stays unanswered")
        #expect(throws: DoseError.self) { try BodyDecoder.decode(PreSleepPageForm.self, form: ["alcohol_drinks": "some"]) }
    }
}
