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

    /// A body backed by a stream of chunks (what a transport produces).
    public init(stream: AsyncThrowingStream<Data, any Error>) { self.stream = stream }

    /// A body holding `data` as a single chunk.
    public init(_ data: Data) {
        self.stream = AsyncThrowingStream { continuation in
            if !data.isEmpty { continuation.yield(data) }
            continuation.finish()
        }
    }

    /// An empty body.
    public static var empty: HTTPBody { HTTPBody(Data()) }

    /// Iterates the chunks.
    public func makeAsyncIterator() -> AsyncThrowingStream<Data, any Error>.AsyncIterator {
        stream.makeAsyncIterator()
    }

    /// Reads the whole body, failing with `.bodyTooLarge` as soon as it passes `limit` bytes.
    public func collect(upTo limit: Int, url: URL? = nil) async throws(HTTPError) -> Data {
        var result = Data()
        do {
            for try await chunk in stream {
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

    /// A body that passes chunks through unchanged and calls `onEnd` once with the byte count and
    /// the error, if the stream failed (used by the journal to log sizes).
    public func observed(_ onEnd: @escaping @Sendable (Int, HTTPError?) -> Void) -> HTTPBody {
        let upstream = stream
        let (output, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let task = Task {
            var total = 0
            do {
                for try await chunk in upstream {
                    total += chunk.count
                    continuation.yield(chunk)
                }
                onEnd(total, nil)
                continuation.finish()
            } catch {
                let wrapped = HTTPError.wrap(error, url: nil)
                onEnd(total, wrapped)
                continuation.finish(throwing: wrapped)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return HTTPBody(stream: output)
    }
}
