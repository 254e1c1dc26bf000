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

    /// `GET /api/me`: who the session belongs to.
    public static func me() -> Request<Me> { .get("/api/me") }

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
    public static func decided(_ project: String, cursor: String? = nil, limit: Int? = nil)
        -> Request<ListReply<DecidedItem>>
    {
        .get("\(base(project))/decisions", query: ["cursor": cursor, "limit": limit.map(String.init)])
    }

    /// `GET P/runs`.
    public static func runs(_ project: String, cursor: String? = nil, limit: Int? = nil)
        -> Request<ListReply<RunSummary>>
    {
        .get("\(base(project))/runs", query: ["cursor": cursor, "limit": limit.map(String.init)])
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

    // MARK: Changes and the live stream

    /// `GET P/changes`: the newest 500 changes.
    public static func changes(_ project: String) -> Request<ChangeListReply> { .get("\(base(project))/changes") }

    /// `GET P/changes/{id}`: head, base, ref and state.
    public static func change(_ project: String, _ id: String) -> Request<ChangeSummary> {
        .get("\(base(project))/changes/\(escape(id))")
    }

    /// `GET P/changes/{id}/gate`.
    public static func gate(_ project: String, change id: String) -> Request<Gate> {
        .get("\(base(project))/changes/\(escape(id))/gate")
    }

    /// `GET P/changes/{id}/failing-tests`.
    public static func failingTests(_ project: String, change id: String) -> Request<HeadedList<FailingTest>> {
        .get("\(base(project))/changes/\(escape(id))/failing-tests")
    }

    /// `GET P/changes/{id}/cases`.
    public static func changeCases(_ project: String, change id: String) -> Request<HeadedList<CaseLink>> {
        .get("\(base(project))/changes/\(escape(id))/cases")
    }

    /// `GET P/events`: the project's live stream (Server-Sent Events).
    public static func events(_ project: String) -> Request<Void> { .empty(.get, "\(base(project))/events") }

    /// `POST P/reports` with the pipeline token as `Authorization: Bearer mwt_…` (never a session). Used by
    /// the terminal client's demo and the benchmark; the app itself never reports.
    public static func report(_ project: String, token: String, _ body: PipelineReport) -> Request<ReportReply> {
        var request: Request<ReportReply> = .post("\(base(project))/reports", body: body)
        request.headers["Authorization"] = "Bearer \(token)"
        return request
    }

    // MARK: Cases and the editor

    /// `GET P/browse`.
    public static func browse(_ project: String) -> Request<BrowseReply> { .get("\(base(project))/browse") }

    /// `GET P/tags`, most used first.
    public static func tags(_ project: String, cursor: String? = nil, limit: Int? = nil) -> Request<ListReply<TagUse>> {
        .get("\(base(project))/tags", query: ["cursor": cursor, "limit": limit.map(String.init)])
    }

    /// `GET P/folders/{id}`.
    public static func folder(_ project: String, _ id: String) -> Request<FolderPage> {
        .get("\(base(project))/folders/\(escape(id))")
    }

    /// `GET P/cases` for `listing`, from `cursor`.
    public static func cases(_ project: String, _ listing: CaseListing, cursor: String? = nil, limit: Int? = nil)
        -> Request<ListReply<CaseRow>>
    {
        var query = Query(listing.query)
        query["cursor"] = cursor
        query["limit"] = limit.map(String.init)
        return .get("\(base(project))/cases", query: query)
    }

    /// `GET P/cases?q=C-12&scope=project`: the search that finds a case by its number (§2's `{id}` is the
    /// case's id, never its number).
    public static func caseByNumber(_ project: String, _ number: String) -> Request<ListReply<CaseRow>> {
        cases(project, .search(number, scope: .project))
    }

    /// `GET P/cases/{id}`: the current version.
    public static func caseDocument(_ project: String, _ id: String) -> Request<CasePage> {
        .get("\(base(project))/cases/\(escape(id))")
    }

    /// `GET P/cases/{id}/versions`, newest first, from `cursor`.
    public static func caseVersions(_ project: String, _ id: String, cursor: String? = nil, limit: Int? = nil)
        -> Request<ListReply<CaseVersionEntry>>
    {
        .get(
            "\(base(project))/cases/\(escape(id))/versions",
            query: ["cursor": cursor, "limit": limit.map(String.init)])
    }

    /// `GET P/cases/{id}/versions/{v}`.
    public static func caseVersion(_ project: String, _ id: String, version: Int) -> Request<CasePage> {
        .get("\(base(project))/cases/\(escape(id))/versions/\(version)")
    }

    /// `POST P/proposals`.
    public static func propose(_ project: String, _ body: ProposalBody) -> Request<ProposalReply> {
        .post("\(base(project))/proposals", body: body)
    }

    static func base(_ project: String) -> String { "/api/projects/\(escape(project))" }

    /// One path segment, with `/`, `?` and `#` escaped so an id can never leave its segment.
    static func escape(_ segment: String) -> String { PercentEncoding.segment(segment) }
}

/// The body of `POST /api/sessions`. It lives only for the call; the password is never stored.
struct OpenSessionBody: Encodable, Sendable {
    var name: String
    var password: String
    var client: String
}
