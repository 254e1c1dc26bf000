import Foundation

/// A change as the list shows it, as `GET P/changes/{id}` describes it, and as a `change` event names it.
///
/// Rules (§2): a list row is `{"id", "ref", "title", "state", "head", "gate", "updated_at"}`, a change's own part
/// `{"id", "state", "head", "base", "ref", "updated_at"}`, and a `change` event's data `{"id", "state", "head",
/// "gate"}`. So only the id, the state and the head are required; what one shape lacks, another fills
/// (`merging(_:)`, M-CHG-4).
public struct ChangeSummary: Sendable, Hashable, Codable, Identifiable {
    /// The change's id (`ch_…`).
    public var id: String
    /// Its branch and pull request, once known.
    public var ref: ChangeRef?
    /// Its title, once known.
    public var title: String?
    /// `open`, `merged` or `closed`.
    public var state: String
    /// The head commit.
    public var head: String
    /// The base commit.
    public var base: String?
    /// The time of its latest report, once known.
    public var updatedAt: Date?
    /// The gate's verdict, on list rows and events.
    public var gate: GateMark?

    /// Creates a summary.
    public init(
        id: String, ref: ChangeRef? = nil, title: String? = nil, state: String = "open", head: String,
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

    /// What the list shows for its branch and pull request, or the id while the ref is not known.
    public var label: String { ref?.label ?? id }

    /// Whether a field the list shows is not known yet (a row made from an event: its ref or report time).
    public var lacksListFields: Bool { ref == nil || updatedAt == nil }

    /// This row with every field `newer` knows, the rest kept.
    public func merging(_ newer: ChangeSummary) -> ChangeSummary {
        ChangeSummary(
            id: id, ref: newer.ref ?? ref, title: newer.title ?? title, state: newer.state, head: newer.head,
            base: newer.base ?? base, updatedAt: newer.updatedAt ?? updatedAt, gate: newer.gate ?? gate)
    }

    enum CodingKeys: String, CodingKey {
        case id, ref, title, state, head, base, gate
        case updatedAt = "updated_at"
    }
}
