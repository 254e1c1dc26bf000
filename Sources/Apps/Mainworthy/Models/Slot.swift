import Foundation

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
