import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@Suite("Server-Sent Events against the fault server")
struct EventSourceTests {
    private func client(_ journal: Journal = Journal()) throws -> Client {
        TestClients.loopback(
            try TestServers.fault(), retry: RetryPolicy(), journal: journal, sleeper: RecordingSleeper())
    }

    private struct Tick: Decodable {
        var n: Int
    }

    private func collect(_ stream: AsyncThrowingStream<ServerSentEvent, any Error>, limit: Int = .max) async throws
        -> [ServerSentEvent]
    {
        var events: [ServerSentEvent] = []
        for try await event in stream {
            events.append(event)
            if events.count >= limit { break }
        }
        return events
    }

    @Test func eventsArriveInOrderAndTheStreamEnds() async throws {
        let settings = EventSourceConfiguration(reconnects: false)
        let events = try await collect(
            try client().events(
                .empty(.get, "/sse?count=5&interval_ms=5&comment=1&multiline=0"), configuration: settings))
        #expect(events.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(events.allSatisfy { $0.event == "tick" })
        let decoded = try events.map { try JSONDecoder().decode(Tick.self, from: Data($0.data.utf8)).n }
        #expect(decoded == [1, 2, 3, 4, 5])
    }

    @Test func aDroppedStreamResumesWithLastEventID() async throws {
        let stream = "resume-\(UUID().uuidString.prefix(8))"
        let journal = Journal()
        let events = try await collect(
            try client(journal).events(.empty(.get, "/sse?count=6&interval_ms=5&drop_after=3&stream=\(stream)")),
            limit: 6)
        #expect(events.map(\.id) == ["1", "2", "3", "4", "5", "6"])
        let stats = try await client().send(Request<JSONValue>.get("/_sse_stats", query: ["stream": stream]))
        // The first connection sent no id; the reconnect after the drop resumed after event 3. (A third
        // connection may follow: the stream ended and reconnected before the consumer stopped it.)
        #expect((stats["connections"]?.intValue ?? 0) >= 2)
        #expect(stats["last_event_ids"]?[0] == .null)
        #expect(stats["last_event_ids"]?[1] == .string("3"))
        #expect(journal.events.contains { $0.message == "event stream reconnect" })
    }

    @Test func theServersRetryFieldSetsTheReconnectDelay() async throws {
        let sleeper = RecordingSleeper()
        let client = TestClients.loopback(try TestServers.fault(), retry: RetryPolicy(), sleeper: sleeper)
        let stream = "retry-\(UUID().uuidString.prefix(8))"
        _ = try await collect(
            client.events(.empty(.get, "/sse?count=3&interval_ms=5&drop_after=1&retry=2500&stream=\(stream)")), limit: 3
        )
        #expect(sleeper.delays.first == .milliseconds(2500))
    }

    @Test func aSilentStreamTimesOutAndReconnects() async throws {
        let stream = "idle-\(UUID().uuidString.prefix(8))"
        let settings = EventSourceConfiguration(idleTimeout: .seconds(1))
        let events = try await collect(
            try client().events(
                .empty(.get, "/sse?count=3&interval_ms=5&stall_after=2&stream=\(stream)"), configuration: settings),
            limit: 3)
        #expect(events.map(\.id) == ["1", "2", "3"])
    }

    @Test func anOversizedFrameEndsTheStreamWithAClearError() async throws {
        let settings = EventSourceConfiguration(reconnects: false, maxFrameBytes: 4096)
        await #expect {
            _ = try await collect(try client().events(.empty(.get, "/sse?count=2&big=100000"), configuration: settings))
        } throws: { error in
            (error as? HTTPError)?.description.contains("larger than 4096 bytes") == true
        }
    }

    @Test func malformedLinesAreSkippedAndCRLFWorks() async throws {
        let settings = EventSourceConfiguration(reconnects: false)
        let events = try await collect(
            try client().events(.empty(.get, "/sse?count=3&interval_ms=5&malformed=1&crlf=1"), configuration: settings))
        #expect(events.filter { $0.event == "tick" }.count == 3)
    }

    @Test func aNotFoundStreamFailsWithoutReconnecting() async throws {
        let sleeper = RecordingSleeper()
        let client = TestClients.loopback(try TestServers.fault(), retry: RetryPolicy(), sleeper: sleeper)
        await #expect {
            _ = try await collect(client.events(.empty(.get, "/status/404")))
        } throws: { error in
            (error as? HTTPError)?.statusCode == 404
        }
        #expect(sleeper.delays.isEmpty)
    }

    @Test func jsonWhereAStreamWasExpectedIsAContentTypeError() async throws {
        await #expect {
            _ = try await collect(try client().events(.empty(.get, "/ok")))
        } throws: { error in
            if case .unexpectedContentType = error as? HTTPError { return true }
            return false
        }
    }

    @Test func stoppingIterationCancelsTheRequest() async throws {
        let events = try await collect(try client().events(.empty(.get, "/sse?count=1000&interval_ms=5")), limit: 2)
        #expect(events.count == 2)
    }

    @Test func tooManyFailedReconnectsEndTheSubscription() async throws {
        let client = TestClients.loopback(
            try #require(URL(string: "http://127.0.0.1:1")), retry: RetryPolicy(), sleeper: RecordingSleeper())
        let settings = EventSourceConfiguration(maxConsecutiveFailures: 3)
        await #expect {
            _ = try await collect(client.events(.empty(.get, "/sse"), configuration: settings))
        } throws: { error in
            if case .unreachable = error as? HTTPError { return true }
            return false
        }
    }
}
