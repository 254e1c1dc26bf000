import Foundation

/// The kind of a question in the queue. Open-ended: a kind this app does not know yet still decodes,
/// and is treated like one the app sends to the web (its answers are not offered).
public struct QuestionKind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The server's name for the kind.
    public var rawValue: String

    /// Creates a kind from the server's name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A failing test to explain.
    public static let failure = QuestionKind(rawValue: "failure")
    /// A proposal of case edits.
    public static let proposal = QuestionKind(rawValue: "proposal")
    /// A review's finding.
    public static let review = QuestionKind(rawValue: "review")
    /// A run's sign-off (M-UNDO-8).
    public static let signOff = QuestionKind(rawValue: "sign_off")
    /// Link a test to a case: answered in the web app (M-WEB-1).
    public static let link = QuestionKind(rawValue: "link")
    /// Resolve an overlapping edit: answered in the web app (M-WEB-1).
    public static let overlap = QuestionKind(rawValue: "overlap")

    /// Every kind the queue's chips offer, in the order they are shown.
    public static let chips: [QuestionKind] = [.failure, .proposal, .review, .signOff, .link, .overlap]

    /// The wire name.
    public var description: String { rawValue }

    /// Decodes the wire name.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the wire name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
