import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

#if os(Linux)
    /// Response header fields as `CurlTransport` hands them to the kit, against the fault server's `/odd-headers`,
    /// which writes them untidily on purpose. `CurlTransport` parses libcurl's header lines itself, on their bytes.
    /// (URLSession on Linux fails on that reply with "Failed writing header": FoundationNetworking's own limit.)
    @Suite("CurlTransport's response header fields")
    struct ResponseHeaderTests {
        @Test(
            "a field's value loses the spaces and tabs around it (not inside), a repeated field is joined with a comma, an empty one stays, UTF-8 is read as such"
        )
        func untidyFields() async throws {
            let url = try #require(URL(string: "odd-headers?utf8=1", relativeTo: try TestServers.fault()))
            let (response, body) = try await CurlTransport().send(HTTPRequest(url: url))
            #expect(response.status == 200)
            #expect(try await body.collect(upTo: 1 << 10) == Data("{}".utf8))
            #expect(response.headers["x-padded"] == "padded  value")
            #expect(response.headers["X-Twice"] == "one, two")
            #expect(response.headers["X-Empty"] == "")
            #expect(response.headers["X-Word"] == "café")
            #expect(response.headers["Content-Type"] == "application/json")
        }

        @Test(
            "request header lines go out as written: `name: value`, an empty value empty, UTF-8 as such; the user's language unless the request names one; no Expect line without a body"
        )
        func requestHeaderLines() async throws {
            let url = try #require(URL(string: "echo-headers", relativeTo: try TestServers.fault()))
            let headers: HTTPHeaders = [
                "User-Agent": "CompanionKit/0.1", "Accept": "application/json", "X-Empty": "", "X-Word": "café",
            ]
            let (_, body) = try await CurlTransport().send(HTTPRequest(url: url, headers: headers))
            let echoed = try JSONDecoder().decode(JSONValue.self, from: try await body.collect(upTo: 1 << 16))
            let sent = try #require(echoed["headers"])
            #expect(sent["user-agent"] == "CompanionKit/0.1")
            #expect(sent["accept"] == "application/json")
            #expect(sent["x-empty"] == "")
            // Python's http.server reads header bytes as Latin-1: the two UTF-8 bytes of é arrive as two characters.
            #expect(sent["x-word"]?.stringValue == "caf\u{C3}\u{A9}")
            #expect(sent["accept-language"] != nil)
            #expect(sent["expect"] == nil)
            var named = headers
            named["Accept-Language"] = "de"
            let (_, again) = try await CurlTransport().send(HTTPRequest(url: url, headers: named))
            let echoedAgain = try JSONDecoder().decode(JSONValue.self, from: try await again.collect(upTo: 1 << 16))
            #expect(echoedAgain["headers"]?["accept-language"] == "de")
        }

        @Test("the status comes from the status line's second word")
        func statusFromTheStatusLine() async throws {
            let (response, _) = try await CurlTransport().send(
                HTTPRequest(url: try TestServers.fault().appendingPathComponent("status/418")))
            #expect(response.status == 418)
        }
    }
#endif
