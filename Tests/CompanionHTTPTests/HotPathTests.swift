import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The request path's short cuts (issue 28, P1) give what the long ways gave: header lookups, the media type, a
/// body already in memory, URLs built without Foundation's percent-encoding, JSON values read from the bytes.
@Suite("The client's hot path: same answers as the slow ways")
struct HotPathTests {
    @Test("header names compare ignoring case, also where a letter outside ASCII decides")
    func headerNamesIgnoreCase() {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Content-Length": "2", "X-Ä": "umlaut"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-LENGTH"] == "2")
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content-Types"] == nil)
        #expect(headers["Dontent-Type"] == nil)
        #expect(headers["x-ä"] == "umlaut")
        #expect(headers["X-A"] == nil)
        headers["content-length"] = "3"
        #expect(headers.count == 3)
        #expect(headers["Content-Length"] == "3")
        headers["CONTENT-TYPE"] = nil
        #expect(headers.count == 2)
        // Only letters fold: `[` (0x5B) and `{` (0x7B) differ by the case bit and are different names.
        let brackets: HTTPHeaders = ["A[": "1"]
        #expect(brackets["a{"] == nil)
        #expect(brackets["a["] == "1")
    }

    @Test(
        "the media type is the first part of Content-Type, trimmed and lowercased",
        arguments: [
            ("application/json", "application/json"), ("Application/JSON; charset=utf-8", "application/json"),
            (" text/html ;q=1", "text/html"), ("\ttext/plain", "text/plain"),
            ("text/event-stream", "text/event-stream"),
            (";charset=utf-8", "charset=utf-8"), ("   ", ""), ("", nil),
            ("APPLICATION/PROBLEM+JSON", "application/problem+json"),
        ] as [(String, String?)])
    func mediaType(_ value: String, _ expected: String?) {
        #expect(HTTPResponse(status: 200, headers: ["Content-Type": value]).mediaType == expected)
    }

    @Test("a response's media type and length are read once and follow its headers when they change")
    func responseHeadReadOnce() {
        var response = HTTPResponse(
            status: 200, headers: ["Content-Type": "Text/HTML; charset=utf-8", "Content-Length": "12"])
        #expect(response.mediaType == "text/html")
        #expect(response.contentLength == 12)
        response.headers["content-type"] = "application/json"
        response.headers["Content-Length"] = "x"
        #expect(response.mediaType == "application/json")
        #expect(response.contentLength == nil)
        response.headers = ["Content-Length": "7"]
        #expect(response.mediaType == nil)
        #expect(response.contentLength == 7)
        // Equality and hashing follow the status, the headers and the URL, as before.
        let same = HTTPResponse(status: 200, headers: ["content-length": "7"])
        #expect(response == same)
        #expect(Set([response, same]).count == 1)
    }

    @Test("a route asked for again gets the same URL; another path or query gets its own")
    func repeatedRoutes() throws {
        let client = Client(baseURL: try #require(URL(string: "https://api.example.com/mount")))
        let asked: [(String, Query)] = [
            ("/a", Query()), ("/a", Query()), ("/b", Query()), ("/a", ["n": "1"]), ("/a", ["n": "1"]),
            ("/a", ["n": "2"]), ("/a?n=2", Query()), ("/a", Query()),
        ]
        for (path, query) in asked {
            let url = try client.url(for: path, query: query)
            let text = query.isEmpty ? path : path + "?" + query.map { "\($0.name)=\($0.value ?? "")" }.joined()
            #expect(url.absoluteString == "https://api.example.com/mount" + text)
        }
    }

    @Test("a body held in memory is collected without a stream: same bytes, same limit, one report to its observer")
    func bufferedBodyCollects() async throws {
        let reports = Reports()
        let body = HTTPBody(Data("{\"a\":1}".utf8)).observed { bytes, error in reports.add(bytes, error) }
        #expect(try await body.collect(upTo: 100) == Data("{\"a\":1}".utf8))
        #expect(reports.all == ["7 ok"])
        await #expect(throws: HTTPError.self) { _ = try await HTTPBody(Data(count: 10)).collect(upTo: 9) }
        var chunks: [Data] = []
        for try await chunk in HTTPBody(Data("xy".utf8)) { chunks.append(chunk) }
        #expect(chunks == [Data("xy".utf8)])
        for try await _ in HTTPBody.empty { Issue.record("an empty body yields no chunk") }
    }

    @Test(
        "request URLs are percent-encoded as Foundation encodes them",
        arguments: [
            "/v1/sessions", "/a b/ü", "/x%2Fy", "/q?a=1&b=c d", "/s?x=ü&y=%41", "/p:@!$&'()*+,;=-._~", "/h#frag",
        ])
    func urlsEncodeLikeFoundation(_ path: String) throws {
        let client = Client(baseURL: try #require(URL(string: "https://api.example.com/mount/")))
        let url = try client.url(for: path, query: [URLQueryItem(name: "n m", value: "v&w")])
        let (pathPart, queryPart) =
            path.firstIndex(of: "?").map { (String(path[..<$0]), String(path[path.index(after: $0)...])) } ?? (
                path, nil
            )
        let pathAllowed = CharacterSet.urlPathAllowed.union(CharacterSet(charactersIn: "%"))
        let queryAllowed = CharacterSet.urlQueryAllowed.union(CharacterSet(charactersIn: "%"))
        var expected =
            "https://api.example.com/mount" + (pathPart.addingPercentEncoding(withAllowedCharacters: pathAllowed) ?? "")
        let query = (queryPart?.addingPercentEncoding(withAllowedCharacters: queryAllowed)).map { $0 + "&" } ?? ""
        expected += "?" + query + "n%20m=v%26w"
        #expect(url.absoluteString == expected)
    }

    @Test("the transport policy refuses every path below a refused base, and permits every path below a permitted one")
    func policyHoldsForEveryPath() throws {
        let refused = Client(baseURL: try #require(URL(string: "http://example.com/mount")))
        let permitted = Client(
            baseURL: try #require(URL(string: "http://127.0.0.1:9/mount")),
            configuration: Client.Configuration(transportPolicy: .allowingInsecureLoopback))
        for path in ["/", "/x", "//evil.example/x", "/@evil.example", "/x?y=https://evil.example"] {
            #expect(throws: HTTPError.self) { try refused.httpRequest(for: Request<JSONValue>.get(path)) }
            let request = try permitted.httpRequest(for: Request<JSONValue>.get(path))
            #expect(request.url.host == "127.0.0.1")
            #expect(TransportPolicy.allowingInsecureLoopback.permits(request.url))
        }
    }

    @Test("JSON values arrive as the decoder reads them, also where the reader leaves the body to it")
    func jsonValuesDecodeAsBefore() async throws {
        let bodies = [#"{"a":[1,2.5,"x",null,true]}"#, "[1,2,]", #"{"k":1.0}"#]
        for body in bodies {
            let transport = ScriptedTransport([
                .respond(status: 200, headers: ["Content-Type": "application/json"], body: body)
            ])
            let client = Client(baseURL: try #require(URL(string: "https://api.example.com")), transport: transport)
            let value = try await client.send(Request<JSONValue>.get("/v"))
            #expect(value == (try JSONDecoder().decode(JSONValue.self, from: Data(body.utf8))))
        }
        let broken = ScriptedTransport([
            .respond(status: 200, headers: ["Content-Type": "application/json"], body: "{oops")
        ])
        let client = Client(baseURL: try #require(URL(string: "https://api.example.com")), transport: broken)
        await #expect {
            _ = try await client.send(Request<JSONValue>.get("/v"))
        } throws: { error in
            guard case .undecodable(let failure) = error as? HTTPError else { return false }
            return failure.url == "https://api.example.com/v"
        }
    }
}

/// What an observer was told, in order.
private final class Reports: Sendable {
    private let reports = Locked<[String]>([])
    func add(_ bytes: Int, _ error: HTTPError?) {
        reports.withLock { $0.append("\(bytes) \(error == nil ? "ok" : "failed")") }
    }
    var all: [String] { reports.withLock { $0 } }
}
