import CompanionCore
import Foundation

/// An agent a session can run.
public struct Agent: Codable, Sendable, Hashable, Identifiable {
    /// Its installation-specific id.
    public var id: String
    /// Its name, such as `debby`.
    public var name: String
}
