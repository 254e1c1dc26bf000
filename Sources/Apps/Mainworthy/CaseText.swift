import Foundation

/// What a case says: a title, preconditions and steps (M-EDIT-2).
public struct CaseText: Sendable, Hashable, Codable {
    /// The title.
    public var title: String
    /// The preconditions; empty when there are none.
    public var preconditions: String
    /// The steps, in order.
    public var steps: [CaseStep]

    /// Creates a document.
    public init(title: String = "", preconditions: String = "", steps: [CaseStep] = []) {
        self.title = title
        self.preconditions = preconditions
        self.steps = steps
    }

    /// The document as the server keeps it: an empty expected result is no expected result.
    public var normalized: CaseText {
        CaseText(
            title: title, preconditions: preconditions,
            steps: steps.map { CaseStep(action: $0.action, expected: ($0.expected ?? "").isEmpty ? nil : $0.expected) })
    }
}

/// A case's worst result on its current version, as the server computes it (O-13).
public enum WorstResult: String, Sendable, Hashable, Codable {
    /// A failure.
    case fail
    /// An error from the pipeline.
    case error
    /// Blocked.
    case blocked
    /// A pass.
    case pass
}

/// The mark at the end of a case's row (M-CASE-4).
public enum CaseMark: String, Sendable, Hashable {
    /// A failure or an error.
    case cross
    /// Blocked.
    case triangle
    /// A pass.
    case tick
    /// No result on the current version.
    case none

    /// The mark of `worst`: fail or error → cross, blocked → triangle, pass → tick, nothing → none.
    public init(_ worst: WorstResult?) {
        switch worst {
        case .fail, .error: self = .cross
        case .blocked: self = .triangle
        case .pass: self = .tick
        case nil: self = .none
        }
    }
}

/// One row of a case list.
public struct CaseRow: Sendable, Hashable, Codable, Identifiable {
    /// The case's id (`c_12`).
    public var id: String
    /// Its number (`C-12`).
    public var number: String
    /// Its current title.
    public var title: String
    /// Its current version.
    public var version: Int
    /// Its worst result on the current version.
    public var worst: WorstResult?

    /// The row's mark.
    public var mark: CaseMark { CaseMark(worst) }
}

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

/// A tag and how many cases carry it.
public struct TagUse: Sendable, Hashable, Codable {
    /// The tag.
    public var name: String
    /// Its cases.
    public var count: Int
}

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

/// `GET P/cases/{id}` or `…/versions/{v}`: a case at one version, with its current placement.
public struct CasePage: Sendable, Hashable, Codable {
    /// The case's id.
    public var id: String
    /// Its number.
    public var number: String
    /// The version shown.
    public var version: Int
    /// The case's current version.
    public var currentVersion: Int
    /// The title at that version.
    public var title: String
    /// The preconditions at that version.
    public var preconditions: String
    /// The steps at that version.
    public var steps: [CaseStep]
    /// Who may run it.
    public var runnableBy: String
    /// The current folder (also on an older version, M-CASE-6).
    public var folder: FolderRef
    /// The current tags.
    public var tags: [String]
    /// The case in the web app.
    public var webURL: URL?
    /// The project's revision.
    public var revision: Int?

    /// The document at this version.
    public var document: CaseText { CaseText(title: title, preconditions: preconditions, steps: steps) }

    /// Whether this is an older version, which is read-only.
    public var isOldVersion: Bool { version < currentVersion }

    enum CodingKeys: String, CodingKey {
        case id, number, version, title, preconditions, steps, folder, tags, revision
        case currentVersion = "current_version"
        case runnableBy = "runnable_by"
        case webURL = "web_url"
    }
}

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
