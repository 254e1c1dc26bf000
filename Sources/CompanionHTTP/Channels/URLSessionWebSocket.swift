// Apple glue: `URLSessionWebSocketTask` behind `ChannelTransport`. Not compiled on Linux (Foundation there has no
// working WebSocket: Debian's libcurl has none compiled in; see CurlWebSocket.swift), so this file is kept thin.
#if canImport(Darwin) && canImport(Security)
    import CompanionCore
    import Foundation

    /// WebSocket on Apple platforms: `URLSessionWebSocketTask`, with one server's TLS settings answered by the same
    /// `SecurityChallengeResponder` the HTTP transport uses.
    public struct URLSessionWebSocketTransport: ChannelTransport {
        private let session: URLSession

        /// A transport for one server's `security` (its CAs or pins, its client certificate).
        public init(security: ConnectionSecurity = .system) {
            session = URLSession(
                configuration: .ephemeral,
                delegate: WebSocketChallengeDelegate(responder: SecurityChallengeResponder(security: security)),
                delegateQueue: nil)
        }

        /// Opens the task and waits for the upgrade (a first ping answered proves it).
        public func open(_ request: ChannelRequest) async throws(ChannelError) -> any ChannelSocket {
            var urlRequest = URLRequest(url: request.webSocketURL)
            urlRequest.timeoutInterval = max(1, request.openTimeout.seconds)
            for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
            let task = session.webSocketTask(with: urlRequest)
            task.maximumMessageSize = request.maxMessageBytes
            task.resume()
            let socket = URLSessionWebSocket(task: task)
            do {
                try await socket.ping()
            } catch {
                if let response = task.response as? HTTPURLResponse, response.statusCode != 101 {
                    throw .handshakeRefused(
                        status: response.statusCode,
                        sentence: HTTPURLResponse.localizedString(forStatusCode: response.statusCode))
                }
                throw error
            }
            return socket
        }
    }

    /// One `URLSessionWebSocketTask` as a `ChannelSocket`.
    final class URLSessionWebSocket: ChannelSocket {
        let messages: AsyncThrowingStream<ChannelMessage, any Error>
        private let task: URLSessionWebSocketTask

        init(task: URLSessionWebSocketTask) {
            self.task = task
            let (stream, continuation) = AsyncThrowingStream<ChannelMessage, any Error>.makeStream()
            messages = stream
            let reader = Task {
                while true {
                    do {
                        switch try await task.receive() {
                        case .string(let text): continuation.yield(.text(text))
                        case .data(let data): continuation.yield(.binary(data))
                        @unknown default: continue
                        }
                    } catch {
                        let code = WebSocketCloseCode(rawValue: UInt16(task.closeCode.rawValue))
                        let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
                        continuation.finish(
                            throwing: task.closeCode == .invalid
                                ? ChannelError.connection(.transport(error.localizedDescription))
                                : ChannelError.closed(code: code, reason: reason))
                        return
                    }
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }

        func send(_ message: ChannelMessage) async throws(ChannelError) {
            do {
                switch message {
                case .text(let text): try await task.send(.string(text))
                case .binary(let data): try await task.send(.data(data))
                case .event: throw ChannelError.unsupported("send a Server-Sent Event")
                }
            } catch let error as ChannelError {
                throw error
            } catch {
                throw .connection(.transport(error.localizedDescription))
            }
        }

        func ping() async throws(ChannelError) {
            let failure: (any Error)? = await withCheckedContinuation { continuation in
                task.sendPing { continuation.resume(returning: $0) }
            }
            if let failure { throw .connection(.transport(failure.localizedDescription)) }
        }

        func close(_ code: WebSocketCloseCode, reason: String) async {
            task.cancel(
                with: URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .normalClosure,
                reason: Data(reason.utf8))
        }
    }

    /// Answers the task's TLS challenges with the server's settings (the HTTP transport's responder).
    private final class WebSocketChallengeDelegate: NSObject, URLSessionTaskDelegate, Sendable {
        private let responder: any ChallengeResponder

        init(responder: any ChallengeResponder) { self.responder = responder }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let answer = responder.answer(challenge)
            completionHandler(answer.disposition, answer.credential)
        }
    }
#endif
