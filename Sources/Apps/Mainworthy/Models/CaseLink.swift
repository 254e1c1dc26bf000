import Foundation

/// A case linked to a failing test, or touched by a change.
public struct CaseLink: Sendable, Hashable, Codable, Identifiable {
    /// The case's id.
    public var id: String
    /// `C-12`.
    public var number: String
    /// The current title.
    public var title: String?
}
