import CompanionBridge
import CompanionCore
import Foundation

/// The bridge ops' view of the app: the schedule store, the person's id and the notification planner.
public struct AppBridgeServices: PromptugalBridgeServices {
    private let store: ScheduleStore
    private let person: @Sendable () async -> String?
    private let planner: @Sendable (NotificationPlan) async throws -> Void

    /// Services over `store` with the person's id from `team`'s `me.json` (the saved copy first, so `identity.get`
    /// answers offline) and `planner` for local notifications.
    public init(
        store: ScheduleStore, team: TeamData, planner: @escaping @Sendable (NotificationPlan) async throws -> Void
    ) {
        self.init(
            store: store,
            person: {
                if let saved = await team.me(offline: true).value?.personID { return saved }
                return await team.me().value?.personID
            }, planner: planner)
    }

    /// Services over `store`; `person` gives the id from `me.json`; `planner` schedules a local notification.
    public init(
        store: ScheduleStore, person: @escaping @Sendable () async -> String?,
        planner: @escaping @Sendable (NotificationPlan) async throws -> Void
    ) {
        self.store = store
        self.person = person
        self.planner = planner
    }

    /// The store's document.
    public func scheduleDocument() async -> JSONValue { await store.document.json }

    /// Merges a document from the page; a document that is not v1 is an error reply and changes nothing.
    public func mergeSchedule(_ document: JSONValue) async throws -> JSONValue {
        let incoming: ScheduleDocument
        do {
            incoming = try ScheduleDocument(json: document)
        } catch {
            throw BridgeOpError(code: "bad_document", message: error.description)
        }
        return await MainActor.run {
            store.merge(incoming)
            return store.document.json
        }
    }

    /// The person's id.
    public func identity() async -> String? { await person() }

    /// Plans a notification.
    public func planNotification(_ plan: NotificationPlan) async throws { try await planner(plan) }
}
