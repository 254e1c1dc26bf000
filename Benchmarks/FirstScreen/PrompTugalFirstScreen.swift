import CompanionCore
import CompanionStore
import Foundation
import PrompTugalCore

/// PrompTugal's first screen: the schedule (`ScheduleStore`), the picks kept on the device.
enum PrompTugalFirstScreen {
    /// The store PrompTugal keeps its schedule in (one per device).
    static let account = AccountKey(serverKey: "promptugal", userID: "me")
    /// How many talks the seeded schedule holds (a full conference day, picked by hand).
    static let picks = 40

    /// Picks `picks` talks through the schedule store, which saves them to the device's store.
    @MainActor static func seed(folder: URL) async throws {
        let store = try await StoreRegistry(location: .directory(folder)).store(for: account)
        let schedule = try await ScheduleStore.load(from: StoreScheduleStorage(store: store), clock: SystemWallClock())
        for index in 0..<picks { schedule.toggle(String(format: "talk-%03d", index)) }
        await schedule.saved()
        guard schedule.saveProblem == nil, schedule.picks.count == picks else {
            throw FirstScreenError("the schedule did not save: \(schedule.saveProblem ?? "\(schedule.picks.count)")")
        }
    }

    /// A new process: the device's store, the schedule loaded from it (no network is involved).
    @MainActor static func read(folder: URL) async throws -> [String] {
        let store = try await StoreRegistry(location: .directory(folder)).store(for: account)
        let schedule = try await ScheduleStore.load(from: StoreScheduleStorage(store: store), clock: SystemWallClock())
        return schedule.picks.map(\.id)
    }

    /// The same rows read by the `sqlite3` CLI: the stored picks' ids (the schedule sorts talks without a known
    /// start by id).
    static func sqlite(folder: URL) throws -> (file: String, query: String) {
        (
            folder.appendingPathComponent(account.storageName + ".sqlite").path,
            "SELECT p.key FROM documents, json_each(documents.body, '$.picks') AS p "
                + "WHERE name = '\(StoreScheduleStorage.documentName)' ORDER BY p.key"
        )
    }
}
