import Foundation

/// A row of the runs list (`GET P/runs`).
///
/// Rule: §2 shows no row of this list, so only the id is required; a row without a name shows its id.
public struct RunSummary: Sendable, Hashable, Codable, Identifiable {
    /// The id.
    public var id: String
    /// The name.
    public var name: String?
    /// `open` or `closed`.
    public var state: String?
    /// The verdict.
    public var verdict: RunVerdict?
    /// How many slots.
    public var slotCount: Int?

    /// Creates a row.
    public init(id: String, name: String?, state: String?, verdict: RunVerdict? = nil, slotCount: Int? = nil) {
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
