import Foundation

/// A response body as an async sequence of byte chunks, read once.
///
/// Rule: bodies stream. A caller that wants the whole body calls `collect(upTo:)`, which enforces a
/// size limit while reading, so an oversized reply fails early instead of filling memory. Stopping
/// the iteration early cancels the underlying transfer.
public struct HTTPBody: AsyncSequence, Sendable {
    /// One chunk of bytes as it arrived.
    public typealias Element = Data
    /// Transport errors surface as `HTTPError`.
    public typealias Failure = any Error

    private let stream: AsyncThrowingStream<Data, any Error>
    private let observer: (@Sendable (Int, HTTPError?) -> Void)?

    /// A body backed by a stream of chunks (what a transport produces).
    public init(stream: AsyncThrowingStream<Data, any Error>) {
        self.stream = stream
        self.observer = nil
    }

    private init(stream: AsyncThrowingStream<Data, any Error>, observer: (@Sendable (Int, HTTPError?) -> Void)?) {
        self.stream = stream
        self.observer = observer
    }

    /// A body holding `data` as a single chunk.
    public init(_ data: Data) {
        self.init(
            stream: AsyncThrowingStream { continuation in
                if !data.isEmpty { continuation.yield(data) }
                continuation.finish()
            })
    }

    /// An empty body.
    public static var empty: HTTPBody { HTTPBody(Data()) }

    /// Iterates the chunks; failures surface as `HTTPError`.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Data, any Error>.AsyncIterator
        let observer: (@Sendable (Int, HTTPError?) -> Void)?
        var total = 0
        var ended = false

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws -> Data? {
            do {
                if let chunk = try await base.next() {
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
    }

    /// Iterates the chunks.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), observer: observer)
    }

    /// Reads the whole body, failing with `.bodyTooLarge` as soon as it passes `limit` bytes.
    public func collect(upTo limit: Int, url: URL? = nil) async throws(HTTPError) -> Data {
        var result = Data()
        do {
            for try await chunk in self {
                if result.count + chunk.count > limit {
                    throw HTTPError.bodyTooLarge(limit: limit, url: url.map(HTTPError.describe) ?? "")
                }
                result.append(chunk)
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
            stream: stream,
            observer: { bytes, error in
                previous?(bytes, error)
                onEnd(bytes, error)
            })
    }
}
