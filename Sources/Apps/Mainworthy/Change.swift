import CompanionHTTP
import Foundation

/// What a change is made from: its branch, its pull request, or both.
public struct ChangeRef: Sendable, Hashable, Codable {
    /// The branch, if the pipeline named one.
    public var branch: String?
    /// The pull request's number, if the pipeline named one.
    public var pullRequest: Int?

    /// Creates a reference.
    public init(branch: String? = nil, pullRequest: Int? = nil) {
        self.branch = branch
        self.pullRequest = pullRequest
    }

    /// "feat/cart #412", "feat/cart" or "#412".
    public var label: String {
        [branch, pullRequest.map { "#\($0)" }].compactMap { $0 }.joined(separator: " ")
    }

    enum CodingKeys: String, CodingKey {
        case branch
        case pullRequest = "pull_request"
    }
}

/// The gate's verdict on a change's head. An unknown value from a newer server is kept as it came.
public struct GateVerdict: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The wire value.
    public var rawValue: String

    /// Wraps a wire value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Nothing stops the change.
    public static let passing = GateVerdict(rawValue: "passing")
    /// At least one failing test is unexplained.
    public static let failing = GateVerdict(rawValue: "failing")
    /// The failures are explained, and one is a defect in the product.
    public static let blocked = GateVerdict(rawValue: "blocked")
    /// No pipeline report names the head yet.
    public static let pending = GateVerdict(rawValue: "pending")

    /// Decodes the wire string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the wire string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The wire value.
    public var description: String { rawValue }
}

/// The verdict a list row carries.
public struct GateMark: Sendable, Hashable, Codable {
    /// The verdict.
    public var verdict: GateVerdict

    /// Creates a mark.
    public init(verdict: GateVerdict) { self.verdict = verdict }
}

/// A change as the list shows it and as `GET P/changes/{id}` describes it (the list row also carries the
/// gate's verdict; a `change` event carries the same row).
public struct ChangeSummary: Sendable, Hashable, Codable, Identifiable {
    /// The change's id (`ch_…`).
    public var id: String
    /// Its branch and pull request.
    public var ref: ChangeRef
    /// Its title.
    public var title: String?
    /// `open`, `merged` or `closed`.
    public var state: String
    /// The head commit.
    public var head: String
    /// The base commit.
    public var base: String?
    /// The time of its latest report.
    public var updatedAt: Date?
    /// The gate's verdict, on list rows and events.
    public var gate: GateMark?

    /// Creates a summary.
    public init(
        id: String, ref: ChangeRef = ChangeRef(), title: String? = nil, state: String = "open", head: String,
        base: String? = nil, updatedAt: Date? = nil, gate: GateMark? = nil
    ) {
        self.id = id
        self.ref = ref
        self.title = title
        self.state = state
        self.head = head
        self.base = base
        self.updatedAt = updatedAt
        self.gate = gate
    }

    /// Whether the change was merged or closed: marked as ended, with the last verdict of its last head
    /// (M-CHG-10).
    public var isEnded: Bool { state == "merged" || state == "closed" }

    enum CodingKeys: String, CodingKey {
        case id, ref, title, state, head, base, gate
        case updatedAt = "updated_at"
    }
}

/// `GET P/changes`: at most 500 changes, newest report first, and the project's revision.
public struct ChangeListReply: Sendable, Hashable, Codable {
    /// The project's revision when the list was read.
    public var revision: Int?
    /// The changes.
    public var items: [ChangeSummary]
}

/// An open question the gate is waiting on.
public struct GateQuestion: Sendable, Hashable, Codable, Identifiable {
    /// The question's id.
    public var id: String
    /// Its kind (`failure`, …).
    public var kind: String
    /// Its title.
    public var title: String
}

/// `GET P/changes/{id}/gate`.
public struct Gate: Sendable, Hashable, Codable {
    /// The head this gate describes.
    public var head: String
    /// The verdict.
    public var verdict: GateVerdict
    /// The server's reason, word for word.
    public var reason: String
    /// The open questions the verdict waits on.
    public var questions: [GateQuestion]
}

/// A case linked to a failing test, or touched by a change.
public struct CaseLink: Sendable, Hashable, Codable, Identifiable {
    /// The case's id.
    public var id: String
    /// `C-12`.
    public var number: String
    /// The current title.
    public var title: String?
}

/// The question asked about a failing test, as the failing-tests part names it.
public struct FailureQuestionMark: Sendable, Hashable, Codable {
    /// The question's id.
    public var id: String
    /// `open` or `decided`.
    public var state: String
    /// The answer standing, if any (`flaky`, `defect`, …).
    public var answer: String?
}

/// A failing test of the change's head, with its linked cases.
public struct FailingTest: Sendable, Hashable, Codable {
    /// The test's name.
    public var test: String
    /// `fail` or `error`.
    public var outcome: String
    /// The failure's message.
    public var message: String?
    /// The pipeline job.
    public var job: String?
    /// The failure question, if one was asked.
    public var question: FailureQuestionMark?
    /// The linked cases.
    public var cases: [CaseLink]
}

/// A part of a change that is a list, with the head it describes.
public struct HeadedList<Item: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    /// The head the items describe.
    public var head: String
    /// The items.
    public var items: [Item]
}

/// A change's page: the change, its gate, its failing tests and the cases it touches, all read for one
/// head (M-CHG-3, M-CHG-6).
public struct ChangePage: Sendable, Hashable {
    /// The change (head and base commits, ref, state).
    public var change: ChangeSummary
    /// The gate.
    public var gate: Gate
    /// The failing tests with their linked cases.
    public var failingTests: [FailingTest]
    /// The cases the change touches.
    public var cases: [CaseLink]
    /// The heads the four parts named, in the order read (the change, gate, failing tests, cases).
    public var partHeads: [String]

    /// Creates a page.
    public init(change: ChangeSummary, gate: Gate, failingTests: [FailingTest], cases: [CaseLink], partHeads: [String])
    {
        self.change = change
        self.gate = gate
        self.failingTests = failingTests
        self.cases = cases
        self.partHeads = partHeads
    }

    /// The head every part describes.
    public var head: String { change.head }
    /// The open questions of the change (the gate's).
    public var openQuestions: [GateQuestion] { gate.questions }
}

extension MainworthyAPI {
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
}

/// A pipeline report's body.
public struct PipelineReport: Sendable, Hashable, Codable {
    /// One test's result.
    public struct Result: Sendable, Hashable, Codable {
        /// The test's name.
        public var test: String
        /// `pass`, `fail`, `error`, `skip` or `blocked`.
        public var outcome: String
        /// The failure's message.
        public var message: String?
        /// Linked case numbers (`C-12`).
        public var cases: [String]

        /// Creates a result.
        public init(test: String, outcome: String, message: String? = nil, cases: [String] = []) {
            self.test = test
            self.outcome = outcome
            self.message = message
            self.cases = cases
        }
    }

    /// The commit tested.
    public var commit: String
    /// The base commit.
    public var base: String?
    /// The branch, if any.
    public var branch: String?
    /// The pull request, if any.
    public var pullRequest: Int?
    /// The job's name.
    public var job: String
    /// The results.
    public var results: [Result]
    /// Case numbers the change touches.
    public var touches: [String]
    /// `open`, `merged` or `closed`; `nil` keeps the change's state.
    public var state: String?

    /// Creates a report.
    public init(
        commit: String, base: String? = nil, branch: String? = nil, pullRequest: Int? = nil, job: String = "e2e",
        results: [Result] = [], touches: [String] = [], state: String? = nil
    ) {
        self.state = state
        self.commit = commit
        self.base = base
        self.branch = branch
        self.pullRequest = pullRequest
        self.job = job
        self.results = results
        self.touches = touches
    }

    enum CodingKeys: String, CodingKey {
        case commit, base, branch, job, results, touches, state
        case pullRequest = "pull_request"
    }
}

/// `POST P/reports` → 202: the change made or updated, or `nil` for a report naming neither a branch nor
/// a pull request (M-CHG-1).
public struct ReportReply: Sendable, Hashable, Codable {
    /// The change's id.
    public var change: String?
}
