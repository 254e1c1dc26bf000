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

        @Test("the status comes from the status line's second word")
        func statusFromTheStatusLine() async throws {
            let (response, _) = try await CurlTransport().send(
                HTTPRequest(url: try TestServers.fault().appendingPathComponent("status/418")))
            #expect(response.status == 418)
        }
    }
#endif
