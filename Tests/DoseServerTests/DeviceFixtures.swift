import DoseApp
import DoseStore
import Foundation

extension AppDatabase {
    /// Pairs a device with a token the test chose (pairing proper makes its own), stored as pairing stores one.
    func addDevice(name: String, tokenHash: String, clock: StoreClock) throws {
        try ledger.repository.write { night in
            try night.insertDevice(DeviceRecord(id: clock.makeID(), name: name, tokenHash: tokenHash, createdAt: clock.now, revokedAt: nil))
        }
    }

}
