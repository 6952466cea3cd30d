import DoseCore
import Foundation
import Testing

@Suite("Morning check-in: the full model (SPEC §3.5)")
struct CheckInModelTests {
    static func decode(_ json: String) throws -> MorningCheckIn {
        try JSONDecoder().decode(MorningCheckIn.self, from: Data(json.utf8))
    }

    @Test("the all-defaults check-in scores 58; an empty JSON object is the defaults")
    func defaults() throws {
        #expect(MorningCheckIn().wellnessScore == 58)
        #expect(try Self.decode("{}") == MorningCheckIn())
    }

    @Test(
        "each of the five narcolepsy flags lowers the score by 5, and only once together",
        arguments: [
            \MorningCheckIn.hadSleepParalysis, \.hadHallucinations, \.hadAutomaticBehavior, \.fellOutOfBed, \.hadConfusionOnWaking,
        ])
    func narcolepsyFlags(flag: WritableKeyPath<MorningCheckIn, Bool> & Sendable) {
        var checkIn = MorningCheckIn()
        checkIn[keyPath: flag] = true
        #expect(checkIn.hasNarcolepsySymptoms)
        #expect(checkIn.wellnessScore == 53)
        checkIn.hadSleepParalysis = true
        checkIn.fellOutOfBed = true
        #expect(checkIn.wellnessScore == 53)
    }

    @Test("deep-dive details imply their flag when read from JSON")
    func detailsImplyFlags() throws {
        let checkIn = try Self.decode(
            #"{"physical_symptoms": {"pain_locations": ["lower_back"], "pain_severity": 4}, "respiratory_symptoms": {"cough": "dry"}}"#)
        #expect(checkIn.hasPhysicalSymptoms)
        #expect(checkIn.hasRespiratorySymptoms)
        #expect(checkIn.wellnessScore == 43)
        #expect(try checkIn.validated().physical?.painLocations == [.lowerBack])
    }

    @Test(
        "unknown fields and unknown values are refused by name",
        arguments: [
            (#"{"sleep_qualty": 3}"#, "sleep_qualty"), (#"{"mood": "ecstatic"}"#, ""), (#"{"sleep_environment": {"room_darkness": "pitch"}}"#, ""),
        ])
    func refusals(json: String, field: String) {
        do {
            _ = try Self.decode(json)
            Issue.record("accepted \(json)")
        } catch let error as DoseError {
            guard case .invalidInput(let named, _, _) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(named == field)
        } catch {
            #expect(field.isEmpty, "a value error is a DecodingError, reported by the caller")
        }
    }

    @Test(
        "environment follow-ups must agree with the aids chosen",
        arguments: [
            (#"{"sleep_aids_used": ["none", "fan"]}"#, "sleep_aids_used"),
            (#"{"sleep_aids_used": ["fan"], "screen_in_bed_minutes_bucket": "0_15"}"#, "screen_in_bed_minutes_bucket"),
            (#"{"sleep_aids_used": ["fan"], "sound_type": "rain"}"#, "sound_type"),
            (#"{"sleep_aids_used": ["fan"], "other_aid_text": "socks"}"#, "other_aid_text"),
            (#"{"sleep_aids_used": ["other"], "other_aid_text": "a very long description of the socks I wore last night"}"#, "other_aid_text"),
        ])
    func environment(json: String, field: String) throws {
        var checkIn = MorningCheckIn()
        checkIn.environment = try JSONDecoder().decode(SleepEnvironment.self, from: Data(json.utf8))
        do {
            _ = try checkIn.validated()
            Issue.record("accepted \(json)")
        } catch {
            guard case .invalidInput(let named, _, _) = error else { return }
            #expect(named == field)
        }
    }

    @Test("a screen or white noise without its follow-up answer records it as unknown")
    func followUpsDefault() throws {
        var checkIn = MorningCheckIn()
        var environment = SleepEnvironment()
        environment.sleepAids = [.phoneInBed, .whiteNoise, .phoneInBed]
        checkIn.environment = environment
        let valid = try checkIn.validated()
        #expect(valid.environment?.sleepAids == [.phoneInBed, .whiteNoise])
        #expect(valid.environment?.screenBucket == .unknown)
        #expect(valid.environment?.soundType == .unknown)
    }

    @Test("pain severity is 0–10", arguments: [(-1, false), (0, true), (10, true), (11, false)])
    func painSeverity(value: Int, valid: Bool) {
        var checkIn = MorningCheckIn()
        checkIn.hasPhysicalSymptoms = true
        var physical = PhysicalSymptoms()
        physical.painSeverity = value
        checkIn.physical = physical
        #expect(((try? checkIn.validated()) != nil) == valid)
    }

    @Test("encoding and decoding round-trips every field")
    func roundTrip() throws {
        var checkIn = MorningCheckIn()
        checkIn.sleepInertia = .thirtyToSixty
        checkIn.dreamRecall = .vivid
        checkIn.anxietyLevel = .high
        checkIn.hasPhysicalSymptoms = true
        var physical = PhysicalSymptoms()
        physical.headache = Headache()
        physical.painType = .throbbing
        checkIn.physical = physical
        checkIn.sleepTherapy = [.cpap]
        var environment = SleepEnvironment()
        environment.sleepAids = [.other]
        environment.otherAidText = "socks"
        checkIn.environment = environment
        checkIn.notes = "ok"
        let data = try JSONEncoder().encode(checkIn)
        #expect(try JSONDecoder().decode(MorningCheckIn.self, from: data) == checkIn)
    }
}
