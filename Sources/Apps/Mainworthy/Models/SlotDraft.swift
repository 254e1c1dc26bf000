import Foundation

/// What is typed or marked on a slot but not recorded yet.
///
/// Rules: pressing a step marks it, pressing it again clears it, pressing another moves the mark: at
/// most one step is marked (M-RUN-5, O-9). A draft stays with its slot while the run is open in the
/// app, across moving between slots and Undo (M-RUN-10); the run model keeps the drafts, in memory only.
public struct SlotDraft: Sendable, Hashable {
    /// The note typed.
    public var note: String
    /// The marked step, 1-based.
    public private(set) var markedStep: Int?

    /// Creates a draft.
    public init(note: String = "", markedStep: Int? = nil) {
        self.note = note
        self.markedStep = markedStep
    }

    /// Marks `step`, clears it when it is already marked, or moves the mark to it.
    public mutating func press(step: Int) {
        markedStep = markedStep == step ? nil : step
    }

    /// Whether nothing is typed or marked.
    public var isEmpty: Bool { note.isEmpty && markedStep == nil }
}
