import CompanionCore
import Foundation

/// A `request`-dialect bridge: allow-list, envelope codec, op registry and journal in one place.
///
/// Rule: every message, in either direction and whether accepted or rejected, becomes one `.bridge` journal
/// event holding the direction, origin, op and outcome (never the arguments or result, which may hold
/// personal data). A rejected message runs no op and gets no reply.
public struct BridgeEndpoint: Sendable {
    /// The origins allowed to call.
    public let allowList: OriginAllowList
    /// The operations answered.
    public let registry: BridgeOpRegistry
    /// Where messages are recorded.
    public let journal: Journal

    /// Creates an endpoint.
    public init(allowList: OriginAllowList, registry: BridgeOpRegistry, journal: Journal) {
        self.allowList = allowList
        self.registry = registry
        self.journal = journal
    }

    /// Handles one message body from `source`: the reply to send back, or `nil` when it was dropped.
    public func receive(_ body: JSONValue, from source: BridgeSource) async -> BridgeReply? {
        let origin = OriginAllowList.origin(of: source.frameOrigin) ?? String(source.frameOrigin.prefix(80))
        if let rejection = allowList.check(source) {
            BridgeJournal.record(
                journal, .inbound, origin: origin, op: body["op"]?.stringValue, outcome: "rejected",
                detail: rejection.description)
            return nil
        }
        let request: BridgeRequest
        do {
            request = try BridgeEnvelopeCodec.decode(body, dialect: .request)
        } catch {
            BridgeJournal.record(
                journal, .inbound, origin: origin, op: nil, outcome: "rejected",
                detail: error.description)
            return nil
        }
        BridgeJournal.record(journal, .inbound, origin: origin, op: request.op, outcome: "accepted")
        let reply = await registry.dispatch(request)
        switch reply.outcome {
        case .success:
            BridgeJournal.record(journal, .outbound, origin: origin, op: request.op, outcome: "ok")
        case .failure(let error):
            BridgeJournal.record(
                journal, .outbound, origin: origin, op: request.op, outcome: "error", detail: error.code)
        }
        return reply
    }
}

/// The direction a bridge message travels.
public enum BridgeDirection: String, Sendable, Hashable {
    /// Page to app.
    case inbound = "page→app"
    /// App to page.
    case outbound = "app→page"
}

/// Writes bridge journal events in one shape.
public enum BridgeJournal {
    /// Records one `.bridge` event: `direction op (outcome)` with `origin`, `op`, `outcome` and `detail` fields.
    public static func record(
        _ journal: Journal, _ direction: BridgeDirection, origin: String, op: String?, outcome: String,
        detail: String? = nil
    ) {
        var fields = ["direction": direction.rawValue, "origin": origin, "outcome": outcome]
        let name = op.map { String($0.prefix(128)) } ?? "?"
        fields["op"] = name
        if let detail { fields["detail"] = detail }
        journal.record(.bridge, "\(direction.rawValue) \(name) (\(outcome))", fields: fields)
    }
}
