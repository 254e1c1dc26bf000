import Foundation

/// `GET P/cases/{id}` or `…/versions/{v}`: a case at one version, with its current placement.
///
/// Rules (§2, O-22): the current case names its id, number, version, who may run it and its web page; an old
/// version is "the document as of that version, with the current folder and tags", so only the document, the
/// folder and the tags are required. Whether a page is an old version is not read from a field the server may
/// not send (`current_version`): the case model compares the version it asked for with the current one
/// (M-CASE-6).
public struct CasePage: Sendable, Hashable, Codable {
    /// The case's id (`c_…`).
    public var id: String?
    /// Its number (`C-12`).
    public var number: String?
    /// The version shown.
    public var version: Int?
    /// The case's current version, when the server says.
    public var currentVersion: Int?
    /// The document at that version.
    public var document: CaseDocument
    /// Who may run it.
    public var runnableBy: String?
    /// The current folder (also on an older version, M-CASE-6).
    public var folder: FolderRef
    /// The current tags.
    public var tags: [String]
    /// The case in the web app.
    public var webURL: URL?
    /// The project's revision, when the reply carries it.
    public var revision: Int?

    /// Creates a page.
    public init(
        id: String?, number: String?, version: Int?, currentVersion: Int? = nil, document: CaseDocument,
        runnableBy: String? = nil, folder: FolderRef, tags: [String], webURL: URL? = nil, revision: Int? = nil
    ) {
        self.id = id
        self.number = number
        self.version = version
        self.currentVersion = currentVersion
        self.document = document
        self.runnableBy = runnableBy
        self.folder = folder
        self.tags = tags
        self.webURL = webURL
        self.revision = revision
    }

    /// The title at that version.
    public var title: String { document.title }
    /// The preconditions at that version.
    public var preconditions: String { document.preconditions }
    /// The steps at that version.
    public var steps: [CaseStep] { document.steps }

    enum CodingKeys: String, CodingKey {
        case id, number, version, folder, tags, revision
        case currentVersion = "current_version"
        case runnableBy = "runnable_by"
        case webURL = "web_url"
    }

    /// Decodes the page; the document's members are at the top level, beside the rest.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        number = try container.decodeIfPresent(String.self, forKey: .number)
        version = try container.decodeIfPresent(Int.self, forKey: .version)
        currentVersion = try container.decodeIfPresent(Int.self, forKey: .currentVersion)
        document = try CaseDocument(from: decoder)
        runnableBy = try container.decodeIfPresent(String.self, forKey: .runnableBy)
        folder = try container.decode(FolderRef.self, forKey: .folder)
        tags = try container.decode([String].self, forKey: .tags)
        webURL = try container.decodeIfPresent(URL.self, forKey: .webURL)
        revision = try container.decodeIfPresent(Int.self, forKey: .revision)
    }

    /// Encodes the same flat object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(number, forKey: .number)
        try container.encodeIfPresent(version, forKey: .version)
        try container.encodeIfPresent(currentVersion, forKey: .currentVersion)
        try document.encode(to: encoder)
        try container.encodeIfPresent(runnableBy, forKey: .runnableBy)
        try container.encode(folder, forKey: .folder)
        try container.encode(tags, forKey: .tags)
        try container.encodeIfPresent(webURL, forKey: .webURL)
        try container.encodeIfPresent(revision, forKey: .revision)
    }
}
