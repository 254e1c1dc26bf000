import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// What the live stream carries besides finished items, read as the real app's watch parser reads it
/// (`WatchCompanionTests.testSSEParserDecodesConversationEvents`, `testStreamingTranscript…`), and how the
/// session detail shows it: text deltas while a reply is written, a failed turn, a consumed message.
@Suite("Omnigent live events: deltas, failures, consumed inputs")
struct LiveEventTests {
    static let client = TestClients.loopback(URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/"))
    static let now = Date(timeIntervalSince1970: 1_796_083_776)

    static func read(_ json: String, event: String = "message") -> LiveEvent {
        LiveEvent.read(ServerSentEvent(event: event, data: json), client: client, now: now)
    }

    @Test("O-WATCH-6: the real app's stream vectors: heartbeat, a delta, a consumed input, a finished item, a failure")
    func realAppVectors() {
        #expect(Self.read(#"{"type":"session.heartbeat"}"#) == .heartbeat)
        #expect(
            Self.read(
                #"{"type":"response.output_text.delta","delta":"Café ⌚️","message_id":"m1","index":2,"final":true}"#)
                == .textDelta(LiveDelta(text: "Café ⌚️", messageID: "m1", index: 2, isFinal: true)))
        let consumed = Self.read(
            #"{"type":"session.input.consumed","data":{"item_id":"u1","type":"message","data":{"role":"user","content":[{"type":"input_text","text":"Go"}]},"cleared_pending_id":"p1"}}"#
        )
        guard case .inputConsumed(let message, let pendingID) = consumed else {
            Issue.record("expected a consumed input, got \(consumed)")
            return
        }
        #expect(pendingID == "p1")
        #expect(message?.id == "u1" && message?.role == "user" && message?.text == "Go")
        #expect(message?.createdAt == Self.now, "a consumed message without a time is stamped when it arrived")
        let done = Self.read(
            #"{"type":"response.output_item.done","item":{"id":"a1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Done"}],"created_at":1}}"#
        )
        guard case .itemDone(let item) = done else {
            Issue.record("expected a finished item, got \(done)")
            return
        }
        #expect(item.id == "a1" && item.text == "Done")
        #expect(
            Self.read(#"{"type":"response.failed","response":{"last_error":{"message":"Lost"}}}"#) == .failed("Lost"))
        #expect(Self.read(#"{"error":{"message":"Quota"}}"#, event: "response.error") == .failed("Quota"))
        // The event's name wins over the data's type; a name the app does not know is other.
        #expect(Self.read(#"{"type":"session.presence"}"#) == .presence)
        #expect(
            Self.read("{}", event: "session.changed_files.invalidated") == .other("session.changed_files.invalidated"))
    }

    @Test("Deltas join by message id, a repeated place is not added twice, a finished item commits its message")
    func keyedDeltas() {
        var transcript = LiveTranscript()
        transcript.append(LiveDelta(text: "Hel", messageID: "a", index: 0))
        transcript.append(LiveDelta(text: "World", messageID: "b", index: 0))
        transcript.append(LiveDelta(text: "duplicate", messageID: "a", index: 0))
        transcript.append(LiveDelta(text: "lo", messageID: "a", index: 1))
        #expect(transcript.messages.map(\.text) == ["Hello", "World"])
        transcript.commit("a")
        #expect(transcript.messages.map(\.text) == ["World"])
        transcript.reset()
        #expect(transcript.messages.isEmpty)
    }

    @Test("Deltas without an id join the open message until a final one, then start the next")
    func idLessDeltasSplitAtFinal() {
        var transcript = LiveTranscript()
        transcript.append(LiveDelta(text: "First"))
        transcript.append(LiveDelta(text: "", index: 1, isFinal: true))
        transcript.append(LiveDelta(text: "Second"))
        #expect(transcript.messages.map(\.text) == ["First", "Second"])
    }

    @Test("Item 1: an ack is pending only with a pending_id; 0.19.1's `queued: true` alone is sent")
    func ackReading() throws {
        func ack(_ json: String) throws -> EventAck { try JSONDecoder().decode(EventAck.self, from: Data(json.utf8)) }
        let id = UUID()
        // What 0.19.1's `post_event` answers for a message handed to a runner, and one held behind a running turn.
        #expect(WatchSentMessage(id: id, text: "t", ack: try ack(#"{"queued":true,"item_id":"i1"}"#)).status == .sent)
        #expect(
            WatchSentMessage(id: id, text: "t", ack: try ack(#"{"queued":true,"pending_id":"p1"}"#)).status
                == .pending(id: "p1"))
        #expect(
            WatchSentMessage(id: id, text: "t", ack: try ack(#"{"queued":false,"denied":true,"reason":"No."}"#)).status
                == .declined(reason: "No."))
    }
}

/// The session detail following a stream whose events the real server cannot send without a runner (deltas, a
/// failed turn, a consumed message): the session and its items come from the real 0.19.1 server, the stream from
/// a script. The time limit guards against a hang only (every wait is bounded): under the parallel suite on two
/// cores the real server's answers made the first test take 108 s once.
@Suite("Omnigent detail: live events reach the screen through the store", .serialized, .timeLimit(.minutes(3)))
@MainActor
struct LiveDetailTests {
    @Test("Item 2: deltas show while written; a finished item and a consumed message are stored; a failure is said")
    func liveEventsReachTheDetail() async throws {
        let url = try TestServers.omnigent()
        let poster = TestClients.loopback(url)
        let session = try await OmnigentFixture.createSession(poster, title: "live events")
        let streams = ScriptedStreams([
            """
            data: {"type":"session.presence"}

            data: {"type":"response.output_text.delta","delta":"Hel","message_id":"m1","index":0}

            data: {"type":"response.output_text.delta","delta":"lo","message_id":"m1","index":1}

            data: {"type":"response.output_text.delta","delta":"lo","message_id":"m1","index":1}

            data: {"type":"response.output_text.delta","delta":"World","message_id":"m2","index":0}

            data: [DONE]


            """,
            """
            data: {"type":"session.input.consumed","data":{"item_id":"u1","type":"message","data":{"role":"user","content":[{"type":"input_text","text":"Go"}]},"cleared_pending_id":"p1"}}

            data: {"type":"response.output_item.done","item":{"id":"m1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello"}],"created_at":\(Int(Date().timeIntervalSince1970) + 3600)}}

            data: {"type":"response.failed","response":{"last_error":{"message":"Runner disconnected unexpectedly."}}}

            data: [DONE]


            """,
        ])
        let environment = OmnigentFixture.environment(transport: streams)
        let server = try await OmnigentFixture.server(url, environment: environment)
        let model = SessionDetailModel(server: server, sessionID: session.id)
        let other = SessionDetailModel(server: server, sessionID: session.id)
        await model.refresh()
        await other.refresh()
        #expect(model.state.value?.messages.isEmpty == true)
        await model.followLive()
        #expect(model.live.messages.map(\.text) == ["Hello", "World"], "the replies being written, no place twice")
        await model.followLive()
        let shown = await waitUntilObserved(upTo: .seconds(20)) {
            model.state.value?.messages.map(\.text) == ["Go", "Hello"]
                && other.state.value?.messages.map(\.text) == ["Go", "Hello"]
        }
        #expect(shown, "both screens show the stored items: \(String(describing: other.state.value?.messages))")
        #expect(model.liveFailure == "Runner disconnected unexpectedly.")
        #expect(model.live.messages.isEmpty, "a failed turn ends the replies being written")
        #expect(streams.attempts == 2)
    }
}

extension LiveDetailTests {
    @Test("Item 2: the watch shows the same live events: deltas while written, a finished item, a failed turn")
    func liveEventsReachTheWatch() async throws {
        let url = try TestServers.omnigent()
        let session = try await OmnigentFixture.createSession(TestClients.loopback(url), title: "watch live events")
        let streams = ScriptedStreams([
            """
            data: {"type":"response.output_text.delta","delta":"Hel","message_id":"m1","index":0}

            data: {"type":"response.output_text.delta","delta":"lo","message_id":"m1","index":1}

            data: {"type":"response.output_text.delta","delta":"World","message_id":"m2","index":0}

            data: {"type":"response.output_item.done","item":{"id":"m1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello"}],"created_at":\(Int(Date().timeIntervalSince1970) + 3600)}}

            data: {"type":"response.failed","response":{"last_error":{"message":"Lost"}}}

            data: [DONE]


            """
        ])
        let keeper = WatchCookieKeeper(
            WatchCookieSync(serverURL: url, cookieHeader: "ap_session=header-mode", syncedAt: Date()))
        let watch = WatchClient(
            apiBase: url, cookies: keeper, environment: OmnigentFixture.environment(transport: streams))
        await watch.open(session.id)
        #expect(watch.detail?.messages.isEmpty == true)
        await watch.follow()
        #expect(watch.detail?.messages.map(\.text) == ["Hello"])
        #expect(watch.liveFailure == "Lost")
        #expect(watch.streaming.messages.isEmpty, "the failed turn ended the replies being written")
        #expect(watch.actionProblem == nil)
    }
}

extension LiveDetailTests {
    @Test("O-WATCH-6: a consumed input takes out of `sent` only the message pending under its cleared id")
    func aConsumedInputLeavesTheOtherSentMessages() async throws {
        let url = try TestServers.omnigent()
        let session = try await OmnigentFixture.createSession(TestClients.loopback(url), title: "watch consumed")
        let streams = ScriptedStreams([
            """
            data: {"type":"session.input.consumed","data":{"cleared_pending_id":"p-other"}}

            data: [DONE]


            """
        ])
        let keeper = WatchCookieKeeper(
            WatchCookieSync(serverURL: url, cookieHeader: "ap_session=header-mode", syncedAt: Date()))
        let watch = WatchClient(
            apiBase: url, cookies: keeper, environment: OmnigentFixture.environment(transport: streams))
        await watch.open(session.id)
        // 0.19.1 without a runner refuses the message: it stays in `sent`, failed, under no pending id.
        let message = try #require(await watch.send("Hello from the wrist", to: session.id))
        #expect(watch.sent.map(\.id) == [message.id])
        await watch.follow()
        #expect(watch.sent.map(\.id) == [message.id], "a pending id it does not carry leaves it alone")
    }
}

/// The platform's transport, except that each connection of a session stream gets the next scripted SSE body.
final class ScriptedStreams: Transport {
    private let inner = DefaultTransport.make()
    private let bodies: Locked<[String]>
    private let count = Locked(0)

    init(_ bodies: [String]) { self.bodies = Locked(bodies) }

    var attempts: Int { count.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        guard request.url.path.hasSuffix("/stream") else { return try await inner.send(request) }
        count.withLock { $0 += 1 }
        let body = bodies.withLock { $0.isEmpty ? "data: [DONE]\n\n" : $0.removeFirst() }
        return (
            HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"], url: request.url),
            HTTPBody(Data(body.utf8))
        )
    }
}

extension LiveEventTests {
    /// An id-less delta never joins a keyed message still being written: it starts (or joins) the open id-less
    /// one; the keyed message goes on by its id. Id-less deltas are not deduplicated by place.
    @Test("Item 2: id-less deltas do not join an open keyed message, and are not deduplicated by place")
    func idLessDeltasStayApartFromKeyedOnes() {
        var transcript = LiveTranscript()
        transcript.append(LiveDelta(text: "Keyed", messageID: "a", index: 0))
        transcript.append(LiveDelta(text: "Free", index: 0))
        transcript.append(LiveDelta(text: " more", index: 0))
        transcript.append(LiveDelta(text: "!", messageID: "a", index: 1))
        #expect(transcript.messages.map(\.text) == ["Keyed!", "Free more"])
        #expect(transcript.messages.map(\.id) == ["a", nil])
    }
}
