import CompanionCore
import Foundation

/// How a local value and an incoming one become one.
///
/// Rule: a merge rule is a pure function, idempotent (merging the same input twice changes
/// nothing), commutative and associative (the order documents arrive in does not matter), so
/// every device that has seen the same documents holds the same value (P-SCHED-16).
public protocol MergeRule: Sendable {
    /// The merged value.
    associatedtype Value: Sendable
    /// Merges `incoming` into `local`.
    func merge(_ local: Value, _ incoming: Value) -> Value
}

/// A set of ids with the time each was added, and tombstones with the time each was removed.
///
/// Rule (PrompTugal's schedule, P-SCHED-8..16): a removal wins only if it is later than the add;
/// equal times go to the add. Absence alone never removes anything. Tombstones are kept so a
/// removal survives a restart and beats an older copy arriving later (P-SCHED-15).
public struct TimedSet: Sendable, Hashable, Codable {
    /// Live members: id → when it was added.
    public private(set) var members: [String: Date]
    /// Tombstones: id → when it was removed.
    public private(set) var removals: [String: Date]

    /// Creates a set.
    public init(members: [String: Date] = [:], removals: [String: Date] = [:]) {
        self.members = members
        self.removals = removals
        resolve()
    }

    /// Whether `id` is a live member (P-SCHED-8).
    public func contains(_ id: String) -> Bool { members[id] != nil }

    /// Adds `id` if absent, removes it (leaving a tombstone) if present (P-SCHED-9, P-SCHED-10).
    public mutating func toggle(_ id: String, at time: Date) {
        if members[id] != nil {
            members[id] = nil
            removals[id] = max(time, removals[id] ?? time)
        } else {
            members[id] = time
            removals[id] = nil
        }
    }

    /// Drops tombstones that lost and members that lost, after a merge.
    mutating func resolve() {
        for (id, removedAt) in removals {
            if let addedAt = members[id] {
                if removedAt > addedAt { members[id] = nil } else { removals[id] = nil }
            }
        }
    }
}

/// Union by id with timestamps and tombstones (see `TimedSet`).
public struct UnionByID: MergeRule {
    /// Creates the rule.
    public init() {}

    /// Every id from either side; for an id on both, the later add and the later removal count,
    /// then a removal stays only if it is later than the add.
    public func merge(_ local: TimedSet, _ incoming: TimedSet) -> TimedSet {
        TimedSet(
            members: local.members.merging(incoming.members, uniquingKeysWith: max),
            removals: local.removals.merging(incoming.removals, uniquingKeysWith: max))
    }
}

/// One field's value with the time it was written.
public struct StampedField: Sendable, Hashable, Codable {
    /// The value.
    public var value: JSONValue
    /// When it was written.
    public var writtenAt: Date

    /// Creates a stamped field.
    public init(_ value: JSONValue, at writtenAt: Date) {
        self.value = value
        self.writtenAt = writtenAt
    }
}

/// Field-wise last writer wins: each field independently takes the later write.
///
/// Rule: two devices editing different fields both keep their edit; editing the same field keeps
/// the later one. Equal times are broken by the value's JSON text, so both sides pick the same.
public struct FieldwiseLastWriterWins: MergeRule {
    /// Creates the rule.
    public init() {}

    /// The later write of every field from either side.
    public func merge(_ local: [String: StampedField], _ incoming: [String: StampedField]) -> [String: StampedField] {
        local.merging(incoming) { mine, theirs in
            if mine.writtenAt != theirs.writtenAt { return mine.writtenAt > theirs.writtenAt ? mine : theirs }
            return mine.value.jsonString() >= theirs.value.jsonString() ? mine : theirs
        }
    }
}
