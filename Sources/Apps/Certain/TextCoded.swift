import Foundation

/// A value the server writes as one string of a fixed form (a day `YYYY-MM-DD`, a month `YYYY-MM`): decoded only
/// from that text (anything else is a decode error naming its path), encoded as it (`description`).
public protocol TextCoded: Codable, CustomStringConvertible {
    /// The value the text names, or `nil` when the text is not of the form.
    init?(_ text: String)
    /// The form, for an error sentence: `"a date YYYY-MM-DD"`.
    static var form: String { get }
}

extension TextCoded {
    /// Decodes the form; other text is a decode error naming its path.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "\"\(text)\" is not \(Self.form)"))
        }
        self = value
    }

    /// Encodes the form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
