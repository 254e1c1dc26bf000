import CompanionCore
import Foundation

/// Server-Sent Events as a channel transport: today's `Client.events` (EventSource) behind `ChannelTransport`, so a
/// server that streams SSE gets the same channel (state, reconnect with backoff and jitter, journal) as one that
/// speaks WebSocket. Pair it with `EventStreamDialect`.
///
/// Rules: the stream is the client's own request (`request`, signed by the client's middleware like any other), so
/// the `ChannelRequest`'s URL is not used; each connection of the channel is one EventSource connection with its own
/// reconnects off (the channel reconnects), resuming after the last event id seen (`Last-Event-ID`). It takes no
/// messages: `send` fails with `unsupported`, and `ping` returns at once (the stream's idle timeout finds a dead
/// peer).
public struct EventSourceChannelTransport: ChannelTransport {
    private let client: Client
    private let request: Request<Void>
    private let configuration: EventSourceConfiguration
    private let lastEventID: Locked<String?>

    /// A transport streaming `request` from `client`; `configuration`'s reconnects are turned off.
    public init(
        client: Client, request: Request<Void>, configuration: EventSourceConfiguration = EventSourceConfiguration()
    ) {
        self.client = client
        self.request = request
        var configuration = configuration
        configuration.reconnects = false
        self.configuration = configuration
        self.lastEventID = Locked(configuration.lastEventID)
    }

    /// Starts the stream; its failures (a refused request, a lost connection) end the socket's messages.
    public func open(_ channelRequest: ChannelRequest) async throws(ChannelError) -> any ChannelSocket {
        var settings = configuration
        settings.lastEventID = lastEventID.withLock { $0 }
        return EventSourceSocket(events: client.events(request, configuration: settings), lastEventID: lastEventID)
    }
}

/// One EventSource connection as a `ChannelSocket`.
final class EventSourceSocket: ChannelSocket {
    let messages: AsyncThrowingStream<ChannelMessage, any Error>
    private let reader: Task<Void, Never>

    init(events: AsyncThrowingStream<ServerSentEvent, any Error>, lastEventID: Locked<String?>) {
        let (stream, continuation) = AsyncThrowingStream<ChannelMessage, any Error>.makeStream()
        messages = stream
        reader = Task {
            do {
                for try await event in events {
                    if let id = event.id { lastEventID.withLock { $0 = id } }
                    continuation.yield(.event(event))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: ChannelError.connection(HTTPError.wrap(error, url: nil)))
            }
        }
        let reader = reader
        continuation.onTermination = { _ in reader.cancel() }
    }

    func send(_ message: ChannelMessage) async throws(ChannelError) {
        throw .unsupported("send messages on a Server-Sent Events stream")
    }

    func ping() async throws(ChannelError) {}

    func close(_ code: WebSocketCloseCode, reason: String) async { reader.cancel() }
}
