import Foundation

/// `GET P/browse`: the top folders and the tags, most used first.
public struct BrowseReply: Sendable, Hashable, Codable {
    /// The project's revision.
    public var revision: Int?
    /// How many cases the project has.
    public var caseCount: Int?
    /// The top folders, Unsorted among them.
    public var folders: [FolderRef]
    /// The tags, most used first.
    public var tags: [TagUse]

    enum CodingKeys: String, CodingKey {
        case revision, folders, tags
        case caseCount = "case_count"
    }
}
