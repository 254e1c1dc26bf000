import CompanionCore
import CompanionHTTP
import Foundation
import Testing

@testable import OmnigentCore

/// O-ERR-3: `JSONPullReader`, site by site. Each row is a sessions page the reader either takes (and must read to
/// exactly what `JSONDecoder` decodes) or leaves to `JSONDecoder` (whose value or error is then the answer): a
/// reader that takes a body `JSONDecoder` refuses, reads one to another value, or refuses one it should read
/// fails here. The rows are the bodies at each of the reader's boundaries: whitespace kinds, every literal, every
/// escape, `\u` in both cases and every hex digit, surrogate pairs, numbers at each digit and grammar limit,
/// nesting at the depth limit, keys that are prefixes of known keys, and a body cut at every byte.
struct JSONPullReaderTableTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let body: Data
        /// Whether the reader reads the body itself (else it leaves it to `JSONDecoder`).
        let taken: Bool
        var testDescription: String { name }
    }

    /// A page of one session with `fields` after its id and stamp.
    static func session(_ fields: String) -> Data {
        SessionDecodingTests.page(#"{"id":"a","created_at":1796083776\#(fields.isEmpty ? "" : ",")\#(fields)}"#)
    }

    /// A page of one session whose bytes are `head`, the raw `bytes`, then `tail`.
    static func raw(_ head: String, _ bytes: [UInt8], _ tail: String) -> Data {
        Data(head.utf8) + Data(bytes) + Data(tail.utf8)
    }

    static func take(_ name: String, _ fields: String) -> Row { Row(name: name, body: session(fields), taken: true) }
    static func leave(_ name: String, _ fields: String) -> Row {
        Row(name: name, body: session(fields), taken: false)
    }

    static let depth = JSONPullReader.maximumDepth

    static let rows: [Row] = [
        // Whitespace: the four JSON kinds anywhere between tokens, runs of one and of several; others refused.
        Row(
            name: "every whitespace kind between every token, and after the end",
            body: Data(
                " \t\n\r{ \t\n\r\"object\" \t\n\r: \t\n\r\"list\"\t,\n\"data\"\r:\n[\t{ \"id\" : \"a\" , \"created_at\" : 1796083776 } ] , \"has_more\" :\tfalse } \t\r\n"
                    .utf8),
            taken: true),
        Row(
            name: "single spaces between every token",
            body: Data(
                #"{ "data" : [ { "id" : "a" , "created_at" : 1796083776 , "u" : [ 1 , "x" ] } ] , "has_more" : true }"#
                    .utf8),
            taken: true),
        leave("a form feed is not JSON whitespace", "\u{0C}\"u\":1"),
        leave("a vertical tab is not JSON whitespace", "\u{0B}\"u\":1"),
        leave("a no-break space is not JSON whitespace", "\u{A0}\"u\":1"),
        // Literals, read and skipped.
        take("archived true, viewer_unread false", #""archived":true,"viewer_unread":false"#),
        take("archived false, viewer_unread true", #""archived":false,"viewer_unread":true"#),
        take("null and a string title", #""title":null,"agent_name":"x""#),
        take(
            "unknown members of every kind",
            #""u1":true,"u2":false,"u3":null,"u4":-1.5e+3,"u5":"x","u6":{},"u7":[],"u8":{"a":[1,{"b":null}]},"u9":{ },"u0":[ ]"#
        ),
        leave("a literal cut short", #""archived":tru"#),
        leave("a literal with a capital", #""archived":True"#),
        leave("a literal run on", #""title":nullx"#),
        leave("an unknown literal cut short", #""u":fals"#),
        Row(
            name: "a member with no value, three bytes before the end",
            body: Data(#"{"has_more":false,"data":[{"id":"a","created_at":1,"title":}]}"#.utf8), taken: false),
        Row(
            name: "an unknown member with no value, three bytes before the end",
            body: Data(#"{"has_more":false,"data":[{"id":"a","created_at":1,"u":}]}"#.utf8), taken: false),
        // Strings: raw UTF-8, control characters, the two characters that end a scan.
        take("a key that is not ASCII", #""tïtle":1,"é":"é""#),
        take("a space, DEL and raw UTF-8 in a string", "\"title\":\"a b\u{7F}é😀\""),
        leave("a raw control character 0x1F", "\"title\":\"a\u{1F}\""),
        leave("a raw control character in an unknown member", "\"u\":\"a\u{01}\""),
        Row(
            name: "a lone continuation byte 0x80",
            body: raw(#"{"data":[{"id":"a","created_at":1,"title":""#, [0x80], #""}],"has_more":false}"#),
            taken: false),
        Row(
            name: "a byte 0xFF in an unknown member",
            body: raw(#"{"data":[{"id":"a","created_at":1,"u":"x"#, [0xFF], #""}],"has_more":false}"#),
            taken: false),
        Row(
            name: "a cut UTF-8 sequence in a title",
            body: raw(#"{"data":[{"id":"a","created_at":1,"title":""#, [0xC3], #""}],"has_more":false}"#),
            taken: false),
        take("an escaped backslash just before the closing quote", #""title":"x\\","agent_name":"\"""#),
        take("an escaped quote first", #""title":"\"x","agent_name":"\\\\\"""#),
        Row(
            name: "a raw tab in an unknown string, then bytes that would read on as members",
            body: session("\"u\":\"\t,\"w\":\"\",\"v\":1"), taken: false),
        Row(
            name: "a raw tab in a label, then bytes that would read on as labels",
            body: session("\"labels\":{\"k\":\"\t,\"j\":\"x\"}"), taken: false),
        Row(
            name: "a raw tab in the page's first_id, then bytes that would read on as members",
            body: Data("{\"data\":[],\"first_id\":\"\t,\"w\":\"\",\"has_more\":false}".utf8), taken: false),
        // Escapes in a value the reader reads and in one it skips.
        take("every single escape in a skipped value", #""u":"\n\"\\\/\b\f\r\t\u00e9""#),
        take("every single escape, each last in its string", #""title":"\n","agent_name":"\/","status":"\t","u":"\b""#),
        take("every hex digit, both cases, \\u last", #""title":"\u0123\u4567\u89ab\ucdef\u89AB\uCDEF\u00e9""#),
        take("\\u0000 and \\u001f", #""title":"\u0000\u001f""#),
        take("a surrogate pair ending the string", #""title":"\ud83d\ude00""#),
        take("a surrogate pair in capitals, inside", #""title":"a\uD83D\uDE00b","u":"\ud83d\ude00""#),
        take("the last scalar", #""title":"\udbff\udfff""#),
        leave("a lone high surrogate", #""title":"\ud83d""#),
        leave("a high surrogate then a short escape", #""title":"\ud83d\n""#),
        leave("a high surrogate then a letter", #""title":"\ud83dx""#),
        leave("a high surrogate then a non-surrogate", #""title":"\ud83d\u0041""#),
        leave("two high surrogates", #""title":"\ud83d\ud83d""#),
        leave("a high surrogate then a short \\u", #""title":"\ud83d\ude0""#),
        leave("a lone low surrogate", #""title":"\ude00""#),
        leave("a short \\u", #""u":"\u00e""#),
        leave("a \\u with a bad hex digit", #""u":"\u00eg""#),
        leave("a \\u with a capital G", #""title":"\u00G0""#),
        leave("an unknown escape in a skipped value", #""u":"\q""#),
        leave("an escaped key", #""\u0069d2":1"#),
        // Integers (`pending_elicitations_count`, `viewer_last_seen`).
        take("integers 0, 7 and 10", #""pending_elicitations_count":0,"viewer_last_seen":10,"u":7"#),
        take("negative integers -1 and -12", #""pending_elicitations_count":-1,"viewer_last_seen":-12"#),
        take("negative zero as an integer", #""pending_elicitations_count":-0"#),
        take("every digit", #""viewer_last_seen":1234567890,"pending_elicitations_count":9876543210"#),
        take("18 digits", #""viewer_last_seen":999999999999999999,"pending_elicitations_count":-999999999999999999"#),
        leave("19 digits, within Int", #""viewer_last_seen":9223372036854775807"#),
        leave("19 digits, negative, within Int", #""viewer_last_seen":-9223372036854775808"#),
        leave("19 digits, beyond Int", #""viewer_last_seen":9999999999999999999"#),
        leave("20 digits", #""viewer_last_seen":99999999999999999999"#),
        leave("an integer written 1.0", #""viewer_last_seen":1.0"#),
        leave("an integer written 1e2", #""viewer_last_seen":1e2"#),
        // The number grammar, in a skipped value and in a stamp.
        take("a number before each delimiter", "\"u\":[1,2 ,3\t,4\n,5\r],\"v\":{\"x\":6},\"w\":{\"x\":7 },\"y\":8"),
        take("numbers with every exponent form", #""u":[1e5,1E5,1e+5,1e-5,1E-5,1E+5,0.5,-0.0,-0e0,0e0,10.25e-2]"#),
        take("each digit in a skipped number", #""u":[0,1,2,3,4,5,6,7,8,9,19,90,-9]"#),
        leave("a leading zero", #""u":01"#),
        leave("a negative leading zero", #""u":-01"#),
        leave("a plus sign", #""u":+1"#),
        leave("a bare fraction", #""u":.5"#),
        leave("a bare minus", #""u":-"#),
        leave("two minus signs", #""u":--1"#),
        leave("a dot with no digits", #""u":1."#),
        leave("a dot then an exponent", #""u":1.e5"#),
        leave("an exponent with no digits", #""u":1e"#),
        leave("an exponent sign with no digits", #""u":1e+"#),
        leave("letters after a number", #""u":12abc"#),
        leave("a colon after a number", #""u":[1:]"#),
        leave("a slash after a number", #""u":[1/]"#),
        take("a stamp with a fraction", #""updated_at":1796083776.5"#),
        take("a stamp with an exponent", #""updated_at":1.796083776E9"#),
        take("a stamp with a negative exponent", #""updated_at":17960837760e-1"#),
        take("a stamp in milliseconds", #""updated_at":1796083776123"#),
        take("a negative stamp", #""updated_at":-1796083776"#),
        take("a stamp of negative zero", #""updated_at":-0"#),
        take("a negative stamp with a fraction", #""updated_at":-12.5"#),
        take("a stamp of 15 digits", #""updated_at":179608377612300"#),
        leave("a stamp with a leading zero", #""updated_at":01796083776"#),
        // Keys that are prefixes, extensions or cases of the keys read.
        take(
            "keys next to the known ones",
            #""i":1,"idx":1,"iD":1,"ID":1,"created":1,"created_a":1,"created_att":1,"titles":1,"titl":1"#),
        // Nesting at the reader's depth limit (256): a body that is not JSON only at the deepest level.
        take(
            "256 levels, innermost empty",
            #""u":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)),
        leave(
            "256 levels, a comma with no elements at the deepest",
            #""u":"# + String(repeating: "[", count: depth - 1) + "[,]" + String(repeating: "]", count: depth - 1)),
        leave(
            "256 levels, an object with a member missing its value at the deepest",
            #""u":"# + String(repeating: "[", count: depth - 1) + #"{"k":,"j":}"#
                + String(repeating: "]", count: depth - 1)),
        leave(
            "256 levels, a member with no value at the deepest",
            #""u":"# + String(repeating: #"{"k":"#, count: depth) + "}" + String(repeating: "}", count: depth - 1)),
        take(
            "255 levels, a value at the deepest",
            #""u":"# + String(repeating: "[", count: depth - 1) + "1" + String(repeating: "]", count: depth - 1)),
        leave(
            "256 levels, a value at the deepest",
            #""u":"# + String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)),
    ]

    @Test("O-ERR-3: each body at a reader boundary is read as JSONDecoder reads it, or left to it", arguments: rows)
    func row(_ row: Row) throws {
        let read = OmnigentListPage<Session>.read(row.body, decoder: SessionDecodingTests.decoder())
        #expect((read != nil) == row.taken, row.taken ? "the reader took it" : "left to JSONDecoder")
        let reference = SessionDecodingTests.reference(row.body)
        if row.taken { #expect(read == (try? reference.get()), "JSONDecoder reads it to the same page") }
        #expect(SessionDecodingTests.fast(row.body) == reference)
    }

    /// A body cut at every byte is never taken (only the whole object is), and each cut gets `JSONDecoder`'s
    /// own answer.
    @Test("O-ERR-3: a page cut at every byte is left to JSONDecoder")
    func aBodyCutAtEveryByteIsLeftToJSONDecoder() throws {
        let whole = SessionDecodingTests.page(
            #"{"id":"a\u00e9\ud83d\ude00","created_at":1796083776.5,"title":"x\\\"","archived":true,"#
                + #""labels":{"k":"v"},"viewer_last_seen":-17,"u":[null,false,1e-2,{"é":[]}]}"#,
            tail: #","first_id":null,"has_more":true"#)
        #expect(OmnigentListPage<Session>.read(whole, decoder: SessionDecodingTests.decoder()) != nil)
        for count in 0..<whole.count {
            let cut = Data(whole.prefix(count))
            #expect(
                OmnigentListPage<Session>.read(cut, decoder: SessionDecodingTests.decoder()) == nil, "cut at \(count)")
            #expect(SessionDecodingTests.fast(cut) == SessionDecodingTests.reference(cut), "cut at \(count)")
        }
    }
}
