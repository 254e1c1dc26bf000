import Foundation

/// One entry of a case's history.
public struct CaseVersionEntry: Sendable, Hashable, Codable {
    /// The version.
    public var version: Int
    /// Who wrote it.
    public var author: Person
    /// When.
    public var at: Date
    /// Why, when they said.
    public var reason: String?
}
