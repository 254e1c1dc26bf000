import Foundation

/// Percent-encoding: the one place the kit escapes text for a URL or a form body.
///
/// Rules:
/// - `segment(_:)` is the one path-segment escaper: an id put into a path (`"/v1/sessions/\(segment(id))"`) can never
///   add a segment, a query or a fragment. Every byte but RFC 3986's unreserved ones (ASCII letters, digits, `-._~`)
///   is escaped, and a segment that is `.` or `..` has its dots escaped too, so it never climbs out of its folder.
///   The same rule makes any text safe as a query value.
/// - Escaping works on UTF-8 bytes with uppercase hex digits (`é` is `%C3%A9`), exactly as Foundation's
///   `addingPercentEncoding` does, without asking Foundation (slow on Linux); text that needs no escape is returned
///   as it is.
public enum PercentEncoding {
    /// `text` as one path segment (or a query value): every byte but the unreserved ones escaped, and `.` or `..`
    /// as `%2E` or `%2E%2E`.
    public static func segment(_ text: String) -> String {
        if text == "." || text == ".." { return String(repeating: "%2E", count: text.utf8.count) }
        return escape(text, keeping: unreserved)
    }

    /// A set of ASCII bytes left as they are; every other byte is escaped.
    struct Kept: Sendable {
        private let table: [Bool]

        /// The ASCII members of `set`.
        init(_ set: CharacterSet) {
            table = (0..<128).map { set.contains(Unicode.Scalar(UInt8($0))) }
        }

        /// The bytes of `characters` (ASCII).
        init(characters: String) {
            var table = [Bool](repeating: false, count: 128)
            for byte in characters.utf8 where byte < 0x80 { table[Int(byte)] = true }
            self.table = table
        }

        /// Whether `byte` is kept.
        func contains(_ byte: UInt8) -> Bool { byte < 0x80 && table[Int(byte)] }
    }

    /// RFC 3986's unreserved characters.
    static let unreserved = Kept(characters: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `text` with every byte not in `kept` written as `%XX`.
    static func escape(_ text: String, keeping kept: Kept) -> String {
        if text.utf8.allSatisfy(kept.contains) { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if kept.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
