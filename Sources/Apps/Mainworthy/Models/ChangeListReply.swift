import Foundation

/// `GET P/changes`: at most 500 changes, newest report first, and the project's revision.
public struct ChangeListReply: Sendable, Hashable, Codable {
    /// The project's revision when the list was read.
    public var revision: Int?
    /// The changes.
    public var items: [ChangeSummary]
}
