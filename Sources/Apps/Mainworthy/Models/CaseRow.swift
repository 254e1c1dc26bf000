import Foundation

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

    /// Creates a row.
    public init(id: String, number: String, title: String, version: Int, worst: WorstResult? = nil) {
        self.id = id
        self.number = number
        self.title = title
        self.version = version
        self.worst = worst
    }

    /// The row's mark.
    public var mark: CaseMark { CaseMark(worst) }

    enum CodingKeys: String, CodingKey { case id, number, title, version, worst }

    /// Decodes a row; a `worst` this app does not know is no mark.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        number = try container.decode(String.self, forKey: .number)
        title = try container.decode(String.self, forKey: .title)
        version = try container.decode(Int.self, forKey: .version)
        worst = (try? container.decodeIfPresent(WorstResult.self, forKey: .worst)) ?? nil
    }
}
