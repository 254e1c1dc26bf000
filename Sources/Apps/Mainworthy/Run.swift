import Foundation

/// The outcome of a result. A person records `pass`, `fail`, `blocked` or `skip` (M-RUN-6); `error`
/// comes only from a pipeline's report, on a run that accepts its commit (M-PLAN-5).
public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// The case passed.
    case pass
    /// The case failed, at the marked step if any.
    case fail
    /// The case could not be run.
    case blocked
    /// The case was skipped.
    case skip
    /// The test errored in a pipeline; never recorded by hand.
    case error

    /// The outcomes a person can record, in the order the buttons show them.
    public static let manual: [Outcome] = [.pass, .fail, .blocked, .skip]
}

/// A recorded result of a slot.
public struct SlotResult: Sendable, Hashable, Codable, Identifiable {
    /// The result's id.
    public var id: String
    /// The outcome.
    public var outcome: Outcome
    /// The note.
    public var note: String?
    /// The failed step, 1-based, for a failure.
    public var failedStep: Int?
    /// Who recorded it.
    public var by: Person?
    /// When.
    public var at: Date?

    /// Creates a result.
    public init(
        id: String, outcome: Outcome, note: String? = nil, failedStep: Int? = nil, by: Person? = nil, at: Date? = nil
    ) {
        self.id = id
        self.outcome = outcome
        self.note = note
        self.failedStep = failedStep
        self.by = by
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case id, outcome, note, by, at
        case failedStep = "failed_step"
    }
}

/// A case as a slot shows it: at the version pinned when the run was planned (M-RUN-4).
public struct PinnedCase: Sendable, Hashable, Codable {
    /// The case's id.
    public var id: String?
    /// `C-12`.
    public var number: String
    /// The title at the pinned version.
    public var title: String
    /// The pinned version.
    public var version: Int

    /// Creates a pinned case.
    public init(id: String? = nil, number: String, title: String, version: Int) {
        self.id = id
        self.number = number
        self.title = title
        self.version = version
    }
}

/// One slot of a run: a case at its pinned version and its current result.
public struct Slot: Sendable, Hashable, Codable, Identifiable {
    /// The slot's id.
    public var id: String
    /// Its place in the run, from 1.
    public var position: Int
    /// The case.
    public var `case`: PinnedCase
    /// The current result, `nil` when none.
    public var result: SlotResult?

    /// Creates a slot.
    public init(id: String, position: Int, case pinned: PinnedCase, result: SlotResult? = nil) {
        self.id = id
        self.position = position
        self.case = pinned
        self.result = result
    }
}

/// The server's verdict on a run: its value and its sentence (M-RUN-1).
public struct RunVerdict: Sendable, Hashable, Codable {
    /// `passing`, `failing`, `blocked` or `pending`.
    public var value: String
    /// The sentence shown.
    public var sentence: String

    /// Creates a verdict.
    public init(value: String, sentence: String) {
        self.value = value
        self.sentence = sentence
    }
}

/// Which results a run accepts: manual ones, and pipeline results for one commit (M-RUN-1, M-PLAN-5).
public struct RunAccepts: Sendable, Hashable, Codable {
    /// Whether manual results are accepted.
    public var manual: Bool
    /// The commit whose pipeline results it accepts, if any.
    public var commit: String?

    /// Creates the accepted results.
    public init(manual: Bool, commit: String?) {
        self.manual = manual
        self.commit = commit
    }

    /// "Manual results, and pipeline results for a1b2c3d".
    public var sentence: String {
        let manual = manual ? "Manual results" : "No manual results"
        return commit.map { "\(manual), and pipeline results for \($0)" } ?? manual
    }
}

/// A run's page: verdict, accepted results, and its slots in order.
public struct Run: Sendable, Hashable, Codable, Identifiable {
    /// The id.
    public var id: String
    /// The name.
    public var name: String
    /// `open` or `closed`; a closed run takes no results (M-RUN-11).
    public var state: String
    /// The server's verdict.
    public var verdict: RunVerdict
    /// The results it accepts.
    public var accepts: RunAccepts
    /// The slots, in run order.
    public var slots: [Slot]

    /// Creates a run.
    public init(id: String, name: String, state: String, verdict: RunVerdict, accepts: RunAccepts, slots: [Slot]) {
        self.id = id
        self.name = name
        self.state = state
        self.verdict = verdict
        self.accepts = accepts
        self.slots = slots.sorted { $0.position < $1.position }
    }

    /// Whether the run accepts results.
    public var isOpen: Bool { state == "open" }
}

/// A row of the runs list.
public struct RunSummary: Sendable, Hashable, Codable, Identifiable {
    /// The id.
    public var id: String
    /// The name.
    public var name: String
    /// `open` or `closed`.
    public var state: String
    /// The verdict.
    public var verdict: RunVerdict
    /// How many slots.
    public var slotCount: Int

    /// Creates a row.
    public init(id: String, name: String, state: String, verdict: RunVerdict, slotCount: Int) {
        self.id = id
        self.name = name
        self.state = state
        self.verdict = verdict
        self.slotCount = slotCount
    }

    enum CodingKeys: String, CodingKey {
        case id, name, state, verdict
        case slotCount = "slot_count"
    }
}

/// One step of a case.
public struct CaseStep: Sendable, Hashable, Codable {
    /// What to do.
    public var action: String
    /// What should happen, if written.
    public var expected: String?

    /// Creates a step.
    public init(action: String, expected: String? = nil) {
        self.action = action
        self.expected = expected
    }
}

/// A case's document at one version.
public struct CaseDocument: Sendable, Hashable, Codable {
    /// `C-12`.
    public var number: String
    /// The version.
    public var version: Int
    /// The title.
    public var title: String
    /// The preconditions.
    public var preconditions: String?
    /// The steps, in order.
    public var steps: [CaseStep]

    /// Creates a document.
    public init(number: String, version: Int, title: String, preconditions: String? = nil, steps: [CaseStep]) {
        self.number = number
        self.version = version
        self.title = title
        self.preconditions = preconditions
        self.steps = steps
    }
}

/// A slot's page: the slot, its case at the pinned version, and every result, newest first.
public struct SlotDetail: Sendable, Hashable, Codable {
    /// The slot.
    public var slot: Slot
    /// The case as pinned (M-RUN-4).
    public var `case`: CaseDocument
    /// The slot's history, newest first; nothing is ever deleted (M-RUN-8, M-RUN-9).
    public var results: [SlotResult]

    /// Creates a slot page.
    public init(slot: Slot, case document: CaseDocument, results: [SlotResult]) {
        self.slot = slot
        self.case = document
        self.results = results
    }
}
