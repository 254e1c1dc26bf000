import Foundation

/// A response body as an async sequence of byte chunks, read once.
///
/// Rule: bodies stream. A caller that wants the whole body calls `collect(upTo:)`, which enforces a
/// size limit while reading, so an oversized reply fails early instead of filling memory. Stopping
/// the iteration early cancels the underlying transfer.
///
/// A body that is already in memory (`init(_:)`: a body the retry middleware read whole, a test's canned reply)
/// is held as its bytes, not as a stream: `collect(upTo:)` hands those bytes over without copying them.
public struct HTTPBody: AsyncSequence, Sendable {
    /// One chunk of bytes as it arrived.
    public typealias Element = Data
    /// Transport errors surface as `HTTPError`.
    public typealias Failure = any Error

    /// Where the bytes come from.
    private enum Source: Sendable {
        case stream(AsyncThrowingStream<Data, any Error>)
        case buffered(Data)
    }

    private let source: Source
    private let observer: (@Sendable (Int, HTTPError?) -> Void)?

    /// A body backed by a stream of chunks (what a transport produces).
    public init(stream: AsyncThrowingStream<Data, any Error>) {
        self.source = .stream(stream)
        self.observer = nil
    }

    private init(source: Source, observer: (@Sendable (Int, HTTPError?) -> Void)?) {
        self.source = source
        self.observer = observer
    }

    /// A body holding `data` as a single chunk.
    public init(_ data: Data) {
        self.source = .buffered(data)
        self.observer = nil
    }

    /// An empty body.
    public static var empty: HTTPBody { HTTPBody(Data()) }

    /// Iterates the chunks; failures surface as `HTTPError`.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Data, any Error>.AsyncIterator?
        var pending: Data?
        let observer: (@Sendable (Int, HTTPError?) -> Void)?
        var total = 0
        var ended = false

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws -> Data? {
            do {
                if let chunk = try await nextChunk() {
                    total += chunk.count
                    return chunk
                }
                if !ended {
                    ended = true
                    observer?(total, nil)
                }
                return nil
            } catch {
                let wrapped = HTTPError.wrap(error, url: nil, receivedBytes: total)
                if !ended {
                    ended = true
                    observer?(total, wrapped)
                }
                throw wrapped
            }
        }

        private mutating func nextChunk() async throws -> Data? {
            if let chunk = pending {
                pending = nil
                return chunk.isEmpty ? nil : chunk
            }
            return try await base?.next()
        }
    }

    /// Iterates the chunks.
    public func makeAsyncIterator() -> Iterator {
        switch source {
        case .stream(let stream): Iterator(base: stream.makeAsyncIterator(), pending: nil, observer: observer)
        case .buffered(let data): Iterator(base: nil, pending: data, observer: observer)
        }
    }

    /// Reads the whole body, failing with `.bodyTooLarge` as soon as it passes `limit` bytes.
    public func collect(upTo limit: Int, url: URL? = nil) async throws(HTTPError) -> Data {
        try await collect(upTo: limit, url: url, expectedLength: nil)
    }

    /// `collect(upTo:url:)`, with room for `expectedLength` bytes (a response's `Content-Length`, within the
    /// limit) made once, so a large body is not copied each time it outgrows its buffer.
    func collect(upTo limit: Int, url: URL?, expectedLength: Int?) async throws(HTTPError) -> Data {
        if case .buffered(let data) = source {
            // Already whole: the same check and the same report to the observer as reading it chunk by chunk,
            // without a stream or a copy (a body over the limit is abandoned unread, as a streamed one is).
            guard data.count <= limit else {
                throw HTTPError.bodyTooLarge(limit: limit, url: url.map(HTTPError.describe) ?? "")
            }
            observer?(data.count, nil)
            return data
        }
        var result = Data()
        let reserve = expectedLength.map { Swift.min(Swift.max(0, $0), limit) } ?? 0
        do {
            for try await chunk in self {
                if result.count + chunk.count > limit {
                    throw HTTPError.bodyTooLarge(limit: limit, url: url.map(HTTPError.describe) ?? "")
                }
                if result.isEmpty, chunk.count >= reserve {
                    // The first chunk is kept as it is when it is all there is to expect: a small body arrives in
                    // one, and needs no copy.
                    result = chunk
                } else {
                    if result.isEmpty { result.reserveCapacity(reserve) }
                    result.append(chunk)
                }
            }
        } catch {
            throw HTTPError.wrap(error, url: url)
        }
        return result
    }

    /// The same body, calling `onEnd` once with the byte count, and the error if it failed, when a
    /// reader reaches its end (used by the journal to log sizes). No task is started: the count is
    /// kept by the reader's own iterator.
    public func observed(_ onEnd: @escaping @Sendable (Int, HTTPError?) -> Void) -> HTTPBody {
        let previous = observer
        return HTTPBody(
            source: source,
            observer: { bytes, error in
                previous?(bytes, error)
                onEnd(bytes, error)
            })
    }
}
