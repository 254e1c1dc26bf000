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
            // Every number RFC 8259 allows, whole ones written with a fraction or exponent and integers past 64 bits
            // included (issue 39, P12).
            "1.0", "20.0", "1e2", "-0", "-0.0", "1.5E+3", "1e-400", "9223372036854775808", "-1e19",
            "12345678901234567890123", "1e300", "3.141592653589793238462643383279", "0.1", "-123.456e-7", "0.000001",
            "4.9e-324", "1.7976931348623157e308", "9007199254740991.0", "[20.0,{\"t\":-0.5,\"h\":1E1}]",
        ])
    func readsOrdinaryDocuments(_ text: String) throws {
        let value = try #require(JSONValue.reading(Data(text.utf8)))
        #expect(value == decoded(text))
    }

    @Test(
        "what the decoder reads its own way, or refuses, is left to it",
        arguments: [
            // The decoder accepts a trailing comma and a byte order mark, keeps the first of repeated keys, reads a
            // whole number from 2^53 to 2^63 written with a fraction or exponent again as a `Decimal`, and refuses
            // a number past `Double`'s range.
            "[1,2,]", "\u{FEFF}1", "{\"a\":1,\"a\":2}", "9007199254740993.0", "1e18", "-9223372036854775809",
            "1e400", "-1E400", "[1e999]",
            // Not JSON at all, numbers with leading zeros and other RFC 8259 refuses included.
            "", " ", "01", "-01", "00", "1.", ".5", "-", "+1", "1e", "1e+", "1.e5", "0x10", "Infinity", "-NaN", "1_0",
            "nul", "NaN", "[1 2]", "{\"a\" 1}", "{1:2}", "\"open", "\"\\ud800\"", "\"\\udc00\"", "\"\\x\"",
            "\"tab\there\"", "[", "]", "{} {}",
        ])
    func leavesOtherDocumentsToTheDecoder(_ text: String) {
        #expect(JSONValue.reading(Data(text.utf8)) == nil)
        // And `JSONValue(data:)`, which tries the reader first, still gives the decoder's answer.
        #expect(JSONValue(data: Data(text.utf8)) == decoded(text))
    }

    @Test(
        "issue 39 P12: numbers read to the decoder's value, integer or Double",
        arguments: [
            ("20.0", JSONValue.integer(20)), ("-0", .integer(0)), ("-0.0", .integer(0)), ("1.5E+3", .integer(1500)),
            ("1e2", .integer(100)), ("1e-400", .integer(0)), ("1.0000000000000001", .integer(1)),
            ("9007199254740991.0", .integer(9_007_199_254_740_991)), ("12.5", .number(12.5)), ("-0.25", .number(-0.25)),
            ("0.1", .number(0.1)), ("2.5e-3", .number(0.0025)), ("37.7668", .number(37.7668)),
            ("-122.3959", .number(-122.3959)), ("9223372036854775807", .integer(.max)),
            ("-9223372036854775808", .integer(.min)), ("9223372036854775808", .number(9_223_372_036_854_775_808)),
            ("-18446744073709551616", .number(-18_446_744_073_709_551_616)), ("1e300", .number(1e300)),
            ("3.141592653589793238462643383279", .number(3.141592653589793)),
            ("4.9e-324", .number(.leastNonzeroMagnitude)),
        ])
    func readsNumbersToTheDecodersValue(_ text: String, _ expected: JSONValue) throws {
        let value = try #require(JSONValue.reading(Data(text.utf8)), "\(text)")
        #expect(value == expected, "\(text)")
        #expect(value == decoded(text), "\(text)")
    }

    @Test("issue 39 P12: RFC 8259's own examples are read without the decoder, to the decoder's value")
    func readsTheRFCExamples() throws {
        let image = """
            {"Image": {"Width": 800, "Height": 600, "Title": "View from 15th Floor", "Thumbnail": {"Url": \
            "http://www.example.com/image/481989943", "Height": 125, "Width": 100}, "Animated" : false, \
            "IDs": [116, 943, 234, 38793]}}
            """
        let places = """
            [{"precision": "zip", "Latitude": 37.7668, "Longitude": -122.3959, "Address": "", \
            "City": "SAN FRANCISCO", "State": "CA", "Zip": "94107", "Country": "US"}, {"precision": "zip", \
            "Latitude": 37.371991, "Longitude": -122.026020, "Address": "", "City": "SUNNYVALE", "State": "CA", \
            "Zip": "94085", "Country": "US"}]
            """
        for text in [image, places, "\"Hello world!\"", "42", "true"] {
            let value = try #require(JSONValue.reading(Data(text.utf8)), "\(text)")
            #expect(value == decoded(text))
        }
        let read = try #require(JSONValue.reading(Data(places.utf8)))
        #expect(read[1]?["Longitude"] == .number(-122.02602))
    }

    @Test("issue 39 P12: 20,000 generated numbers agree with the decoder and with JSONSerialization's value")
    func generatedNumbersAgree() throws {
        var random = SplitMix(seed: 0x4E55)
        var read = 0
        var compared = 0
        for _ in 0..<20_000 {
            let text = Self.number(&random)
            let bytes = Data(text.utf8)
            guard let value = JSONValue.reading(bytes) else {
                #expect(JSONValue(data: bytes) == decoded(text), "\(text)")
                continue
            }
            read += 1
            #expect(value == decoded(text), "\(text)")
            // JSONSerialization on Linux rounds numbers with an exponent or more than 15 digits its own way
            // (916479067223331E-5 is 9164790672.233309 to it, 9164790672.23331 to `strtod` and `JSONDecoder`);
            // compared where it is exact.
            if !text.contains(where: { $0 == "e" || $0 == "E" }), text.filter(\.isNumber).count <= 15 {
                compared += 1
                let serialized = try JSONSerialization.jsonObject(with: Data("[\(text)]".utf8)) as? [NSNumber]
                #expect(value.doubleValue == serialized?.first?.doubleValue, "\(text)")
            }
        }
        #expect(read > 18_000)
        #expect(compared > 3_000)
    }

    /// A random RFC 8259 number: sign, integer part, fraction and exponent of random lengths.
    static func number(_ random: inout SplitMix) -> String {
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(random.below(10))) })
        }
        var text = random.below(3) == 0 ? "-" : ""
        let head = random.below(10) == 0 ? 0 : 1 + random.below(21)
        text += head == 0 ? "0" : String(1 + random.below(9)) + digits(head - 1)
        if random.below(2) == 0 { text += "." + digits(1 + random.below(20)) }
        if random.below(3) == 0 {
            text += ["e", "E"][random.below(2)] + ["", "+", "-"][random.below(3)] + String(random.below(330))
        }
        return text
    }

    @Test("issue 39 P12: long numbers and long exponents get the decoder's value")
    func readsLongNumbers() {
        let texts = [
            // 10,000 zeros before a 1 with an exponent past any `Double`: still past its range, whatever part of the
            // exponent a shortcut would read.
            "0." + String(repeating: "0", count: 9_999) + "1e100000000",
            "0." + String(repeating: "0", count: 9_999) + "1e10000", "1" + String(repeating: "0", count: 400),
            "1." + String(repeating: "3", count: 1_000) + "e-5", "-" + String(repeating: "9", count: 30) + ".5",
            "0e99999999999999999999", "1e-99999999999999999999",
        ]
        for text in texts {
            #expect(JSONValue(data: Data(text.utf8)) == decoded(text), "\(text.prefix(40))")
            if let value = JSONValue.reading(Data(text.utf8)) { #expect(value == decoded(text)) }
        }
    }

    @Test("issue 39 P12: a number past Double's range is the decoder's error, never a trap or an infinity")
    func numberPastDoublesRangeIsAnError() {
        for text in ["1e400", "-1E400", "[1,1e999]", "1" + String(repeating: "0", count: 400)] {
            #expect(JSONValue.reading(Data(text.utf8)) == nil)
            #expect(JSONValue(data: Data(text.utf8)) == nil)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }
        }
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
