import CompanionCore
import CompanionHTTP
import Foundation

/// A session's live stream, `GET <apiBase>/v1/sessions/{id}/stream` (O-WATCH-6, O-OPEN-20), for the phone's
/// detail screen and the watch alike.
///
/// Rules, and their reasons:
/// - `data: [DONE]` ends the stream: nothing after it is passed on and no reconnection is made, since the
///   server said the session's stream is over.
/// - 45 s without a byte is a dead stream (the server sends `session.heartbeat` every 15 s).
/// - An event over 1 MiB is dropped and the stream goes on, as the real app's watch does: one oversized frame
///   must not cost the live view, and memory stays bounded either way.
/// - A drop or a failed connection reconnects after 1, 2, 4 … 30 s (the kit's event source, waiting on the
///   client's sleeper); Omnigent has no `Last-Event-ID`, so a screen reads its items again on every
///   (re)connection (`session.presence` is sent first on each).
public enum OmnigentStream {
    /// The data of the event that ends a stream.
    public static let endMarker = "[DONE]"

    /// The event source's settings for Omnigent's stream.
    public static let configuration = EventSourceConfiguration(
        initialDelay: .seconds(1), maxDelay: .seconds(30), idleTimeout: .seconds(45), maxFrameBytes: 1024 * 1024,
        oversizedFrames: .drop)

    /// The live events of session `id` through `client`, until `[DONE]`, the caller stops, or the stream
    /// fails for good.
    public static func events(of id: String, client: Client) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        events(OmnigentAPI.stream(id), client: client)
    }

    /// The events of the stream `request` asks for, by the rules above.
    public static func events(
        _ request: Request<Void>, client: Client
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        // The event source reconnects on its own schedule; the read retry of each connection would only add
        // waits of its own to it.
        let inner = client.events(request.retrying(.never), configuration: configuration)
        let journal = client.configuration.journal
        let (stream, continuation) = AsyncThrowingStream<ServerSentEvent, any Error>.makeStream()
        let task = Task {
            do {
                for try await event in inner {
                    if event.data.trimmingCharacters(in: .whitespacesAndNewlines) == endMarker {
                        journal.record(.sync, "live stream ended by the server", fields: ["marker": endMarker])
                        break
                    }
                    continuation.yield(event)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
