import Foundation

/// A folder as lists name it.
public struct FolderRef: Sendable, Hashable, Codable, Identifiable {
    /// Its id.
    public var id: String
    /// Its name.
    public var name: String
    /// Whether it is Unsorted, which every project has.
    public var system: Bool?

    /// Creates a folder reference.
    public init(id: String, name: String, system: Bool? = nil) {
        self.id = id
        self.name = name
        self.system = system
    }
}
