import CompanionCore
import Foundation
import Testing

/// `JSONValue.reading(_:)` answers exactly as `JSONDecoder` decodes a `JSONValue`, or leaves the bytes to it.
@Suite("JSONValue read straight from the bytes")
struct JSONValueReadingTests {
    private func decoded(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test(
        "ordinary documents are read without the decoder, to the decoder's value",
        arguments: [
            "{}", "[]", "null", "true", "false", "0", "-7", "9223372036854775807", "-9223372036854775808", "12.5",
            "-0.25", "2.5E-3", "\"\"", "\"plain\"", "\"caf\u{E9} \u{1F600}\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"",
            "\"\\u00e9\\u0000\\ud83d\\ude00\"", " \n\t\r{ \"a\" : [ 1 , 2.5 , \"x\" , null , true , { } ] } \n",
            "{\"id\":\"s-1\",\"count\":3,\"nested\":{\"list\":[{\"k\":false}]}}",
        ])
    func readsOrdinaryDocuments(_ text: String) throws {
        let value = try #require(JSONValue.reading(Data(text.utf8)))
        #expect(value == decoded(text))
    }

    @Test(
        "what the decoder reads its own way, or refuses, is left to it",
        arguments: [
            // The decoder makes whole numbers written with a fraction or exponent integers, accepts a trailing comma
            // and a byte order mark, keeps the first of repeated keys, and turns large integers into doubles.
            "1.0", "1e2", "-0.0", "1e-400", "[1,2,]", "\u{FEFF}1", "{\"a\":1,\"a\":2}", "9223372036854775808",
            "12345678901234567890123",
            // Not JSON at all.
            "", " ", "01", "1.", ".5", "-", "+1", "nul", "NaN", "[1 2]", "{\"a\" 1}", "{1:2}", "\"open",
            "\"\\ud800\"", "\"\\udc00\"", "\"\\x\"", "\"tab\there\"", "1e400", "[", "]", "{} {}",
        ])
    func leavesOtherDocumentsToTheDecoder(_ text: String) {
        #expect(JSONValue.reading(Data(text.utf8)) == nil)
        // And `JSONValue(data:)`, which tries the reader first, still gives the decoder's answer.
        #expect(JSONValue(data: Data(text.utf8)) == decoded(text))
    }

    @Test("invalid UTF-8 and deep nesting are left to the decoder")
    func leavesInvalidBytesAndDepth() {
        #expect(JSONValue.reading(Data([0x22, 0xC3, 0x28, 0x22])) == nil)
        #expect(JSONValue.reading(Data([0x22, 0xFF, 0x22])) == nil)
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(JSONValue.reading(Data(deep.utf8)) == nil)
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(JSONValue.reading(Data(fine.utf8)) == decoded(fine))
    }

    @Test("10,000 generated documents: the reader's answer, when it gives one, is the decoder's")
    func generatedDocumentsAgree() throws {
        var random = SplitMix(seed: 0x5EED)
        var read = 0
        for _ in 0..<10_000 {
            let text = Self.document(&random, depth: 0)
            let bytes = Data(text.utf8)
            if let value = JSONValue.reading(bytes) {
                read += 1
                #expect(value == decoded(text), "\(text)")
            } else {
                #expect(JSONValue(data: bytes) == decoded(text), "\(text)")
            }
        }
        // Most generated documents are plain JSON, which the reader takes itself.
        #expect(read > 5_000)
    }

    /// A random JSON text, with random spacing, sometimes with a number or a string the decoder reads its own way.
    static func document(_ random: inout SplitMix, depth: Int) -> String {
        let space = [" ", "", "\n", "\t", ""][random.below(5)]
        switch depth > 3 ? random.below(6) : random.below(8) {
        case 0: return "null"
        case 1: return random.below(2) == 0 ? "true" : "false"
        case 2:
            let numbers = ["0", "-1", "42", "3.25", "-0.5", "1e3", "2.5e-2", "1.0", "123456789012", "-9e18", "7E+1"]
            return numbers[random.below(numbers.count)]
        case 3, 4:
            let strings = [
                "\"\"", "\"id\"", "\"caf\u{E9}\"", "\"\\n\\t\"", "\"\\u0041\\u00e9\"", "\"\u{1F600}\"", "\"a\\\"b\"",
            ]
            return strings[random.below(strings.count)]
        case 5, 6:
            let count = random.below(4)
            let elements = (0..<count).map { _ in document(&random, depth: depth + 1) }
            return "[" + space + elements.joined(separator: "," + space) + space + "]"
        default:
            let count = random.below(4)
            let keys = ["a", "b", "id", "name", "é"]
            let members = (0..<count).map { _ in
                "\"\(keys[random.below(keys.count)])\"" + space + ":" + space + document(&random, depth: depth + 1)
            }
            return "{" + space + members.joined(separator: ",") + space + "}"
        }
    }
}

/// A small seeded generator, so the generated documents are the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
