import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// The sessions page is read straight from the bytes (`OmnigentListPage<Session>.decode`); these tests hold it to
/// `JSONDecoder`: the same value for every body it reads, and `JSONDecoder`'s own answer (value or error) for
/// every body it leaves alone.
@Suite("Omnigent sessions page read from bytes")
struct SessionDecodingTests {
    static let response = HTTPResponse(
        status: 200, headers: ["Content-Type": "application/json"], url: URL(string: "http://h/v1/sessions"))

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(Client.defaultDateDecoding)
        return decoder
    }

    /// What `JSONDecoder` makes of `body`: the page or the error.
    static func reference(_ body: Data, response: HTTPResponse = response) -> Result<
        OmnigentListPage<Session>, HTTPError
    > {
        Result { () throws(HTTPError) in
            try JSONDecoding.decode(
                OmnigentListPage<Session>.self, from: body, response: response, decoder: decoder())
        }
    }

    static func fast(_ body: Data, response: HTTPResponse = response) -> Result<OmnigentListPage<Session>, HTTPError> {
        Result { () throws(HTTPError) in
            try OmnigentListPage<Session>.decode(body, response: response, decoder: decoder())
        }
    }

    static func page(_ sessions: String, tail: String = #","has_more":false"#) -> Data {
        Data(#"{"object":"list","data":[\#(sessions)]\#(tail)}"#.utf8)
    }

    @Test func theCapturedReplyReadsToWhatJSONDecoderDecodes() throws {
        let body = try ModelTests.fixture("sessions-list")
        let page = try #require(OmnigentListPage<Session>.read(body, decoder: Self.decoder()), "the reader took it")
        #expect(!page.data.isEmpty)
        #expect(Self.fast(body) == Self.reference(body))
    }

    /// One session with every field the model reads set away from its default, in the forms servers write:
    /// escapes, raw UTF-8, a surrogate pair, an ISO stamp with a zone, milliseconds, labels, approvals.
    static let everyField = #"""
        {"id":"ddf346f6b0584305922f8f62d29f8392","title":"Caf\u00e9 \"plan\" \ud83d\ude00 – ç\n\/x",
         "status":"waiting","agent_id":"eac9","agent_name":"debby","archived":true,
         "labels":{"team":"core","k":"v \u00e9"},"project_id":"p-1","pending_elicitations_count":3,
         "pending_elicitations":[{"elicitation_id":"e1","type":"response.elicitation_request",
           "params":{"mode":"form","message":"Allow?","requestedSchema":{"properties":{}}}}],
         "pending_inputs":[{"pending_id":"p1","content":[{"type":"input_text","text":"Reply"}]}],
         "last_task_error":{"code":"native_turn_error","message":"boom"},
         "created_at":"2026-11-30T12:00:00.123456+01:00","updated_at":1796083776123,
         "viewer_unread":true,"viewer_last_seen":-17,"permission_level":4,"owner":"local",
         "nested":{"a":[1,2.5e-3,-0,true,false,null,"s",{"b":[]}]},"comments_count":0}
        """#

    @Test func everyFieldReadsToWhatJSONDecoderDecodes() throws {
        let body = Self.page(Self.everyField, tail: #","first_id":"a","last_id":null,"has_more":true"#)
        // Every field the model reads is in the body, so a field added to `Session` without the reader fails here.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.everyField.utf8)) as? [String: Any])
        for key in Session.CodingKeys.allCases {
            #expect(object[key.rawValue] != nil, "\(key.rawValue) is in the body")
        }
        let page = try #require(OmnigentListPage<Session>.read(body, decoder: Self.decoder()), "the reader took it")
        let session = try #require(page.data.first)
        #expect(session.title == "Café \"plan\" 😀 – ç\n/x")
        #expect(session.labels == ["team": "core", "k": "v é"])
        #expect(session.pendingElicitations?.first?.message == "Allow?")
        #expect(session.pendingInputs?.first?.text == "Reply")
        #expect(session.lastTaskError == TaskError(code: "native_turn_error", message: "boom"))
        #expect(session.viewerLastSeen == -17)
        #expect(page.firstID == "a" && page.lastID == nil && page.hasMore)
        #expect(Self.fast(body) == Self.reference(body))
    }

    @Test func defaultsAndNullsReadAsJSONDecoderReadsThem() throws {
        let bodies = [
            Self.page(#"{"id":"a","created_at":1}"#),
            Self.page(
                #"{"id":"a","title":null,"status":null,"agent_id":null,"agent_name":null,"archived":null,"labels":null,"#
                    + #""project_id":null,"pending_elicitations_count":null,"pending_elicitations":null,"#
                    + #""last_task_error":null,"pending_inputs":null,"created_at":1.25,"updated_at":null,"#
                    + #""viewer_unread":null,"#
                    + #""viewer_last_seen":null}"#),
            Self.page(#"{"id":"a","created_at":"2026-11-30","pending_elicitations":[]}"#),
            Self.page(#"{"id":"a","created_at":1,"last_task_error":"a bare string","pending_inputs":[]}"#),
            Self.page(#" { "id" : "a" , "created_at" : 1796083776 } , {"id":"b","created_at":"1796083776000"} "#),
            Self.page(""),
            Data(#"  {"has_more":false,"data":[]}  "#.utf8),
        ]
        for body in bodies {
            #expect(OmnigentListPage<Session>.read(body, decoder: Self.decoder()) != nil, "the reader took it")
            #expect(Self.fast(body) == Self.reference(body))
        }
    }

    /// Bodies the reader leaves to `JSONDecoder`; the answer is `JSONDecoder`'s, value or error alike.
    @Test func whatTheReaderRefusesGetsJSONDecodersAnswer() throws {
        let bodies = [
            Self.page(#"{"id":"a","created_at":1,"id":"b"}"#),  // a key twice
            Self.page(#"{"id":"a","created_at":1,"pending_elicitations_count":1.0}"#),  // not a plain integer
            Self.page(#"{"id":"a","created_at":1,"title":5}"#),  // wrong type
            Self.page(#"{"title":"x","created_at":1}"#),  // no id
            Self.page(#"{"id":"a"}"#),  // no stamp
            Self.page(#"{"id":"a","created_at":null}"#),
            Self.page(#"{"id":"a","created_at":"yesterday"}"#),
            Self.page(#"{"id":"a","created_at":1e300}"#),
            Self.page(#"{"id":"a\ud800","created_at":1}"#),  // a lone surrogate
            Self.page(#"{"id":"a\q","created_at":1}"#),  // an unknown escape
            Self.page("{\"id\":\"a\tb\",\"created_at\":1}"),  // a raw control character
            Self.page(#"{"id":"a","created_at":1,"labels":{"k":1}}"#),
            Self.page(#"{"id":"a","created_at":1,"labels":{"k":"x","k":"y"}}"#),
            Self.page(#"{"id":"a","created_at":1,"x":01}"#),  // a leading zero
            Self.page(#"{"id":"a","created_at":1,"x":[1,]}"#),  // a trailing comma
            Self.page(#"{"id":"a","created_at":1,"\u0078":1}"#),  // an escaped key
            Self.page(#"{"id":"a","created_at":1,"pending_elicitations":[{"type":"form"}]}"#),
            Self.page(#"{"id":"a","created_at":1}"#, tail: ""),  // no has_more
            Self.page(#"{"id":"a","created_at":1}"#, tail: #","has_more":false} x"#),  // bytes after the end
            Data(#"[]"#.utf8),
            Data(#"{"data":null,"has_more":false}"#.utf8),
            Self.page(
                #"{"id":"a","created_at":1,"deep":"# + String(repeating: "[", count: 300)
                    + String(repeating: "]", count: 300) + "}"),  // nested deeper than the reader goes
            Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]),  // a key that is not UTF-8
            Data(Self.page(#"{"id":"\#u{E9}","created_at":1}"#).dropLast(2)),  // cut short
            Data(#"{"object":"list","data":[{"id":"a","created_at":12"#.utf8),  // cut right after a number
            Data(),
        ]
        for body in bodies {
            #expect(OmnigentListPage<Session>.read(body, decoder: Self.decoder()) == nil, "left to JSONDecoder")
            #expect(Self.fast(body) == Self.reference(body))
        }
        // A body that is not JSON keeps its own error.
        let html = HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], url: URL(string: "http://h/"))
        let page = Self.page(#"{"id":"a","created_at":1}"#)
        #expect(Self.fast(page, response: html) == Self.reference(page, response: html))
        guard case .failure(.unexpectedContentType) = Self.fast(page, response: html) else {
            Issue.record("an HTML reply is refused")
            return
        }
    }

    /// Each key of the model met twice leaves the body to `JSONDecoder` (which of the two counts is its decision),
    /// whatever the key.
    @Test func everyKeyMetTwiceIsLeftToJSONDecoder() throws {
        for key in Session.CodingKeys.allCases.map(\.rawValue) {
            let twice =
                switch key {
                case "id": #""id":"a","id":"a","created_at":1"#
                case "created_at": #""id":"a","created_at":1,"created_at":1"#
                default: #""id":"a","created_at":1,"\#(key)":null,"\#(key)":null"#
                }
            let body = Self.page("{" + twice + "}")
            #expect(OmnigentListPage<Session>.read(body, decoder: Self.decoder()) == nil, "\(key) twice")
            #expect(Self.fast(body) == Self.reference(body), "\(key) twice")
        }
    }

    /// `\u` escapes are read with their hex digits in either case, as `JSONDecoder` reads them.
    @Test func hexEscapesReadInEitherCase() throws {
        let body = Self.page(#"{"id":"a","created_at":1,"title":"\u00C9\u00e9 \u00Ca\u2028x\uD83D\uDE00"}"#)
        let page = try #require(OmnigentListPage<Session>.read(body, decoder: Self.decoder()), "the reader took it")
        #expect(page.data.first?.title == "Éé Ê\u{2028}x😀")
        #expect(Self.fast(body) == Self.reference(body))
    }

    /// An integer of up to 18 digits always fits an `Int` and is read from the bytes; a longer one is left to
    /// `JSONDecoder`, which refuses one past `Int.max`; no overflow traps.
    @Test func integersOfUpTo18DigitsAreReadAndLongerOnesLeftToJSONDecoder() throws {
        for value in [999_999_999_999_999_999, -999_999_999_999_999_999, 123_456_789_012_345_678] {
            let body = Self.page(#"{"id":"a","created_at":1,"viewer_last_seen":\#(value)}"#)
            let page = try #require(OmnigentListPage<Session>.read(body, decoder: Self.decoder()), "\(value) read")
            #expect(page.data.first?.viewerLastSeen == value)
            #expect(Self.fast(body) == Self.reference(body))
        }
        for text in ["9999999999999999999", "-9999999999999999999"] {
            let body = Self.page(#"{"id":"a","created_at":1,"viewer_last_seen":\#(text)}"#)
            #expect(OmnigentListPage<Session>.read(body, decoder: Self.decoder()) == nil, "\(text) left")
            #expect(Self.fast(body) == Self.reference(body))
        }
        let fits = Self.page(#"{"id":"a","created_at":1,"viewer_last_seen":1000000000000000000}"#)
        #expect(Self.fast(fits) == Self.reference(fits))
    }

    @Test func nonASCIIWithoutEscapesIsValidated() throws {
        let body = Self.page(#"{"id":"a","created_at":1,"title":"na\#u{EF}ve \#u{1F600}","x":"\#u{E9}"}"#)
        let page = try #require(OmnigentListPage<Session>.read(body, decoder: Self.decoder()))
        #expect(page.data.first?.title == "naïve 😀")
        var broken = Self.page(#"{"id":"a","created_at":1,"title":"ab"}"#)
        let index = try #require(broken.range(of: Data("ab".utf8))).lowerBound
        broken[index] = 0xC3  // a lead byte followed by ASCII
        #expect(OmnigentListPage<Session>.read(broken, decoder: Self.decoder()) == nil)
        #expect(Self.fast(broken) == Self.reference(broken))
    }

    /// Against the real server: every page of the list, read by the request's own decoding, equals what
    /// `JSONDecoder` makes of the same bytes, including a session whose title and labels need escapes.
    @Test func everyPageOfTheRealServerReadsToWhatJSONDecoderDecodes() async throws {
        let client = TestClients.loopback(try TestServers.omnigent())
        let agents = try await client.send(OmnigentAPI.agents())
        let agent = try #require(agents.data.first)
        let title = "Decoding \"check\" Café 😀 \\ / \(UUID().uuidString)"
        let created = try await client.send(try OmnigentAPI.createSession(agentID: agent.id, title: title))
        _ = try await client.send(try OmnigentAPI.update(created.id, labels: ["ünï": "cödé \"q\"", "plain": "x"]))
        var after: String?
        var pages = 0
        var found: Session?
        repeat {
            let request = OmnigentAPI.sessions(limit: 50, after: after)
            let (page, response) = try await client.exchange(request)
            var raw = Request<Data>.raw(.get, request.path)
            raw.query = request.query
            let body = try await client.send(raw)
            #expect(
                OmnigentListPage<Session>.read(body, decoder: Self.decoder()) != nil, "the reader took page \(pages)")
            #expect(Self.fast(body, response: response) == Self.reference(body, response: response))
            #expect(page.data.count <= 50)
            found = found ?? page.data.first { $0.id == created.id }
            pages += 1
            after = page.hasMore ? page.lastID : nil
        } while after != nil && pages < 100
        let session = try #require(found, "the new session is listed")
        #expect(session.title == title)
        #expect(session.labels == ["ünï": "cödé \"q\"", "plain": "x"])
    }

    @Test(
        "Item 10: a sessions page without has_more decodes as the last page (WatchCompanionTests.testGroupsDecodedSessionsByStateAndProject)"
    )
    func aPageWithoutHasMoreIsTheLast() throws {
        let body = Data(#"{"data":[{"id":"approval","title":"Review","status":"waiting","created_at":1}]}"#.utf8)
        let page = try Self.fast(body).get()
        #expect(page.data.map(\.id) == ["approval"])
        #expect(!page.hasMore)
        let items = try JSONDecoder().decode(
            OmnigentListPage<SessionItem>.self,
            from: Data(
                #"{"data":[{"id":"u","type":"message","role":"user","content":[{"type":"input_text","text":"Q"}],"created_at":1}]}"#
                    .utf8))
        #expect(items.data.map(\.text) == ["Q"] && !items.hasMore)
    }

    /// Bodies where a value is missing or is not JSON at the place the reader stops: each is left to
    /// `JSONDecoder` (its error), never read as a value the body does not hold, and never read past its end.
    @Test func aMissingOrBrokenValueIsLeftToJSONDecoder() throws {
        let bodies = [
            // No value before the closing brace, where a literal (`null`, `true`, `false`) would be longer
            // than what is left of the body.
            Data(#"{"has_more":false,"data":[{"id":"a","created_at":1,"title":}]}"#.utf8),
            Data(#"{"data":[],"has_more":}"#.utf8),
            // Cut right after a member's colon: the body ends where the value should start.
            Data(#"{"has_more":false,"data":[{"id":"a","created_at":"#.utf8),
            Data(#"{"has_more":false,"data":[{"id":"a","created_at":1,"x":"#.utf8),
            // A number runs up to a delimiter: `1:` is not a number (`:` is the byte after `9`).
            Data(#"{"has_more":false,"data":[{"id":"a","created_at":1:}]}"#.utf8),
            Data(#"{"has_more":false,"data":[{"id":"a","created_at":1,"viewer_last_seen":2:}]}"#.utf8),
        ]
        for body in bodies {
            let text = String(decoding: body, as: UTF8.self)
            #expect(
                OmnigentListPage<Session>.read(body, decoder: Self.decoder()) == nil, "left to JSONDecoder: \(text)")
            #expect(Self.fast(body) == Self.reference(body), "\(text)")
        }
    }

    /// Every two-character escape JSON has (`\b`, `\f`, `\n`, `\r`, `\t`, `\"`, `\\`, `\/`) is read from the
    /// bytes to the character `JSONDecoder` reads.
    @Test func everyShortEscapeReadsAsJSONDecoderReadsIt() throws {
        let body = Self.page(#"{"id":"a","created_at":1,"title":"\b\f\n\r\t\"\\\/ end"}"#)
        let page = try #require(OmnigentListPage<Session>.read(body, decoder: Self.decoder()), "the reader took it")
        #expect(page.data.first?.title == "\u{08}\u{0C}\n\r\t\"\\/ end")
        #expect(Self.fast(body) == Self.reference(body))
    }

    /// A value nested `JSONPullReader.maximumDepth` (256) levels deep is read from the bytes; one level more is
    /// left to `JSONDecoder`.
    @Test func nestingIsReadUpToTheReadersDepthAndDeeperLeftToJSONDecoder() throws {
        func body(depth: Int) -> Data {
            Self.page(
                #"{"id":"a","created_at":1,"deep":"# + String(repeating: "[", count: depth)
                    + String(repeating: "]", count: depth) + "}")
        }
        let deepest = body(depth: JSONPullReader.maximumDepth)
        #expect(OmnigentListPage<Session>.read(deepest, decoder: Self.decoder()) != nil, "256 levels read")
        #expect(Self.fast(deepest) == Self.reference(deepest))
        let deeper = body(depth: JSONPullReader.maximumDepth + 1)
        #expect(OmnigentListPage<Session>.read(deeper, decoder: Self.decoder()) == nil, "257 levels left")
        #expect(Self.fast(deeper) == Self.reference(deeper))
    }
}

extension SessionDecodingTests {
    /// O-ERR-3: each key of the page itself met twice leaves the body to `JSONDecoder`, as the session's keys do.
    @Test func everyPageKeyMetTwiceIsLeftToJSONDecoder() throws {
        let twice = [
            #"{"data":[],"data":[],"has_more":false}"#,
            #"{"data":[],"first_id":"a","first_id":"b","has_more":false}"#,
            #"{"data":[],"last_id":"a","last_id":null,"has_more":false}"#,
            #"{"data":[],"has_more":true,"has_more":false}"#,
        ]
        for text in twice {
            let body = Data(text.utf8)
            #expect(OmnigentListPage<Session>.read(body, decoder: Self.decoder()) == nil, "\(text)")
            #expect(Self.fast(body) == Self.reference(body), "\(text)")
        }
        let once = Data(#"{"has_more":false,"last_id":"z","first_id":"a","data":[]}"#.utf8)
        let page = try #require(OmnigentListPage<Session>.read(once, decoder: Self.decoder()), "the reader took it")
        #expect(page.firstID == "a" && page.lastID == "z" && !page.hasMore)
    }
}
