import CompanionCore
import CompanionHTTP
import Foundation

/// The Omnigent routes the app uses, as `Request` values (the watch calls: O-WATCH-1…6).
///
/// Paths are relative to the server's API base; the `Client` keeps any mount path in front.
public enum OmnigentAPI {
    /// The sessions list (O-WATCH-1 uses `order=desc&sort_by=updated_at&limit=20`). A page is turned with
    /// `after: page.lastID` (the next one) or `before: page.firstID` (the one before) (O-ERR-3). Its reply is
    /// read by `OmnigentListPage<Session>.decode`, straight from the bytes.
    public static func sessions(
        limit: Int = 20, after: String? = nil, before: String? = nil, search: String? = nil,
        includeArchived: Bool = false
    ) -> Request<OmnigentListPage<Session>> {
        Request(path: "/v1/sessions") { body, response, decoder throws(HTTPError) in
            try OmnigentListPage<Session>.decode(body, response: response, decoder: decoder)
        }
        .adding(
            query: [
                "order": "desc", "sort_by": "updated_at", "limit": String(limit), "after": after, "before": before,
                "search_query": search.flatMap { $0.isEmpty ? nil : $0 },
                "include_archived": includeArchived ? "true" : nil,
            ])
    }

    /// The projects the sessions are filed in: 0.19.1 answers a bare JSON array of `{id, name}`, in display
    /// order; a list page (`{"object": "list", "data": [...]}`, what a router in front of replicas may answer
    /// for any list) is read as its `data`.
    public static func projects() -> Request<[SessionProject]> {
        Request(path: "/v1/sessions/projects") { body, response, decoder throws(HTTPError) in
            if body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
                return try JSONDecoding.decode(
                    OmnigentListPage<SessionProject>.self, from: body, response: response, decoder: decoder
                ).data
            }
            return try JSONDecoding.decode([SessionProject].self, from: body, response: response, decoder: decoder)
        }
    }

    /// A session's detail without items or liveness (O-WATCH-2): `include_items=false&include_liveness=false`.
    public static func session(_ id: String) -> Request<Session> {
        .get("/v1/sessions/\(escape(id))", query: ["include_items": "false", "include_liveness": "false"])
    }

    /// A session's items, newest first by default (O-WATCH-3), paged with `after` or `before` (O-ERR-3).
    public static func items(
        _ id: String, limit: Int = 100, after: String? = nil, before: String? = nil, order: String = "desc"
    ) -> Request<OmnigentListPage<SessionItem>> {
        .get(
            "/v1/sessions/\(escape(id))/items",
            query: ["order": order, "limit": String(limit), "after": after, "before": before])
    }

    /// Posts a user message as a real turn (O-WATCH-4). A server without a runner answers 503
    /// `runner_unavailable`, which surfaces as `HTTPError.status` with the server's sentence.
    public static func sendMessage(_ id: String, text: String) throws(HTTPError) -> Request<EventAck> {
        let event: JSONValue = .object([
            "type": "message",
            "data": .object([
                "role": "user", "content": .array([.object(["type": "input_text", "text": .string(text)])]),
            ]),
        ])
        return .post("/v1/sessions/\(escape(id))/events", body: event)
    }

    /// Appends an assistant message without a runner (`external_assistant_message`).
    public static func appendAssistantMessage(_ id: String, agent: String, text: String) throws(HTTPError) -> Request<
        EventAck
    > {
        let event: JSONValue = .object([
            "type": "external_assistant_message", "data": .object(["agent": .string(agent), "text": .string(text)]),
        ])
        return .post("/v1/sessions/\(escape(id))/events", body: event)
    }

    /// Appends a user message without a runner (`external_conversation_item`).
    public static func appendUserMessage(_ id: String, text: String) throws(HTTPError) -> Request<EventAck> {
        let event: JSONValue = .object([
            "type": "external_conversation_item",
            "data": .object([
                "item_type": "message",
                "item_data": .object([
                    "role": "user", "content": .array([.object(["type": "input_text", "text": .string(text)])]),
                ]),
            ]),
        ])
        return .post("/v1/sessions/\(escape(id))/events", body: event)
    }

    /// Resolves an approval with accept or decline (O-WATCH-5).
    public static func resolve(_ id: String, elicitation: String, accept: Bool) throws(HTTPError) -> Request<JSONValue>
    {
        .post(
            "/v1/sessions/\(escape(id))/elicitations/\(escape(elicitation))/resolve",
            body: ["action": accept ? "accept" : "decline"])
    }

    /// Changes a session's title, archived flag or labels (PATCH; omitted fields stay as they are).
    public static func update(
        _ id: String, title: String? = nil, archived: Bool? = nil, labels: [String: String]? = nil
    )
        throws(HTTPError) -> Request<Session>
    {
        var body: [String: JSONValue] = [:]
        if let title { body["title"] = .string(title) }
        if let archived { body["archived"] = .bool(archived) }
        if let labels { body["labels"] = .object(labels.mapValues(JSONValue.string)) }
        return .patch("/v1/sessions/\(escape(id))", body: JSONValue.object(body))
    }

    /// Marks a session read up to `lastSeen` (Unix seconds).
    public static func markRead(_ id: String, lastSeen: Int) throws(HTTPError) -> Request<Void> {
        let body: JSONValue = .object(["last_seen": .integer(Int64(lastSeen)), "unread": .bool(false)])
        let encoded = Data(body.jsonString().utf8)
        return .empty(
            .put, "/v1/sessions/\(escape(id))/read-state", body: encoded, headers: ["Content-Type": "application/json"])
    }

    /// Creates a session for `agentID`.
    public static func createSession(agentID: String, title: String?) throws(HTTPError) -> Request<Session> {
        var body: [String: JSONValue] = ["agent_id": .string(agentID)]
        if let title { body["title"] = .string(title) }
        return .post("/v1/sessions", body: JSONValue.object(body))
    }

    /// The agents installed on the server.
    public static func agents() -> Request<OmnigentListPage<Agent>> { .get("/v1/agents") }

    /// The manifest (unauthenticated).
    public static func manifest() -> Request<Manifest> { .get("/.well-known/omnigent.json") }

    /// The signed-in identity.
    public static func me() -> Request<Identity> { .get("/v1/me") }

    /// The live stream of a session (SSE, O-WATCH-6).
    public static func stream(_ id: String) -> Request<Void> { .empty(.get, "/v1/sessions/\(escape(id))/stream") }

    /// Percent-encodes an id for a path segment, so an id never adds a path or query.
    static func escape(_ id: String) -> String {
        PercentEncoding.segment(id)
    }
}
