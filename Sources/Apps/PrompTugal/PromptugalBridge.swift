import CompanionBridge
import CompanionCore
import Foundation

/// What PrompTugal's bridge ops need from the app. The schedule, identity and notification stores
/// implement it; the bridge stays free of their internals.
public protocol PromptugalBridgeServices: Sendable {
    /// The schedule document `{v:1, picks}` as the store holds it (`ScheduleStore.document`).
    func scheduleDocument() async -> JSONValue
    /// Merges an incoming document by the store's union rules (never a replacement); returns the document
    /// after the merge. Throws `BridgeOpError` when the document is invalid.
    func mergeSchedule(_ document: JSONValue) async throws -> JSONValue
    /// `{personId}` from `me.json`, or `nil` when not known.
    func identity() async -> String?
    /// Schedules (or re-plans, same id) one local notification, delivered at `plan.deliveryTime()`.
    func planNotification(_ plan: NotificationPlan) async throws
}

/// The arguments of `notify.plan`: one local notification, re-planned on the same id (P-OPEN-15).
public struct NotificationPlan: Codable, Sendable, Hashable {
    /// The plan's id; planning the same id again replaces the earlier plan.
    public let id: String
    /// The title, never empty.
    public let title: String
    /// The body.
    public let body: String?
    /// When to deliver, as ISO 8601 text; see `deliveryTime()`.
    public let at: String

    /// When to deliver (issue 38 item 6): `at` as ISO 8601; with a zone (`Z`, `+01:00`) it is taken as written, and
    /// without one it is Lisbon wall time, where the event happens (`2026-07-01T10:00` is 09:00Z), never UTC. A
    /// number written as text (`1794105900`) is refused: the op does not say whether it counts seconds or
    /// milliseconds. The planner delivers at this instant, never at its own reading of `at`.
    public func deliveryTime() throws(BridgeOpError) -> Date {
        let text = at.trimmingCharacters(in: .whitespaces)
        if Double(text) != nil {
            throw BridgeOpError(
                code: "bad_args",
                message: "notify.plan needs `at` as an ISO 8601 time; a number does not say whether it counts seconds "
                    + "or milliseconds.")
        }
        do {
            return try LisbonTime.instant(text)
        } catch {
            throw BridgeOpError(code: "bad_args", message: "notify.plan needs `at` as an ISO 8601 time.")
        }
    }
}

/// PrompTugal's `pt` bridge: handler name, content world, and the five phase-1 ops. The scripts a web view gets,
/// and where, are `PrompTugalBridgeConfiguration`'s (the page's world holds `window.ptApp`, the bridge's world the
/// handler and a relay).
///
/// Rules (P-BRIDGE-*): the handler is `pt`, in its own content world (not the page's); the
/// document-start script defines `window.ptApp = { version, ops }` listing exactly the registered ops; each op
/// has a typed handler (`schedule.get`, `schedule.set` → merge, `identity.get`, `notify.plan`,
/// `meter.topup` → `not_available` until its contract exists); other ops get `unknown_op`; origins are
/// checked by the allow-list (https only, main frame, frame and page); every message is journaled.
public enum PromptugalBridge {
    /// The script message handler name.
    public static let handlerName = "pt"
    /// The content world the handler lives in; never the page's world.
    public static let contentWorldName = "PrompTugalBridge"
    /// The phase-1 ops, in the order the bootstrap advertises them.
    public static let phaseOneOps = ["schedule.get", "schedule.set", "identity.get", "notify.plan", "meter.topup"]

    /// The op registry over `services`.
    public static func registry(services: any PromptugalBridgeServices) -> BridgeOpRegistry {
        var registry = BridgeOpRegistry()
        registry.register("schedule.get", arguments: NoArguments.self) { _ in await services.scheduleDocument() }
        registry.register("schedule.set", arguments: JSONValue.self) { document in
            try await services.mergeSchedule(document)
        }
        registry.register("identity.get", arguments: NoArguments.self) { _ -> JSONValue in
            guard let person = await services.identity() else { return .null }
            return .object(["personId": .string(person)])
        }
        registry.register("notify.plan", arguments: NotificationPlan.self) { plan -> JSONValue in
            guard !plan.title.isEmpty, !plan.id.isEmpty else {
                throw BridgeOpError(code: "bad_args", message: "notify.plan needs a non-empty id and title.")
            }
            _ = try plan.deliveryTime()
            try await services.planNotification(plan)
            return .object(["planned": .string(plan.id)])
        }
        registry.register("meter.topup", arguments: NoArguments.self) { _ -> JSONValue in
            throw BridgeOpError(code: "not_available", message: "meter.topup is not available yet.")
        }
        return registry
    }

    /// The endpoint for pages of `allowed` origins (https only: an http address is dropped from the list).
    public static func endpoint(
        services: any PromptugalBridgeServices, allowed: [ServerAddress], journal: Journal
    ) -> BridgeEndpoint {
        BridgeEndpoint(
            allowList: OriginAllowList(allowed.filter { $0.scheme == "https" }),
            registry: registry(services: services), journal: journal)
    }
}
