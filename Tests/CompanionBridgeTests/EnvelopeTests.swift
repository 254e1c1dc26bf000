import CompanionCore
import Foundation
import Testing

@testable import CompanionBridge

/// The message envelope codec and semantic JSON equality.
struct EnvelopeTests {
    static func json(_ text: String) -> JSONValue {
        JSONValue(data: Data(text.utf8)) ?? .string("not json: \(text)")
    }

    struct Rejected: Sendable, CustomTestStringConvertible {
        let body: String
        let dialect: BridgeDialect
        let error: BridgeEnvelopeError
        var testDescription: String { "\(dialect) \(body)" }
    }

    static let rejected: [Rejected] = [
        Rejected(body: "not json", dialect: .request, error: .notJSON),
        Rejected(body: "", dialect: .request, error: .notJSON),
        Rejected(body: "[1]", dialect: .request, error: .notAnObject),
        Rejected(body: "\"x\"", dialect: .method, error: .notAnObject),
        Rejected(body: "null", dialect: .method, error: .notAnObject),
        // P-OPEN-14: no id, or an unusable one, is dropped.
        Rejected(body: #"{"op":"schedule.get"}"#, dialect: .request, error: .missingID),
        Rejected(body: #"{"id":null,"op":"schedule.get"}"#, dialect: .request, error: .missingID),
        Rejected(body: #"{"id":1.5,"op":"schedule.get"}"#, dialect: .request, error: .missingID),
        Rejected(body: #"{"id":{},"op":"schedule.get"}"#, dialect: .request, error: .missingID),
        Rejected(body: #"{"id":"1"}"#, dialect: .request, error: .missingName("op")),
        Rejected(body: #"{"id":"1","op":""}"#, dialect: .request, error: .missingName("op")),
        Rejected(body: #"{"id":"1","op":7}"#, dialect: .request, error: .missingName("op")),
        Rejected(body: #"{"count":1}"#, dialect: .method, error: .missingName("method")),
        Rejected(body: #"{"method":null}"#, dialect: .method, error: .missingName("method")),
    ]

    @Test("P-OPEN-14: malformed envelopes are typed errors", arguments: rejected)
    func rejects(_ row: Rejected) {
        #expect(throws: row.error) { try BridgeEnvelopeCodec.decode(Data(row.body.utf8), dialect: row.dialect) }
    }

    @Test("Oversized messages are refused before parsing")
    func tooLarge() {
        let data = Data(repeating: 0x20, count: BridgeEnvelopeCodec.maximumBytes + 1)
        #expect(throws: BridgeEnvelopeError.tooLarge) { try BridgeEnvelopeCodec.decode(data, dialect: .request) }
    }

    @Test("Requests decode, and encode back to the same meaning in both dialects")
    func roundTrip() throws {
        let request = try BridgeEnvelopeCodec.decode(
            Data(#"{"id":7,"op":"schedule.set","args":{"v":1,"picks":[]}}"#.utf8), dialect: .request)
        #expect(request.id == .integer(7))
        #expect(request.op == "schedule.set")
        let again = try BridgeEnvelopeCodec.decode(
            BridgeEnvelopeCodec.json(request, dialect: .request), dialect: .request)
        #expect(again.semanticallyEquals(request))
        let method = try BridgeEnvelopeCodec.decode(
            Self.json(#"{"method":"setBadgeCount","count":3}"#), dialect: .method)
        #expect(method.op == "setBadgeCount")
        #expect(method.args == .object(["count": .integer(3)]))
        #expect(
            BridgeEnvelopeCodec.json(method, dialect: .method) == Self.json(#"{"count":3,"method":"setBadgeCount"}"#))
        // A missing args member is null.
        #expect(try BridgeEnvelopeCodec.decode(Self.json(#"{"id":"a","op":"x"}"#), dialect: .request).args == .null)
    }

    @Test("Semantic equality: 1 == 1.0, member order ignored, array order kept")
    func semantic() {
        let pairs: [(String, String, Bool)] = [
            (#"{"a":1,"b":[1,2]}"#, #"{"b":[1.0,2e0],"a":1.0}"#, true),
            (#"[1,2]"#, #"[2,1]"#, false),
            (#"{"a":1}"#, #"{"a":1,"b":null}"#, false),
            (#"{"a":"1"}"#, #"{"a":1}"#, false),
            (#"true"#, #"1"#, false),
            (#"null"#, #"null"#, true),
            (#"9007199254740993"#, #"9007199254740993"#, true),
        ]
        for (left, right, equal) in pairs {
            #expect(Self.json(left).semanticallyEquals(Self.json(right)) == equal, "\(left) vs \(right)")
            #expect(Self.json(right).semanticallyEquals(Self.json(left)) == equal, "symmetry \(left)")
        }
    }

    @Test("Replies have the P-OPEN-14 shape")
    func replies() {
        let success = BridgeReply(id: .string("a"), outcome: .success(.object(["x": .integer(1)])))
        #expect(
            String(decoding: BridgeEnvelopeCodec.encode(success), as: UTF8.self)
                == #"{"id":"a","ok":true,"result":{"x":1}}"#)
        let failure = BridgeReply(id: .integer(2), outcome: .failure(.unknownOp("nope")))
        #expect(failure.json["error"]?["code"] == .string("unknown_op"))
        #expect(failure.json["ok"] == .bool(false))
    }
}
