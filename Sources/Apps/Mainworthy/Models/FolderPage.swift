import Foundation

/// `GET P/folders/{id}`: a folder, its path from the top and its subfolders.
public struct FolderPage: Sendable, Hashable, Codable {
    /// Its id.
    public var id: String
    /// Its name.
    public var name: String
    /// The folders from the top down to this one.
    public var path: [FolderRef]
    /// Its subfolders.
    public var subfolders: [FolderRef]
}
