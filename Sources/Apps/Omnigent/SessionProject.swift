import CompanionCore
import Foundation

/// A project the sessions are filed in, as `/v1/sessions/projects` lists it (a bare array, in the person's
/// display order).
///
/// Omnigent 0.19.1 lists first-class projects with an `id` and legacy label projects with `id: null`; a
/// session names its project by id, so only a project with an id can hold sessions (O-WATCH-11).
public struct SessionProject: Codable, Sendable, Hashable {
    /// The project's id, `nil` for a legacy label project.
    public var id: String?
    /// The name to show.
    public var name: String

    /// Creates a project value.
    public init(id: String?, name: String) {
        self.id = id
        self.name = name
    }
}
