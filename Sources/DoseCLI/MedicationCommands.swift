import ArgumentParser
import DoseApp
import DoseCore
import DoseStore
import Foundation

struct Med: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "med", abstract: "Other medications: the catalogue, logging, editing.",
        subcommands: [List.self, Log.self, Entries.self, Edit.self, Delete.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The medication catalogue: ids, strengths, formulations.")
        @OptionGroup var options: GlobalOptions
        func run() throws {
            try Output.run(json: options.json) {
                let items = MedicationCatalogue.all
                if options.json {
                    Output.line(
                        JSONValue.array(
                            items.map { medication in
                                [
                                    "id": .string(medication.id), "name": .string(medication.name), "category": .string(medication.category.rawValue),
                                    "formulation": .string(medication.formulation.rawValue),
                                    "default_dose_mg": .string(String(format: "%g", medication.defaultDoseMg)),
                                    "valid_doses_mg": .array(medication.validDosesMg.map { .string(String(format: "%g", $0)) }),
                                ]
                            }
                        ).rendered())
                    return
                }
                for medication in items {
                    let doses = medication.validDosesMg.map { String(format: "%g", $0) }.joined(separator: ", ")
                    Output.line(
                        "\(medication.id.padding(toLength: 12, withPad: " ", startingAt: 0)) \(medication.name) — "
                            + "\(medication.category.label), \(medication.formulation.label); \(doses) mg"
                    )
                }
            }
        }
    }

    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log", abstract: "Log one or several medications at once (all or none): ID[:AMOUNT[mg|g|mL]] …")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Entries, e.g. adderall_ir:10mg modafinil:200.") var entries: [String]
        @Option(help: "When taken, if earlier: local HH:mm or ISO-8601.") var at: String?
        @Option(help: "A note for every entry.") var note: String?
        @Option(help: "Confirm a second dose of the same medication within 5 minutes: duplicate.") var confirm: [String] = []

        func run() throws {
            try Output.run(options) { context in
                let zone = try context.app.settings.zone()
                let takenAt = try context.occurrence(at, in: zone)
                let inputs = try entries.map { text throws(DoseError) in try MedicationEntryText.parse(text, at: takenAt, note: note) }
                let confirmations = try Confirmations.parse(confirm, allowed: [.duplicate], command: "med log")
                let records = try context.app.medications.log(inputs, confirmations: confirmations)
                Output.list(records, json: options.json, response: MedicationResponse.init) { record in
                    "\(record.medication.name) \(String(format: "%g", record.doseMg)) mg recorded at \(HumanText.clock(record.takenAt, zone)) "
                        + "(night of \(record.sessionDate))."
                }
            }
        }
    }

    struct Entries: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "entries", abstract: "Logged medications, newest first.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Only the night of DATE.") var date: String?
        @Option(help: "At most this many (default 100).") var limit = 100
        func run() throws {
            try Output.run(options, reading: true) { context in
                let records = try context.app.medications.list(
                    on: try date.map { text throws(DoseError) in try sessionDate(text) }, limit: max(1, min(limit, 10_000)))
                let zone = try context.app.settings.zone()
                if records.isEmpty && !options.json { Output.line("No medications logged.") }
                Output.list(records, json: options.json, response: MedicationResponse.init) { record in
                    "\(record.sessionDate) \(HumanText.clock(record.takenAt, zone))  \(record.medication.name) "
                        + "\(String(format: "%g", record.doseMg)) mg  [\(record.id)]"
                }
            }
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change when, how much, or the note of an entry.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The entry's id.") var id: String
        @Option(help: "New time: local HH:mm or ISO-8601.") var at: String?
        @Option(help: "New amount, e.g. 10mg or 2.25g.") var dose: String?
        @Option(help: "New note (empty to clear).") var note: String?
        @Option(help: "Confirm a duplicate within 5 minutes: duplicate.") var confirm: [String] = []
        func run() throws {
            try Output.run(options) { context in
                let zone = try context.app.settings.zone()
                let takenAt = try context.occurrence(at, in: zone)
                let medication = try context.app.medications.find(id).medication
                let amount = try dose.map { text throws(DoseError) in try MedicationEntryText.amount(text, for: medication) }
                let confirmations = try Confirmations.parse(confirm, allowed: [.duplicate], command: "med edit")
                let record = try context.app.medications.edit(
                    id, takenAt: takenAt, amount: amount?.0, unit: amount?.1,
                    note: note.map { Optional($0) }, confirmations: confirmations)
                Output.show(
                    json: options.json, MedicationResponse(record),
                    "Updated: \(record.medication.name) \(String(format: "%g", record.doseMg)) mg at \(HumanText.clock(record.takenAt, zone)).")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an entry (needs --yes).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The entry's id.") var id: String
        @Flag(help: "Confirm the deletion.") var yes = false
        func run() throws {
            try Output.run(options, deleting: "an entry", confirmed: yes) { context in
                let record = try context.app.medications.delete(id)
                Output.show(json: options.json, MedicationResponse(record), "Deleted \(record.medication.name) of \(record.sessionDate).")
            }
        }
    }
}

struct Event: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "event", abstract: "Correct the past: change an event's time or note, or delete it. The audit log keeps the old values.",
        subcommands: [Edit.self, Delete.self, TookAnyway.self])

    struct TookAnyway: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "took-anyway",
            abstract: "Record an oxybate dose you really took past what Tonight allows (a second extra, past the nightly maximum).",
            discussion: "Tonight refuses such a dose (422_NIGHTLY_MAXIMUM). If it was taken all the same, the record must say so: "
                + "it is kept as an extra dose marked taken anyway, flagged in the report, and told to your alarm ladder.")
        @OptionGroup var options: GlobalOptions
        @OptionGroup var action: ActionOptions
        @Option(help: "The dose's amount in mg (default: the night's last dose's).") var mg: Int?
        func run() throws {
            try perform(options, actionOptions: action) { _ in NightAction(.takenAnyway(amountMilligrams: mg)) }
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change the time and/or note of an event.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The event's id (see `history --json` or `session show`).") var id: String
        @Option(help: "New time: local HH:mm or ISO-8601.") var at: String?
        @Option(help: "New note (empty to clear).") var note: String?
        func run() throws {
            try Output.run(options) { context in
                let zone = try context.app.settings.zone()
                let occurredAt = try context.occurrence(at, in: zone)
                let edit = try context.app.records.editEvent(EventID(rawValue: id), occurredAt: occurredAt, note: note.map { Optional($0) })
                report(edit, zone: zone, json: options.json)
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an event (needs --yes).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The event's id.") var id: String
        @Flag(help: "Confirm the deletion.") var yes = false
        func run() throws {
            try Output.run(options, deleting: "an event", confirmed: yes) { context in
                let zone = try context.app.settings.zone()
                report(try context.app.records.deleteEvent(EventID(rawValue: id)), zone: zone, json: options.json)
            }
        }
    }

    static func report(_ edit: EventEdit, zone: TimeZone, json: Bool) {
        if json {
            Output.line(JSONValue(response: EventEditResponse(edit)).rendered())
            return
        }
        if let after = edit.after {
            Output.line(
                "\(after.kind.label) changed: \(HumanText.clock(edit.before.occurredAt, zone)) → \(HumanText.clock(after.occurredAt, zone))"
                    + (after.note.map { ", note \"\($0)\"" } ?? "") + ".")
        } else {
            Output.line("\(edit.before.kind.label) of \(HumanText.clock(edit.before.occurredAt, zone)) deleted.")
        }
        for event in edit.reflagged {
            Output.line(
                "⚠ \(event.kind.label) is now "
                    + (event.metadata.isEarly ? "marked early." : event.metadata.isLate ? "marked late." : "inside the window."))
        }
    }
}
