import Foundation

/// One event of a Server-Sent Events stream.
public struct ServerSentEvent: Sendable, Hashable {
    /// The last event id seen on the stream when this event was dispatched (it carries over).
    public var id: String?
    /// The event type; `message` when the stream named none.
    public var event: String
    /// The data lines joined with newlines.
    public var data: String

    /// Creates an event.
    public init(id: String? = nil, event: String = "message", data: String) {
        self.id = id
        self.event = event
        self.data = data
    }
}

/// What went wrong while parsing a stream.
public enum SSEParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A line or an event grew past the frame cap.
    case frameTooLarge(limit: Int)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .frameTooLarge(let limit):
            return "The server sent an event larger than \(limit) bytes; the stream was closed to protect memory."
        }
    }
}

/// An incremental parser of `text/event-stream` bytes, following the WHATWG HTML "event stream
/// interpretation" rules.
///
/// Rules worth stating: lines end in CRLF, LF or CR (a CR at the end of one chunk and an LF at the
/// start of the next are one line end); a leading BOM is dropped; a line starting with `:` is a
/// comment; a line without a colon is a field with an empty value; one space after the colon is
/// removed; an `id` containing NUL is ignored; `retry` counts only when it is all ASCII digits; an
/// empty line dispatches the event, but only when it has data. Any line or event larger than
/// `maxFrameBytes` never grows memory: it throws (`OversizedFrames.fail`), or the whole event is dropped and
/// parsing goes on at the next one (`OversizedFrames.drop`).
public struct SSEParser: Sendable {
    /// What the parser does with a line or an event over the frame cap.
    public enum OversizedFrames: Sendable, Hashable {
        /// Throw `SSEParseError.frameTooLarge`: the stream is closed.
        case fail
        /// Drop the event (every line of it, up to the blank line that ends it) and go on with the next one,
        /// as a client that must not lose a live stream to one bad frame does.
        case drop
    }

    /// The frame cap in bytes.
    public let maxFrameBytes: Int
    /// What happens to a line or an event over the cap.
    public let oversizedFrames: OversizedFrames
    /// How many events were dropped for their size (`OversizedFrames.drop`).
    public private(set) var droppedFrames = 0
    /// The last event id, which carries over between events and reconnects. It takes an `id:` line's value
    /// only when the event ends (the blank line), so a stream cut in the middle of an event resumes from the
    /// event before it and the cut event is sent again whole.
    public private(set) var lastEventID: String?
    /// The reconnection delay the server asked for in milliseconds, if any.
    public private(set) var retryMilliseconds: Int?
    /// How many comment lines were seen (servers send them as keep-alives).
    public private(set) var commentCount = 0

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType = ""
    /// The id of the event being read: an `id:` line sets it; the blank line makes it `lastEventID`.
    private var idBuffer: String?
    private var pendingCR = false
    /// Dropping an oversized event: every byte up to the blank line that ends it is ignored.
    private var discarding = false
    /// Whether the line being discarded has any byte (a blank line ends the discarded event).
    private var discardedLineHasBytes = false
    private var bomMatched = 0
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Creates a parser; `lastEventID` seeds the id when resuming.
    public init(maxFrameBytes: Int = 1024 * 1024, oversizedFrames: OversizedFrames = .fail, lastEventID: String? = nil)
    {
        self.maxFrameBytes = maxFrameBytes
        self.oversizedFrames = oversizedFrames
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
    }

    /// Feeds the next chunk and returns the events it completed.
    public mutating func feed(_ chunk: some Collection<UInt8>) throws(SSEParseError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in chunk {
            if bomMatched < 3 {
                if byte == Self.byteOrderMark[bomMatched] {
                    bomMatched += 1
                    continue
                }
                let matched = bomMatched
                bomMatched = 3
                for replayed in Self.byteOrderMark[0..<matched] { try consume(replayed, into: &events) }
            }
            try consume(byte, into: &events)
        }
        return events
    }

    private mutating func consume(_ byte: UInt8, into events: inout [ServerSentEvent]) throws(SSEParseError) {
        if pendingCR {
            pendingCR = false
            if byte == 0x0A { return }
        }
        if discarding {
            discard(byte)
            return
        }
        switch byte {
        case 0x0D:
            pendingCR = true
            try endLine(into: &events)
        case 0x0A:
            try endLine(into: &events)
        default:
            line.append(byte)
            if line.count > maxFrameBytes { try oversized() }
        }
    }

    /// A line or the event grew past the cap: fail, or drop the event and skip to its end.
    private mutating func oversized() throws(SSEParseError) {
        guard oversizedFrames == .drop else { throw .frameTooLarge(limit: maxFrameBytes) }
        droppedFrames += 1
        discarding = true
        discardedLineHasBytes = !line.isEmpty
        line.removeAll(keepingCapacity: false)
        data.removeAll(keepingCapacity: false)
        hasData = false
        eventType = ""
        idBuffer = lastEventID
    }

    /// One byte of a dropped event: a blank line ends it, and parsing resumes with the next event.
    private mutating func discard(_ byte: UInt8) {
        switch byte {
        case 0x0D, 0x0A:
            pendingCR = byte == 0x0D
            if discardedLineHasBytes {
                discardedLineHasBytes = false
            } else {
                discarding = false
            }
        default:
            discardedLineHasBytes = true
        }
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) throws(SSEParseError) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            dispatch(into: &events)
            return
        }
        if line.first == 0x3A {
            commentCount += 1
            return
        }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: 0x3A) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == 0x20 { value = value.dropFirst() }
        } else {
            field = line[...]
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
            if data.count > maxFrameBytes {
                try oversized()
                // The line that overflowed the event ended here; what follows is the rest of the event.
                discardedLineHasBytes = false
            }
        case "id":
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), value.count <= 9 {
                retryMilliseconds = Int(String(decoding: value, as: UTF8.self))
            }
        default:
            break
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        lastEventID = idBuffer
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = ""
        }
        guard hasData else { return }
        events.append(
            ServerSentEvent(
                id: lastEventID, event: eventType.isEmpty ? "message" : eventType,
                data: String(decoding: data, as: UTF8.self)))
    }
}
