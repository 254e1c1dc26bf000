import CompanionAuth
import Foundation

/// One session of the account, as `GET /api/sessions` lists it.
public struct SessionRecord: Sendable, Hashable, Codable, Identifiable {
    /// The session's id.
    public var id: String
    /// What the client called itself.
    public var client: String?
    /// `password` or `passkey`.
    public var openedBy: String?
    /// When it opened.
    public var openedAt: Date?
    /// Where it opened.
    public var openedFrom: String?
    /// When it was last used.
    public var lastUsedAt: Date?
    /// Where it was last used.
    public var lastUsedFrom: String?
    /// Whether it is this device's own (M-SESS-2).
    public var current: Bool

    /// Creates a record.
    public init(
        id: String, client: String? = nil, openedBy: String? = nil, openedAt: Date? = nil, openedFrom: String? = nil,
        lastUsedAt: Date? = nil, lastUsedFrom: String? = nil, current: Bool
    ) {
        self.id = id
        self.client = client
        self.openedBy = openedBy
        self.openedAt = openedAt
        self.openedFrom = openedFrom
        self.lastUsedAt = lastUsedAt
        self.lastUsedFrom = lastUsedFrom
        self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case id, client, current
        case openedBy = "opened_by"
        case openedAt = "opened_at"
        case openedFrom = "opened_from"
        case lastUsedAt = "last_used_at"
        case lastUsedFrom = "last_used_from"
    }

    /// The kit's session entry.
    public var info: SessionInfo {
        SessionInfo(
            id: id, client: client, openedBy: openedBy, openedAt: openedAt, openedFrom: openedFrom,
            lastUsedAt: lastUsedAt, lastUsedFrom: lastUsedFrom, isCurrent: current)
    }
}

/// `POST /api/sessions` → 201.
public struct SessionOpened: Sendable, Hashable, Codable {
    /// Who signed in.
    public var user: Person
    /// The new session.
    public var session: SessionRecord
}

/// A list reply: `items`, and for paged lists `next_cursor` and the project's `revision`.
public struct ListReply<Item: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    /// The items of this page.
    public var items: [Item]
    /// The cursor of the next page; `nil` at the end.
    public var nextCursor: String?
    /// The project's revision when the page was read.
    public var revision: Int?

    /// Creates a list reply.
    public init(items: [Item], nextCursor: String? = nil, revision: Int? = nil) {
        self.items = items
        self.nextCursor = nextCursor
        self.revision = revision
    }

    enum CodingKeys: String, CodingKey {
        case items, revision
        case nextCursor = "next_cursor"
    }
}

/// `GET P/queue` → one page of the open queue and the summary of all of it.
public struct QueueReply: Sendable, Hashable, Codable {
    /// The counts of the whole open queue (M-QUEUE-4).
    public var summary: QueueSummary
    /// The project's revision.
    public var revision: Int?
    /// The next page's cursor.
    public var nextCursor: String?
    /// This page's rows, in the server's order.
    public var items: [QueueItem]

    enum CodingKeys: String, CodingKey {
        case summary, revision, items
        case nextCursor = "next_cursor"
    }
}

/// `POST …/decisions` → 201: the decision and the sentence of what was recorded.
public struct AnswerReply: Sendable, Hashable, Codable {
    /// The decision made; Undo names its id (M-UNDO-1).
    public var decision: Decision
    /// "Flaky test recorded for checkout › pays with card." (M-QUEUE-11).
    public var recorded: String
}

/// `POST …/withdrawal` → 201.
public struct WithdrawalReply: Sendable, Hashable, Codable {
    /// The withdrawal entry.
    public struct Withdrawal: Sendable, Hashable, Codable {
        /// Its id.
        public var id: String
        /// The decision withdrawn.
        public var withdraws: String
    }

    /// The question's state after it.
    public struct QuestionState: Sendable, Hashable, Codable {
        /// The question's id.
        public var id: String
        /// `open` again.
        public var state: String
    }

    /// The withdrawal.
    public var withdrawal: Withdrawal
    /// The question, open again.
    public var question: QuestionState
}

/// One row of the Decided list: what was decided and by whom (M-UNDO-4).
public struct DecidedItem: Sendable, Hashable, Codable, Identifiable {
    /// The question decided.
    public struct QuestionRef: Sendable, Hashable, Codable {
        /// Its id.
        public var id: String
        /// Its kind.
        public var kind: QuestionKind
        /// Its title.
        public var title: String
    }

    /// The answer given.
    public struct AnswerRef: Sendable, Hashable, Codable {
        /// Its key.
        public var key: String
        /// Its label.
        public var label: String
    }

    /// The decision's id.
    public var id: String
    /// The question.
    public var question: QuestionRef
    /// The answer.
    public var answer: AnswerRef
    /// Who decided.
    public var by: Person
    /// When.
    public var at: Date?
}

/// `POST …/results` → 201: the new result and your earlier one in the slot (M-RUN-8).
public struct RecordReply: Sendable, Hashable, Codable {
    /// The result recorded.
    public var result: SlotResult
    /// Your earlier result in this slot, `nil` if you had none.
    public var yourPrevious: PreviousResult?

    enum CodingKeys: String, CodingKey {
        case result
        case yourPrevious = "your_previous"
    }
}

/// `POST P/runs` → 201: the run planned and how many slots it has (M-PLAN-1).
public struct PlanReply: Sendable, Hashable, Codable {
    /// The run's reference.
    public struct RunRef: Sendable, Hashable, Codable {
        /// Its id.
        public var id: String
        /// Its name.
        public var name: String
    }

    /// The run.
    public var run: RunRef
    /// How many slots it made.
    public var slotCount: Int

    enum CodingKeys: String, CodingKey {
        case run
        case slotCount = "slot_count"
    }
}
