import CompanionHTTP
import Foundation
import Testing

@Suite("SSE parser")
struct SSEParserTests {
    private func parse(
        _ text: String, chunkSize: Int = .max, maxFrame: Int = 1024,
        oversized: SSEParser.OversizedFrames = .fail
    ) throws -> ([ServerSentEvent], SSEParser) {
        var parser = SSEParser(maxFrameBytes: maxFrame, oversizedFrames: oversized)
        var events: [ServerSentEvent] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + max(1, min(chunkSize, bytes.count)))
            events += try parser.feed(bytes[index..<end])
            index = end
        }
        return (events, parser)
    }

    @Test("one event with id, type and data", arguments: [1, 2, 3, 7, 1000])
    func basic(chunkSize: Int) throws {
        let (events, parser) = try parse("id: 7\nevent: tick\ndata: {\"n\":7}\n\n", chunkSize: chunkSize)
        #expect(events == [ServerSentEvent(id: "7", event: "tick", data: "{\"n\":7}")])
        #expect(parser.lastEventID == "7")
    }

    @Test("line endings CRLF, CR and LF, split across chunks", arguments: ["\r\n", "\r", "\n"], [1, 2, 5])
    func lineEndings(ending: String, chunkSize: Int) throws {
        let text = ["data: a", "data: b", "", "data: c", "", ""].joined(separator: ending)
        let (events, _) = try parse(text, chunkSize: chunkSize)
        #expect(events.map(\.data) == ["a\nb", "c"])
    }

    @Test func commentsAreCountedNotDispatched() throws {
        let (events, parser) = try parse(": keep-alive\n\n: ping\ndata: x\n\n")
        #expect(events.map(\.data) == ["x"])
        #expect(parser.commentCount == 2)
    }

    @Test func fieldWithoutColonAndUnknownFieldsAreIgnoredSafely() throws {
        let (events, _) = try parse("data\n\nbogus: 1\ndata: y\n\n")
        // `data` without a colon appends an empty line: an event with empty data is still dispatched.
        #expect(events.map(\.data) == ["", "y"])
    }

    @Test func oneLeadingSpaceIsRemovedOnly() throws {
        let (events, _) = try parse("data:no-space\n\ndata:  two\n\n")
        #expect(events.map(\.data) == ["no-space", " two"])
    }

    @Test func idWithNulIsIgnoredAndIdCarriesOver() throws {
        let (events, parser) = try parse("id: 1\ndata: a\n\nid: bad\u{0}id\ndata: b\n\ndata: c\n\n")
        #expect(events.map(\.id) == ["1", "1", "1"])
        #expect(parser.lastEventID == "1")
    }

    @Test func anIDTakesEffectOnlyWhenItsEventEnds() throws {
        // A stream cut after `id: 8` but before the blank line: the resume id stays 7, so the
        // reconnect's Last-Event-ID asks for event 8 again instead of skipping it.
        var parser = SSEParser()
        let first = try parser.feed(Array("id: 7\ndata: a\n\nid: 8\ndata: b\n".utf8))
        #expect(first.map(\.id) == ["7"])
        #expect(parser.lastEventID == "7")
        let rest = try parser.feed(Array("\n".utf8))
        #expect(rest.map(\.id) == ["8"])
        #expect(parser.lastEventID == "8")
    }

    @Test func retryOnlyWhenDigits() throws {
        let (_, parser) = try parse("retry: abc\n\nretry: 2500\n\nretry: 12x\n\n")
        #expect(parser.retryMilliseconds == 2500)
    }

    @Test func emptyDataIsNotDispatchedAndTypeResets() throws {
        let (events, _) = try parse("event: a\n\ndata: x\n\n")
        #expect(events == [ServerSentEvent(event: "message", data: "x")])
    }

    @Test func byteOrderMarkIsDropped() throws {
        let (events, _) = try parse("\u{FEFF}data: bom\n\n", chunkSize: 1)
        #expect(events.map(\.data) == ["bom"])
    }

    @Test func incompleteEventIsNotDispatched() throws {
        let (events, _) = try parse("data: half")
        #expect(events.isEmpty)
    }

    @Test func frameCapStopsALongLine() throws {
        #expect(throws: SSEParseError.frameTooLarge(limit: 64)) {
            _ = try parse("data: " + String(repeating: "x", count: 100), maxFrame: 64)
        }
    }

    @Test func frameCapStopsAnEventOfManyLines() throws {
        let text = String(repeating: "data: 0123456789\n", count: 20)
        #expect(throws: SSEParseError.frameTooLarge(limit: 100)) { _ = try parse(text, maxFrame: 100) }
    }

    @Test(
        "An oversized line or event is dropped whole and the stream goes on (drop mode)",
        arguments: [1, 7, 1000], ["\n", "\r\n", "\r"])
    func oversizedFramesAreDroppedInDropMode(_ chunkSize: Int, _ end: String) throws {
        // The shapes of the real Omnigent iOS app's `testSSEParserDropsOversizedInputAndRecoversAtNextFrame`:
        // one line over the cap, then an event whose two lines together are over it, then a small event.
        let limit = 64
        let half = String(repeating: " ", count: limit / 2 + 1)
        let text =
            "id: 1" + end + "data: " + String(repeating: "x", count: limit) + end + "data: more" + end + end
            + "event: big" + end + "data: " + half + end + "id: 2" + end + "data: " + half + end + end
            + "event: tick" + end + "data: small" + end + end
        let (events, parser) = try parse(text, chunkSize: chunkSize, maxFrame: limit, oversized: .drop)
        #expect(events == [ServerSentEvent(id: nil, event: "tick", data: "small")])
        #expect(parser.droppedFrames == 2)
        #expect(parser.lastEventID == nil, "an id inside a dropped event does not count")
    }

    @Test func invalidUTF8DoesNotCrash() throws {
        var parser = SSEParser()
        let events = try parser.feed([0x64, 0x61, 0x74, 0x61, 0x3A, 0xFF, 0xFE, 0x0A, 0x0A])
        #expect(events.count == 1)
    }

    @Test func realOmnigentStreamSample() throws {
        let url = try #require(
            Bundle.module.url(forResource: "Fixtures/sse-session-stream-sample", withExtension: "txt"))
        let (events, _) = try parse(try String(contentsOf: url, encoding: .utf8), chunkSize: 13, maxFrame: 1 << 20)
        #expect(events.first?.event == "session.heartbeat")
        #expect(events.map(\.event).contains("response.output_item.done"))
        #expect(events.allSatisfy { !$0.data.isEmpty })
    }
}
