import Foundation

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
