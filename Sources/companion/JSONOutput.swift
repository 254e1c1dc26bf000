import CompanionCore
import Foundation

/// The one way the terminal client writes JSON (docs/cli-json.md): keys sorted, slashes unescaped, every date in
/// one form, ISO 8601 in UTC with six fraction digits (`2026-11-30T10:00:00.123456Z`), so a server's fraction
/// of a second is kept as it sent it (up to microseconds).
///
/// A command's answer is one pretty-printed document; a command that prints a stream of events prints one
/// compact document per line (JSON Lines).
enum JSONOutput {
    /// The encoder: `pretty` for a document, compact for a line of a stream.
    static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            do {
                try container.encode(try Timestamp.format(date, precision: .microseconds))
            } catch let error as TimestampError {
                throw EncodingError.invalidValue(
                    date, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: error.description))
            }
        }
        return encoder
    }

    /// `value` as one pretty-printed document.
    static func document(_ value: some Encodable) throws -> String {
        String(decoding: try encoder(pretty: true).encode(value), as: UTF8.self)
    }

    /// `value` as one compact line (an event of a stream).
    static func line(_ value: some Encodable) throws -> String {
        String(decoding: try encoder(pretty: false).encode(value), as: UTF8.self)
    }

    /// `value` as the bytes of a state file (compact).
    static func data(_ value: some Encodable) throws -> Data { try encoder(pretty: false).encode(value) }
}

extension JSONValue {
    /// This value as one pretty-printed document, through `JSONOutput`.
    var outputDocument: String { (try? JSONOutput.document(self)) ?? "null" }

    /// This value as one compact line, through `JSONOutput`.
    var outputLine: String { (try? JSONOutput.line(self)) ?? "null" }
}

extension JSONValue {
    /// This value as a document (`pretty`) or as one line.
    func output(pretty: Bool) -> String { pretty ? outputDocument : outputLine }
}
