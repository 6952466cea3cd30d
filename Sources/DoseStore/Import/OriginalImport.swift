public import DoseCore
public import Foundation
import GRDB

extension NightLedger {
    /// Imports a database of the original iOS app (schema versions 1–6 of seed 004 and the later layout of reference §4.3).
    public func importOriginalDatabase(at path: String, clock: StoreClock) throws -> ImportReport {
        throw DoseError.invalidFile(problem: "importing the original app's database is not supported yet")
    }
}
