import CompanionCore
import Foundation

/// How a Server-Sent Events subscription behaves when the connection drops or goes quiet.
///
/// Defaults follow the WHATWG EventSource model (reconnect after the server's `retry` delay,
/// resend `Last-Event-ID`), with the watch client's limits: a 45 s idle timeout and a 1 MiB frame cap.
public struct EventSourceConfiguration: Sendable, Hashable {
    /// Whether to reconnect when the stream ends or breaks.
    public var reconnects: Bool
    /// How many consecutive failed connections end the subscription.
    public var maxConsecutiveFailures: Int
    /// The delay before the first reconnect when the server sent no `retry`.
    public var initialDelay: Duration
    /// The cap on the exponential reconnect delay.
    public var maxDelay: Duration
    /// How long the stream may stay silent (no event, no comment) before it counts as dead.
    public var idleTimeout: Duration
    /// The largest line or event accepted.
    public var maxFrameBytes: Int
    /// What a line or an event over `maxFrameBytes` does: close the stream with an error (the default), or be
    /// dropped while the stream goes on.
    public var oversizedFrames: SSEParser.OversizedFrames
    /// The id to resume after, sent as `Last-Event-ID` on the first connection.
    public var lastEventID: String?

    /// Creates a configuration.
    public init(
        reconnects: Bool = true, maxConsecutiveFailures: Int = 8, initialDelay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(30), idleTimeout: Duration = .seconds(45), maxFrameBytes: Int = 1024 * 1024,
        lastEventID: String? = nil, oversizedFrames: SSEParser.OversizedFrames = .fail
    ) {
        self.reconnects = reconnects
        self.maxConsecutiveFailures = max(1, maxConsecutiveFailures)
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.idleTimeout = idleTimeout
        self.maxFrameBytes = maxFrameBytes
        self.lastEventID = lastEventID
        self.oversizedFrames = oversizedFrames
    }
}

extension Client {
    /// Subscribes to a Server-Sent Events stream and yields its events, reconnecting with backoff and
    /// `Last-Event-ID` after a drop, a timeout or a server error.
    ///
    /// The sequence ends when the server answers 204 (its way of saying "stop"), when reconnecting
    /// is off and the stream ends, or when the caller stops iterating (which cancels the request).
    /// It fails with an `HTTPError`: a 4xx status, a wrong content type, a frame over the cap, or too
    /// many consecutive failed connections.
    public nonisolated func events(
        _ request: Request<Void>, configuration settings: EventSourceConfiguration = EventSourceConfiguration()
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ServerSentEvent, any Error>.makeStream()
        let task = Task {
            do {
                try await self.runEventSource(request, settings: settings) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: HTTPError.wrap(error, url: nil))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func runEventSource(
        _ request: Request<Void>, settings: EventSourceConfiguration, yield: @Sendable (ServerSentEvent) -> Void
    ) async throws(HTTPError) {
        var cursor = StreamCursor(lastEventID: settings.lastEventID)
        var failures = 0
        while true {
            if Task.isCancelled { throw .cancelled }
            switch try await connectOnce(request, settings: settings, cursor: &cursor, yield: yield) {
            case .stop:
                return
            case .ended:
                guard settings.reconnects else { return }
                failures = 0
                try await wait(settings: settings, failures: 1, serverRetry: cursor.serverRetry, error: nil)
            case .failed(let error, let connected):
                failures = connected ? 1 : failures + 1
                guard settings.reconnects, failures < settings.maxConsecutiveFailures else { throw error }
                try await wait(settings: settings, failures: failures, serverRetry: cursor.serverRetry, error: error)
            }
        }
    }

    /// One connection: how it ended, or a failure not worth reconnecting after (thrown).
    private func connectOnce(
        _ request: Request<Void>, settings: EventSourceConfiguration, cursor: inout StreamCursor,
        yield: @Sendable (ServerSentEvent) -> Void
    ) async throws(HTTPError) -> StreamOutcome {
        var attempt = request
        attempt.headers["Accept"] = "text/event-stream"
        attempt.headers["Cache-Control"] = "no-cache"
        attempt.headers["Last-Event-ID"] = cursor.lastEventID
        attempt.timeout = settings.idleTimeout
        let response: HTTPResponse
        let body: HTTPBody
        do {
            (response, body) = try await open(attempt)
        } catch {
            if RetryPolicy().isRetryable(error) { return .failed(error, connected: false) }
            throw error
        }
        if response.status == 204 { return .stop }
        guard response.isSuccess else {
            let data = (try? await body.collect(upTo: 64 * 1024, url: response.url)) ?? Data()
            let error = failure(try httpRequest(for: attempt), response, data)
            if response.status >= 500 || response.status == 429 { return .failed(error, connected: false) }
            throw error
        }
        guard response.mediaType == "text/event-stream" else {
            throw .unexpectedContentType(
                expected: "text/event-stream", received: response.mediaType ?? "nothing",
                url: response.url.map(HTTPError.describe) ?? "", serverSentence: nil)
        }
        var parser = SSEParser(
            maxFrameBytes: settings.maxFrameBytes, oversizedFrames: settings.oversizedFrames,
            lastEventID: cursor.lastEventID)
        do {
            for try await chunk in body {
                let dropped = parser.droppedFrames
                let events = try parser.feed(chunk)
                if parser.droppedFrames > dropped {
                    configuration.journal.record(
                        .error, "event stream dropped an oversized event",
                        fields: ["limit": "\(settings.maxFrameBytes)", "dropped": "\(parser.droppedFrames)"])
                }
                cursor.lastEventID = parser.lastEventID
                if let retry = parser.retryMilliseconds { cursor.serverRetry = .milliseconds(retry) }
                for event in events { yield(event) }
            }
        } catch let error as SSEParseError {
            configuration.journal.record(.error, "event stream closed", fields: ["error": error.description])
            throw .transport(error.description)
        } catch {
            let wrapped = HTTPError.wrap(error, url: response.url)
            if RetryPolicy().isRetryable(wrapped) { return .failed(wrapped, connected: true) }
            throw wrapped
        }
        return .ended
    }

    private func wait(settings: EventSourceConfiguration, failures: Int, serverRetry: Duration?, error: HTTPError?)
        async throws(HTTPError)
    {
        let base = serverRetry ?? settings.initialDelay
        let exponential = min(settings.maxDelay.seconds, base.seconds * pow(2, Double(failures - 1)))
        let delay = Duration.milliseconds(Int64(exponential * 1000))
        configuration.journal.record(
            .sync, "event stream reconnect",
            fields: ["delayMs": "\(delay.milliseconds)", "error": error?.description ?? "ended"])
        do {
            try await configuration.sleeper.sleep(for: delay)
        } catch {
            throw .cancelled
        }
    }
}

/// Where a subscription stands between connections.
private struct StreamCursor {
    var lastEventID: String?
    var serverRetry: Duration?
}

/// How one connection of a subscription ended.
private enum StreamOutcome {
    /// The server said stop (204).
    case stop
    /// The stream ended normally.
    case ended
    /// It failed in a way worth reconnecting after; `connected` when events had started to flow.
    case failed(HTTPError, connected: Bool)
}
