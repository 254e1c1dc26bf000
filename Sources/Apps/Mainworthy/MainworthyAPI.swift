import CompanionHTTP
import Foundation

/// Every call the Mainworthy core makes, as `Request` values. Paths are below the server's base URL;
/// `P` is `/api/projects/{key}`.
public enum MainworthyAPI {
    /// `GET /api/version` (public).
    public static func version() -> Request<ServerVersion> { .get("/api/version") }

    /// `POST /api/sessions`: name, password and the client's name (M-AUTH-2).
    public static func openSession(name: String, password: String) -> Request<SessionOpened> {
        .post(
            "/api/sessions", body: OpenSessionBody(name: name, password: password, client: MainworthyBuild.clientName))
    }

    /// `GET /api/sessions`: the account's sessions.
    public static func sessions() -> Request<ListReply<SessionRecord>> { .get("/api/sessions") }

    /// `DELETE /api/sessions/{id}`.
    public static func endSession(_ id: String) -> Request<Void> { .empty(.delete, "/api/sessions/\(escape(id))") }

    /// `GET /api/projects` with capabilities.
    public static func projects() -> Request<ListReply<Project>> { .get("/api/projects") }

    /// `GET P/queue`, one kind with `kind`, from `cursor`.
    public static func queue(_ project: String, kind: QuestionKind? = nil, cursor: String? = nil, limit: Int? = nil)
        -> Request<QueueReply>
    {
        .get(
            "\(base(project))/queue",
            query: ["kind": kind?.rawValue, "cursor": cursor, "limit": limit.map(String.init)])
    }

    /// `GET P/questions/{id}`.
    public static func question(_ project: String, _ id: String) -> Request<Question> {
        .get("\(base(project))/questions/\(escape(id))")
    }

    /// `POST P/questions/{id}/decisions`.
    public static func answer(_ project: String, question id: String, _ body: AnswerBody) -> Request<AnswerReply> {
        .post("\(base(project))/questions/\(escape(id))/decisions", body: body)
    }

    /// `POST P/decisions/{id}/withdrawal`.
    public static func withdraw(_ project: String, decision id: String, _ body: WithdrawalBody)
        -> Request<WithdrawalReply>
    {
        .post("\(base(project))/decisions/\(escape(id))/withdrawal", body: body)
    }

    /// `GET P/decisions`: the Decided list.
    public static func decided(_ project: String, cursor: String? = nil) -> Request<ListReply<DecidedItem>> {
        .get("\(base(project))/decisions", query: ["cursor": cursor])
    }

    /// `GET P/runs`.
    public static func runs(_ project: String, cursor: String? = nil) -> Request<ListReply<RunSummary>> {
        .get("\(base(project))/runs", query: ["cursor": cursor])
    }

    /// `GET P/runs/{id}`.
    public static func run(_ project: String, _ id: String) -> Request<Run> {
        .get("\(base(project))/runs/\(escape(id))")
    }

    /// `GET P/runs/{id}/slots/{sid}`.
    public static func slot(_ project: String, run: String, slot: String) -> Request<SlotDetail> {
        .get("\(base(project))/runs/\(escape(run))/slots/\(escape(slot))")
    }

    /// `POST P/runs/{id}/slots/{sid}/results`.
    public static func record(_ project: String, run: String, slot: String, _ body: ResultBody) -> Request<RecordReply>
    {
        .post("\(base(project))/runs/\(escape(run))/slots/\(escape(slot))/results", body: body)
    }

    /// `POST P/runs`.
    public static func plan(_ project: String, _ body: PlanBody) -> Request<PlanReply> {
        .post("\(base(project))/runs", body: body)
    }

    static func base(_ project: String) -> String { "/api/projects/\(escape(project))" }

    /// One path segment, with `/`, `?` and `#` escaped so an id can never leave its segment.
    static func escape(_ segment: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}

/// The body of `POST /api/sessions`. It lives only for the call; the password is never stored.
struct OpenSessionBody: Encodable, Sendable {
    var name: String
    var password: String
    var client: String
}
