#if os(Linux) && canImport(CCurl)
    import CCurl
    import CompanionCore
    import Foundation
    import Glibc

    /// WebSocket on Linux: libcurl's connect-only stream (`CURLOPT_CONNECT_ONLY`, `curl_easy_send`,
    /// `curl_easy_recv`) with the kit's own RFC 6455 codec on top.
    ///
    /// Why: Debian's libcurl has no WebSocket compiled in, so Foundation's `URLSessionWebSocketTask` cannot connect
    /// here; libcurl still makes the TCP and TLS connection, so the server's trust, pins and client certificate are
    /// set by the very code the HTTP transport uses (`CurlSecurity`), and a certificate it refuses reads the same.
    ///
    /// Rules:
    /// - The upgrade is checked (`WebSocketHandshake`): any status but `101` fails with the server's status and
    ///   sentence; a proxy's Basic challenge and nginx's client-certificate page become the same errors as over
    ///   HTTP (`ProxyGate.upgradeRefusal`).
    /// - Every frame sent is masked with a fresh key; a message is written once and never resent.
    /// - Pings are answered with pongs at once; the peer's close is echoed with its code; a protocol breach closes
    ///   with 1002, 1007 or 1009.
    public struct CurlWebSocketTransport: ChannelTransport {
        private let security: ConnectionSecurity

        /// A transport with one server's TLS settings (its CAs or pins, its client certificate).
        public init(security: ConnectionSecurity = .system) {
            self.security = security
        }

        /// Connects, upgrades and returns the open socket.
        public func open(_ request: ChannelRequest) async throws(ChannelError) -> any ChannelSocket {
            let scoped = security.applies(to: request.httpURL) ? security : security.outsideScope
            let curlSecurity = scoped.isSystem ? nil : CurlSecurity(scoped)
            if let problem = curlSecurity?.identityProblem {
                throw .connection(.tls(host: request.url.host ?? "the server", detail: problem.description))
            }
            let socket = CurlWebSocket(request: request, security: curlSecurity)
            let result = await withCheckedContinuation { (opened: CheckedContinuation<CurlWebSocket.Opening, Never>) in
                socket.start(opened)
            }
            switch result {
            case .open:
                return socket
            case .failed(let error):
                throw error
            case .certificate(let error, let failure):
                throw .connection(
                    await CertificateDiagnosis.refusal(
                        for: request.httpURL, failure: failure, pins: curlSecurity?.pins ?? [], fallback: error))
            }
        }
    }

    /// One WebSocket connection: a thread of its own owns the libcurl handle and does every read and write.
    final class CurlWebSocket: ChannelSocket, @unchecked Sendable {
        // Why `@unchecked Sendable` is sound: `easy`, `socket`, `decoder` and `closing` are read and written only on
        // the connection's own thread (`run`, started once by `start`); other threads reach it through `outbox` (a
        // `Locked`) and the wake pipe, and `continuation` is an `AsyncThrowingStream.Continuation` (thread-safe).

        enum Opening: Sendable {
            case open
            case failed(ChannelError)
            case certificate(HTTPError, CurlCertificateFailure)
        }

        private struct Outgoing {
            var bytes: [UInt8]
            var written: CheckedContinuation<Result<Void, ChannelError>, Never>?
        }

        private struct Outbox {
            var frames: [Outgoing] = []
            var pings: [UInt64: CheckedContinuation<Result<Void, ChannelError>, Never>] = [:]
            var nextPing: UInt64 = 1
            var closeAsked: (WebSocketCloseCode, String)?
            var closeWaiters: [CheckedContinuation<Void, Never>] = []
            var ended: ChannelError?
            var finished = false
        }

        let messages: AsyncThrowingStream<ChannelMessage, any Error>
        private let continuation: AsyncThrowingStream<ChannelMessage, any Error>.Continuation
        private let request: ChannelRequest
        private let security: CurlSecurity?
        private let outbox = Locked(Outbox())
        private let wakeRead: Int32
        private let wakeWrite: Int32
        private let errorBuffer = CurlErrorBuffer()
        private var easy: UnsafeMutableRawPointer?
        private var socket: curl_socket_t = -1
        private var decoder: WebSocketDecoder
        private var closeSent = false

        init(request: ChannelRequest, security: CurlSecurity?) {
            self.request = request
            self.security = security
            decoder = WebSocketDecoder(maxMessageBytes: request.maxMessageBytes)
            (messages, continuation) = AsyncThrowingStream<ChannelMessage, any Error>.makeStream()
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) == 0 {
                _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
                _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
            }
            wakeRead = fds[0]
            wakeWrite = fds[1]
            continuation.onTermination = { [weak self] termination in
                guard case .cancelled = termination, let self else { return }
                Task { await self.close(.goingAway, reason: "") }
            }
        }

        deinit {
            if wakeRead >= 0 { Glibc.close(wakeRead) }
            if wakeWrite >= 0 { Glibc.close(wakeWrite) }
        }

        /// Starts the connection's thread: it connects, upgrades, tells `opened`, then serves the connection.
        func start(_ opened: CheckedContinuation<Opening, Never>) {
            let thread = Thread { [self] in
                let result = connect()
                opened.resume(returning: result)
                if case .open = result { serve() }
                cleanUp()
            }
            thread.name = "CompanionHTTP.WebSocket"
            thread.start()
        }

        // MARK: The public side (any thread)

        func send(_ message: ChannelMessage) async throws(ChannelError) {
            let frame: [UInt8]
            switch message {
            case .text(let text): frame = Self.frame(.text, Array(text.utf8))
            case .binary(let data): frame = Self.frame(.binary, Array(data))
            case .event: throw .unsupported("send a Server-Sent Event")
            }
            try await enqueue(frame)
        }

        func ping() async throws(ChannelError) {
            let result = await withCheckedContinuation {
                (done: CheckedContinuation<Result<Void, ChannelError>, Never>) in
                let failure: ChannelError? = outbox.withLock { box in
                    if let ended = box.ended { return ended }
                    let number = box.nextPing
                    box.nextPing += 1
                    box.pings[number] = done
                    box.frames.append(Outgoing(bytes: Self.frame(.ping, Self.bigEndian(number)), written: nil))
                    return nil
                }
                if let failure { done.resume(returning: .failure(failure)) } else { wake() }
            }
            try result.get()
        }

        func close(_ code: WebSocketCloseCode, reason: String) async {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let finished = outbox.withLock { box in
                    if box.finished { return true }
                    if box.closeAsked == nil { box.closeAsked = (code, reason) }
                    box.closeWaiters.append(done)
                    return false
                }
                if finished { done.resume() } else { wake() }
            }
        }

        private func enqueue(_ frame: [UInt8]) async throws(ChannelError) {
            let result = await withCheckedContinuation {
                (done: CheckedContinuation<Result<Void, ChannelError>, Never>) in
                let failure: ChannelError? = outbox.withLock { box in
                    if let ended = box.ended { return ended }
                    if box.closeAsked != nil { return .notConnected("the connection is closing") }
                    box.frames.append(Outgoing(bytes: frame, written: done))
                    return nil
                }
                if let failure { done.resume(returning: .failure(failure)) } else { wake() }
            }
            try result.get()
        }

        private func wake() {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }

        static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
            var generator = SystemRandomNumberGenerator()
            return WebSocketFrameEncoder.frame(opcode, payload: payload, maskKey: generator.next())
        }

        static func bigEndian(_ value: UInt64) -> [UInt8] {
            (0..<8).map { UInt8((value >> UInt64(56 - $0 * 8)) & 0xFF) }
        }

        // MARK: The connection's thread

        private var deadline: UInt64 = 0

        private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

        private func millisecondsLeft() -> Int32 {
            let now = Self.now()
            return now >= deadline ? 0 : Int32(min(UInt64(Int32.max), (deadline - now) / 1_000_000 + 1))
        }

        /// TCP, TLS, the upgrade request and its answer, all within the request's open timeout.
        private func connect() -> Opening {
            let url = request.httpURL
            let timeout = request.openTimeout
            let milliseconds = max(
                1, Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
            deadline = Self.now() + UInt64(milliseconds) * 1_000_000
            guard let easy = curl_easy_init() else {
                return .failed(.connection(.transport("libcurl could not create a connection")))
            }
            self.easy = easy
            _ = url.absoluteString.withCString { ck_easy_setopt_pointer(easy, CURLOPT_URL, $0) }
            _ = ck_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
            _ = ck_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1)
            _ = ck_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
            _ = ck_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
            security?.configure(easy)
            _ = ck_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer.pointer)
            _ = ck_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
            let code = curl_easy_perform(easy)
            guard code == CURLE_OK else {
                let unreachable = HTTPError.unreachable(
                    host: url.host ?? "the server", detail: HTTPError.connectTimeoutDetail)
                let (error, certificate) = CurlFailure.map(
                    code, url: url, detail: errorBuffer.text, offersIdentity: security?.offersIdentity ?? false,
                    receivedBytes: 0, timeoutError: unreachable, easy: easy)
                if let certificate { return .certificate(error, certificate) }
                return .failed(.connection(error))
            }
            _ = ck_easy_getinfo_socket(easy, &socket)
            let handshake = WebSocketHandshake()
            if let failure = writeAll(handshake.request(for: request.webSocketURL, headers: request.headers)) {
                return .failed(failure)
            }
            var received: [UInt8] = []
            var headEnd: Int?
            while headEnd == nil {
                switch readSome(timeout: millisecondsLeft()) {
                case .bytes(let bytes):
                    received += bytes
                    headEnd = WebSocketHandshake.headEnd(in: received)
                    if headEnd == nil, received.count > 64 * 1024 {
                        return .failed(.badHandshake("the answer's head is longer than 64 KiB"))
                    }
                case .idle:
                    if millisecondsLeft() == 0 {
                        return .failed(.connection(.timedOut(url: HTTPError.describe(url))))
                    }
                case .end(let error):
                    return .failed(
                        error
                            ?? .connection(.connectionLost(url: HTTPError.describe(url), receivedBytes: received.count))
                    )
                }
            }
            guard let headEnd, let head = WebSocketHandshake.parseHead(Array(received[..<headEnd])) else {
                return .failed(.badHandshake("the answer is not HTTP"))
            }
            let rest = Array(received[headEnd...])
            guard head.status == 101 else {
                return .failed(refusal(head, body: readBody(rest, headers: head.headers)))
            }
            if let problem = handshake.problem(with: head.headers) { return .failed(.badHandshake(problem)) }
            if !rest.isEmpty { process(rest) }
            return .open
        }

        /// The body of a refused upgrade (at most 64 KiB, until its length or the open deadline).
        private func readBody(_ start: [UInt8], headers: HTTPHeaders) -> [UInt8] {
            var body = start
            let expected = headers["Content-Length"].flatMap(Int.init) ?? 64 * 1024
            while body.count < min(expected, 64 * 1024) {
                guard case .bytes(let bytes) = readSome(timeout: min(millisecondsLeft(), 1000)) else { break }
                body += bytes
            }
            return Array(body.prefix(64 * 1024))
        }

        private func refusal(_ head: (status: Int, reason: String, headers: HTTPHeaders), body: [UInt8]) -> ChannelError
        {
            let page = String(decoding: body, as: UTF8.self)
            if let error = ProxyGate.upgradeRefusal(
                status: head.status, headers: head.headers, page: page, url: request.httpURL,
                sentBasic: request.headers["Authorization"]?.lowercased().hasPrefix("basic ") == true,
                offersIdentity: security?.offersIdentity ?? false)
            {
                return .connection(error)
            }
            return .handshakeRefused(
                status: head.status,
                sentence: WebSocketHandshake.sentence(reason: head.reason, headers: head.headers, body: body))
        }

        private enum Read {
            case bytes([UInt8])
            case idle
            case end(ChannelError?)
        }

        /// Whatever is readable within `timeout` ms (`-1`: no limit, `0`: only what is there).
        private func readSome(timeout: Int32) -> Read {
            guard let easy else { return .end(nil) }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var count = 0
            let code = buffer.withUnsafeMutableBytes { curl_easy_recv(easy, $0.baseAddress, $0.count, &count) }
            if code == CURLE_OK {
                return count == 0 ? .end(nil) : .bytes(Array(buffer[0..<count]))
            }
            guard code == CURLE_AGAIN else { return .end(.connection(lost(code))) }
            var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, timeout)
            return .idle
        }

        private func lost(_ code: CURLcode) -> HTTPError {
            guard let easy else { return .connectionLost(url: HTTPError.describe(request.url), receivedBytes: 0) }
            return CurlFailure.map(
                code, url: request.httpURL, detail: errorBuffer.text, offersIdentity: security?.offersIdentity ?? false,
                receivedBytes: 0, timeoutError: .timedOut(url: HTTPError.describe(request.url)), easy: easy
            ).0
        }

        /// Writes `bytes` whole; the error when the connection broke.
        private func writeAll(_ bytes: [UInt8]) -> ChannelError? {
            guard let easy else { return .notConnected("the connection is closed") }
            var offset = 0
            while offset < bytes.count {
                var sent = 0
                let code = bytes.withUnsafeBytes { raw in
                    curl_easy_send(easy, raw.baseAddress?.advanced(by: offset), raw.count - offset, &sent)
                }
                if code == CURLE_AGAIN {
                    var fds = [pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)]
                    _ = poll(&fds, 1, 1000)
                    continue
                }
                guard code == CURLE_OK else { return .connection(lost(code)) }
                offset += sent
            }
            return nil
        }

        /// Reads frames and writes what the other side queued until the connection ends: the peer's end of the TCP
        /// connection, or 2 s after the close handshake (or a failure) began.
        private func serve() {
            var closingSince: UInt64?
            var failed = false
            serving: while true {
                if let since = closingSince, Self.now() - since > 2_000_000_000 { break }
                if let failure = writeQueued() {
                    end(failure)
                    break
                }
                if let asked = outbox.withLock({ $0.closeAsked }), !closeSent {
                    closeSent = true
                    _ = writeAll(Self.frame(.close, WebSocketFrameEncoder.closePayload(asked.0, reason: asked.1)))
                    closingSince = closingSince ?? Self.now()
                }
                var fds = [
                    pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                ]
                _ = poll(&fds, 2, closingSince == nil ? 60_000 : 100)
                if fds[1].revents != 0 {
                    var drain = [UInt8](repeating: 0, count: 64)
                    while read(wakeRead, &drain, drain.count) > 0 {}
                }
                reading: while true {
                    switch readSome(timeout: 0) {
                    case .bytes(let bytes):
                        if !failed, !process(bytes) {
                            failed = !decoder.isClosed
                            closingSince = closingSince ?? Self.now()
                        }
                    case .idle:
                        break reading
                    case .end(let error):
                        end(
                            error
                                ?? .connection(.connectionLost(url: HTTPError.describe(request.url), receivedBytes: 0)))
                        break serving
                    }
                }
            }
        }

        /// Feeds received bytes to the decoder and acts on what they complete; `false` once the connection is
        /// closing (the peer's close, or a breach of the protocol).
        @discardableResult
        private func process(_ bytes: [UInt8]) -> Bool {
            let events: [WebSocketEvent]
            do throws(WebSocketProtocolError) {
                events = try decoder.feed(bytes)
            } catch {
                if !closeSent {
                    closeSent = true
                    _ = writeAll(Self.frame(.close, WebSocketFrameEncoder.closePayload(error.closeCode, reason: "")))
                }
                end(.protocolViolation(error))
                return false
            }
            for event in events {
                switch event {
                case .text(let text): continuation.yield(.text(text))
                case .binary(let data): continuation.yield(.binary(data))
                case .ping(let payload): _ = writeAll(Self.frame(.pong, Array(payload)))
                case .pong(let payload):
                    guard payload.count == 8 else { continue }
                    let number = payload.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                    let waiter = outbox.withLock { $0.pings.removeValue(forKey: number) }
                    waiter?.resume(returning: .success(()))
                case .close(let code, let reason):
                    let asked = outbox.withLock { $0.closeAsked != nil }
                    if !closeSent {
                        closeSent = true
                        let payload = code.map { WebSocketFrameEncoder.closePayload($0, reason: "") } ?? []
                        _ = writeAll(Self.frame(.close, payload))
                    }
                    end(asked ? nil : .closed(code: code, reason: reason))
                    return false
                }
            }
            return true
        }

        private func writeQueued() -> ChannelError? {
            let frames = outbox.withLock { box in
                let taken = box.frames
                box.frames.removeAll()
                return taken
            }
            for frame in frames {
                let failure = writeAll(frame.bytes)
                frame.written?.resume(returning: failure.map { .failure($0) } ?? .success(()))
                if let failure { return failure }
            }
            return nil
        }

        /// Ends the message stream (once): with `error`, or cleanly after a close the app asked for.
        private func end(_ error: ChannelError?) {
            let (pings, frames, first) = outbox.withLock {
                box -> ([CheckedContinuation<Result<Void, ChannelError>, Never>], [Outgoing], Bool) in
                let first = box.ended == nil
                if first { box.ended = error ?? .notConnected("the connection was closed") }
                let pings = Array(box.pings.values)
                box.pings.removeAll()
                let frames = box.frames
                box.frames.removeAll()
                return (pings, frames, first)
            }
            let failure = error ?? .notConnected("the connection was closed")
            for ping in pings { ping.resume(returning: .failure(failure)) }
            for frame in frames { frame.written?.resume(returning: .failure(failure)) }
            guard first else { return }
            if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        }

        private func cleanUp() {
            end(.notConnected("the connection was closed"))
            if let easy { curl_easy_cleanup(easy) }
            easy = nil
            let waiters = outbox.withLock { box in
                box.finished = true
                let waiters = box.closeWaiters
                box.closeWaiters.removeAll()
                return waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
#endif
