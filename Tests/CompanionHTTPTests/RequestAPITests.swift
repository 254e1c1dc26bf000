import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The request API (issue 35 item 6; docs/architecture.md K-REQ-1..5): labels, `Void` factories, the one query type,
/// the one path-segment escaper, against the fault server where the wire shows the rule.
@Suite("The request API: labels, Void factories, one query type, one segment escaper")
struct RequestAPITests {
    private func client(journal: Journal = Journal()) throws -> Client {
        TestClients.loopback(try TestServers.fault(), timeout: .seconds(10), journal: journal)
    }

    @Test("K-REQ-1: a request's label is on its request, response and error events, and never sent")
    func labelsReachTheJournalOnly() async throws {
        let journal = Journal()
        let echo = try await client(journal: journal).send(
            Request<JSONValue>.get("/echo").labelled("load the echo"))
        #expect(!echo.jsonString().contains("load the echo"), "the label went out with the request")
        let exchange = journal.events.filter { $0.kind == .request || $0.kind == .response }
        #expect(exchange.map(\.kind) == [.request, .response])
        #expect(exchange.map(\.requestLabel) == ["load the echo", "load the echo"])

        let refusedJournal = Journal()
        let nowhere = TestClients.loopback(
            try #require(URL(string: "http://127.0.0.1:1")), timeout: .seconds(5), journal: refusedJournal)
        await #expect(throws: HTTPError.self) {
            try await nowhere.send(Request<JSONValue>.get("/x").labelled("reach nobody"))
        }
        let failed = refusedJournal.events.filter { $0.kind == .error }
        #expect(failed.count == 1 && failed.first?.requestLabel == "reach nobody")
        let unlabelled = Journal()
        _ = try await client(journal: unlabelled).send(Request<JSONValue>.get("/echo"))
        #expect(unlabelled.events.allSatisfy { $0.requestLabel == nil })
    }

    @Test("K-REQ-2: Void requests have the same factories: a JSON body encoded at send, a 204 read as nothing")
    func voidFactories() async throws {
        let client = try client()
        let posted = try await client.reply(Request<Void>.post("/echo", body: ["a": 1]))
        let echo = try #require(JSONValue(data: posted.body))
        #expect(echo["method"]?.stringValue == "POST" && echo["body"]?.stringValue == #"{"a":1}"#)
        #expect(echo["headers"]?["content-type"]?.stringValue == "application/json")
        let form = try #require(
            JSONValue(data: try await client.reply(Request<Void>.post("/echo", form: ["k": "a b"])).body))
        #expect(form["body"]?.stringValue == "k=a+b")
        let methods: [(Request<Void>, String)] = [
            (.put("/echo", body: ["b": 2]), "PUT"), (.patch("/echo", body: ["c": 3]), "PATCH"),
            (.delete("/echo"), "DELETE"), (.get("/echo"), "GET"), (.post("/echo"), "POST"),
        ]
        for (request, method) in methods {
            let answer = try #require(JSONValue(data: try await client.reply(request).body))
            #expect(answer["method"]?.stringValue == method)
        }
        try await client.send(Request<Void>.delete("/status/204"))
        await #expect(throws: HTTPError.self) { try await client.send(Request<Void>.post("/status/409")) }
    }

    @Test("K-REQ-3: one query type: name order, nil left out, a name set replaces, items kept, written encoded")
    func oneQueryType() async throws {
        let query: Query = ["q": "a b&c", "cursor": nil, "after": "x/y"]
        #expect(query.items == [URLQueryItem(name: "after", value: "x/y"), URLQueryItem(name: "q", value: "a b&c")])
        #expect(Query(["q": "a b&c", "cursor": nil, "after": "x/y"]) == query)
        var built = Query([URLQueryItem(name: "tag", value: "b"), URLQueryItem(name: "flag", value: nil)])
        built.append(URLQueryItem(name: "tag", value: "a"))
        built["limit"] = "20"
        built["flag"] = nil
        #expect(built.map(\.name) == ["limit", "tag", "tag"] && built["tag"] == "b")
        let echo = try await client().send(Request<JSONValue>.get("/echo", query: query).adding(query: ["b": "1"]))
        #expect(echo["raw_query"]?.stringValue == "after=x%2Fy&b=1&q=a%20b%26c")
        let bare = try client().url(for: "/s", query: [URLQueryItem(name: "flag", value: nil)])
        #expect(bare.query == "flag")
    }

    @Test("K-REQ-4: an id escaped by PercentEncoding.segment stays one segment: no path, query, fragment or climb")
    func oneSegmentEscaper() throws {
        #expect(PercentEncoding.segment("a/b?c#d") == "a%2Fb%3Fc%23d")
        #expect(PercentEncoding.segment("..") == "%2E%2E" && PercentEncoding.segment(".") == "%2E")
        #expect(PercentEncoding.segment("file.v2_x-y~z") == "file.v2_x-y~z")
        #expect(PercentEncoding.segment("é %") == "%C3%A9%20%25")
        let hostile = "../admin?x=1#top/é"
        let url = try client().url(for: "/v1/sessions/\(PercentEncoding.segment(hostile))/read")
        #expect(url.query == nil && url.fragment == nil)
        #expect(Array(url.standardized.pathComponents.suffix(4)) == ["v1", "sessions", hostile, "read"])
    }

    @Test("K-REQ-5: no placeholder Request(path: \"\") and no percent-encoder but PercentEncoding in Sources")
    func oneEscaperAndNoPlaceholder() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.contains { $0.lastPathComponent == "PercentEncoding.swift" }, "the sources were read")
        let placeholder = try Regex(#"Request(<[^>]*>)?\(path: """#)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains(placeholder), "\(file.lastPathComponent) builds a placeholder request")
            if file.lastPathComponent != "PercentEncoding.swift" {
                #expect(!text.contains("addingPercentEncoding"), "\(file.lastPathComponent) escapes on its own")
            }
        }
    }
}
