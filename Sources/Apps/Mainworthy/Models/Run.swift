import Foundation

/// A run's page: verdict, accepted results, and its slots in order (M-RUN-1).
///
/// Rule: the slots are in run order (by `position`) however the server lists them, whether the run is decoded
/// or made here.
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
        self.slots = Self.ordered(slots)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, state, verdict, accepts, slots
    }

    /// Decodes a run, its slots put in run order.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id), name: try container.decode(String.self, forKey: .name),
            state: try container.decode(String.self, forKey: .state),
            verdict: try container.decode(RunVerdict.self, forKey: .verdict),
            accepts: try container.decode(RunAccepts.self, forKey: .accepts),
            slots: try container.decode([Slot].self, forKey: .slots))
    }

    /// Whether the run accepts results.
    public var isOpen: Bool { state == "open" }

    /// `slots` by position (a stable sort: equal positions keep the server's order).
    static func ordered(_ slots: [Slot]) -> [Slot] {
        slots.enumerated().sorted { ($0.element.position, $0.offset) < ($1.element.position, $1.offset) }.map(\.element)
    }
}
