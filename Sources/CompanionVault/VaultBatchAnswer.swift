import Foundation

/// The answer of the batch route, `{"results": [{"file_id": …, "status": "ok" | "not_found", "data": <base64>}, …]}`,
/// read without a general JSON decoder.
///
/// Rule: the answer is a few megabytes of base64 inside JSON strings, and a general decoder walks every one of those
/// bytes in Swift before a single object can be verified. This reader finds each string's closing quote with
/// `memchr` and decodes the base64 straight from the answer's bytes, about ten times less work. It accepts only
/// plain JSON (objects, arrays, strings without escapes, numbers, literals); anything else gives `nil`, and the
/// caller falls back to `JSONDecoder`, so an unusual but valid answer is still read the slow way.
enum VaultBatchAnswer {
    /// One entry of `results`.
    struct Item: Equatable {
        /// `file_id`, if present.
        var fileID: String?
        /// `status`, if present.
        var status: String?
        /// `data`, base64-decoded; `nil` when absent or not base64.
        var data: Data?
        /// Whether `data` was present (so that "present but not base64" can be told from "absent").
        var hasData = false
    }

    /// The `results` entries of `answer`, or `nil` when the answer is not the plain shape this reader takes.
    static func parse(_ answer: Data) -> [Item]? {
        answer.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> [Item]? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var reader = Reader(base: base, count: raw.count)
            return reader.document()
        }
    }

    private struct Reader {
        let base: UnsafePointer<UInt8>
        let count: Int
        var index = 0
        /// How deep the reader is; deeper than this is refused rather than recursed into.
        var depth = 0

        init(base: UnsafePointer<UInt8>, count: Int) {
            self.base = base
            self.count = count
        }

        mutating func document() -> [Item]? {
            var items: [Item]?
            guard expect(UInt8(ascii: "{")) else { return nil }
            if peek() == UInt8(ascii: "}") {
                index += 1
                return finish(items ?? [])
            }
            while true {
                guard let key = string() else { return nil }
                guard expect(UInt8(ascii: ":")) else { return nil }
                if key.elementsEqual("results".utf8) {
                    guard items == nil, let found = results() else { return nil }
                    items = found
                } else {
                    guard skipValue() else { return nil }
                }
                guard let next = next() else { return nil }
                if next == UInt8(ascii: "}") { break }
                guard next == UInt8(ascii: ",") else { return nil }
            }
            return finish(items ?? [])
        }

        mutating func finish(_ items: [Item]) -> [Item]? {
            skipSpace()
            return index == count ? items : nil
        }

        mutating func results() -> [Item]? {
            var items: [Item] = []
            guard expect(UInt8(ascii: "[")) else { return nil }
            if peek() == UInt8(ascii: "]") {
                index += 1
                return items
            }
            while true {
                guard let item = item() else { return nil }
                items.append(item)
                guard let next = next() else { return nil }
                if next == UInt8(ascii: "]") { return items }
                guard next == UInt8(ascii: ",") else { return nil }
            }
        }

        mutating func item() -> Item? {
            var item = Item()
            guard expect(UInt8(ascii: "{")) else { return nil }
            if peek() == UInt8(ascii: "}") {
                index += 1
                return item
            }
            while true {
                guard let key = string() else { return nil }
                guard expect(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                let isString = index < count && base[index] == UInt8(ascii: "\"")
                let known = ["file_id", "status", "data"].contains { key.elementsEqual($0.utf8) }
                // Any other type (even null) is left to the general decoder, so both read an answer alike.
                if known, !isString { return nil }
                if key.elementsEqual("file_id".utf8) {
                    guard let value = string() else { return nil }
                    item.fileID = String(decoding: value, as: UTF8.self)
                } else if key.elementsEqual("status".utf8) {
                    guard let value = string() else { return nil }
                    item.status = String(decoding: value, as: UTF8.self)
                } else if key.elementsEqual("data".utf8) {
                    guard let value = string() else { return nil }
                    item.hasData = true
                    item.data = VaultBatchAnswer.base64(value)
                } else {
                    guard skipValue() else { return nil }
                }
                guard let next = next() else { return nil }
                if next == UInt8(ascii: "}") { return item }
                guard next == UInt8(ascii: ",") else { return nil }
            }
        }

        /// A string without escapes; its bytes, quotes excluded.
        mutating func string() -> UnsafeBufferPointer<UInt8>? {
            skipSpace()
            guard index < count, base[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            guard start <= count,
                let found = memchr(base + start, Int32(UInt8(ascii: "\"")), count - start)
            else { return nil }
            let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let value = UnsafeBufferPointer(start: base + start, count: end - start)
            // An escape sends the whole answer to the general decoder. (A raw control character, which JSON forbids,
            // is let through: it cannot match a wanted file id, and base64 decoding refuses it.)
            if memchr(base + start, Int32(UInt8(ascii: "\\")), end - start) != nil { return nil }
            index = end + 1
            return value
        }

        /// Skips any value: a string, a number or literal, or a nested object or array.
        mutating func skipValue() -> Bool {
            skipSpace()
            guard index < count else { return false }
            switch base[index] {
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = base[index] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                let isObject = close == UInt8(ascii: "}")
                guard depth < 64 else { return false }
                depth += 1
                defer { depth -= 1 }
                index += 1
                if peek() == close {
                    index += 1
                    return true
                }
                while true {
                    if isObject {
                        guard string() != nil, expect(UInt8(ascii: ":")) else { return false }
                    }
                    guard skipValue(), let next = next() else { return false }
                    if next == close { return true }
                    guard next == UInt8(ascii: ",") else { return false }
                }
            default:
                let start = index
                while index < count {
                    let byte = base[index]
                    let isScalar =
                        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                        || (byte >= UInt8(ascii: "a")
                            && byte <= UInt8(ascii: "z"))
                        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                        || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "E")
                    guard isScalar else { break }
                    index += 1
                }
                return index > start
            }
        }

        mutating func skipSpace() {
            while index < count {
                let byte = base[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
                index += 1
            }
        }

        mutating func peek() -> UInt8? {
            skipSpace()
            return index < count ? base[index] : nil
        }

        /// The next non-space byte, consumed.
        mutating func next() -> UInt8? {
            guard let byte = peek() else { return nil }
            index += 1
            return byte
        }

        mutating func expect(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            index += 1
            return true
        }
    }
}

extension VaultBatchAnswer {
    /// Each ASCII byte's 6-bit value in the base64 alphabet; 0xFF for any other byte.
    private static let base64Values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(value)
        }
        return table
    }()

    /// Decodes padded base64 (RFC 4648 §4) straight from the answer's bytes into the result, without copying the
    /// text first; `nil` on anything else. Valid text gives what `Data(base64Encoded:)` gives; text that decoder
    /// accepts by leniency (padding inside the text, `====`) is refused here, and its object counts as unreadable.
    static func base64(_ text: UnsafeBufferPointer<UInt8>) -> Data? {
        let count = text.count
        guard count % 4 == 0 else { return nil }
        guard count > 0, let input = text.baseAddress else { return Data() }
        var padding = 0
        if input[count - 1] == UInt8(ascii: "=") { padding += 1 }
        if input[count - 2] == UInt8(ascii: "=") { padding += 1 }
        var output = Data(count: count / 4 * 3 - padding)
        let valid = output.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) -> Bool in
            guard let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return padding == 3 }
            return base64Values.withUnsafeBufferPointer { table -> Bool in
                var written = 0
                var position = 0
                let whole = count - (padding > 0 ? 4 : 0)
                while position < whole {
                    let a = table[Int(input[position])]
                    let b = table[Int(input[position + 1])]
                    let c = table[Int(input[position + 2])]
                    let d = table[Int(input[position + 3])]
                    guard (a | b | c | d) & 0xC0 == 0 else { return false }
                    out[written] = a << 2 | b >> 4
                    out[written + 1] = b << 4 | c >> 2
                    out[written + 2] = c << 6 | d
                    written += 3
                    position += 4
                }
                guard padding > 0 else { return true }
                let a = table[Int(input[position])]
                let b = table[Int(input[position + 1])]
                guard (a | b) & 0xC0 == 0 else { return false }
                out[written] = a << 2 | b >> 4
                if padding == 1 {
                    let c = table[Int(input[position + 2])]
                    guard c & 0xC0 == 0 else { return false }
                    out[written + 1] = b << 4 | c >> 2
                }
                return true
            }
        }
        return valid ? output : nil
    }

    /// A batch answer as `JSONDecoder` reads it: the general path for answers `parse` leaves alone (and the
    /// reference `parse` is tested against).
    struct Decoded: Decodable {
        /// One result as sent.
        struct Item: Decodable {
            let fileID: String?
            let status: String?
            let data: String?
            enum CodingKeys: String, CodingKey {
                case fileID = "file_id"
                case status
                case data
            }
        }
        let results: [Item]?

        /// The results as `parse` gives them (`data` base64-decoded; `hasData` when the field was present).
        var items: [VaultBatchAnswer.Item] {
            (results ?? []).map {
                VaultBatchAnswer.Item(
                    fileID: $0.fileID, status: $0.status, data: $0.data.flatMap { Data(base64Encoded: $0) },
                    hasData: $0.data != nil)
            }
        }
    }
}
