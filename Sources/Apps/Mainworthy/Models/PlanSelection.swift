import Foundation

/// Which cases a new run takes: all, a folder (with its subfolders), a tag, or a search.
public enum PlanSelection: Sendable, Hashable, Encodable {
    /// Every case.
    case all
    /// The cases of a folder.
    case folder(id: String)
    /// The cases with a tag.
    case tag(String)
    /// The cases matching a search.
    case search(String)

    enum CodingKeys: String, CodingKey {
        case kind, tag, text
        case folderID = "folder_id"
    }

    /// Encodes `{"kind": …}` with the selection's own member.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .all:
            try container.encode("all", forKey: .kind)
        case .folder(let id):
            try container.encode("folder", forKey: .kind)
            try container.encode(id, forKey: .folderID)
        case .tag(let tag):
            try container.encode("tag", forKey: .kind)
            try container.encode(tag, forKey: .tag)
        case .search(let text):
            try container.encode("search", forKey: .kind)
            try container.encode(text, forKey: .text)
        }
    }
}
