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
            let result = await withCheckedContinuation {
                (opened: CheckedContinuation<CurlWebSocket.Opening, Never>) in
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
                        for: request.httpURL, failure: failure, pins: curlSecurity?.pins ?? [], fallback: error)
                )
            }
        }
    }

    /// One WebSocket connection. A thread of its own connects, reads every frame and writes what has to wait; a
    /// message sent while the connection is idle goes out from the sender's own task, without waking that thread.
    ///
    /// How the work is shared (all of it measured by P11, `docs/benchmarks.md`):
    /// - `io` (a mutex) guards the libcurl handle: whoever holds it may call `curl_easy_send` / `curl_easy_recv`.
    ///   The thread holds it while it writes queued frames and reads what is there, and lets go of it while it
    ///   waits in `poll`. A sender that finds it free and nothing queued writes its frame at once; one that finds
    ///   it taken (or frames queued, or only part of its frame written) queues the rest behind the others and
    ///   wakes the thread through the wake pipe. Frames go out whole and in order: only a holder of `io` writes,
    ///   and a frame written in part stays at the head of the queue.
    /// - One receive buffer is read into for the life of the connection, and the decoder reads it in place.
    /// - Mask keys come from the system's random source 256 at a time (one `getrandom` for 256 frames).
    final class CurlWebSocket: ChannelSocket, @unchecked Sendable {
        // Why `@unchecked Sendable` is sound: `easy`, `socket`, `closeSent` and `receiveBuffer` are used only while
        // `io` is held (set once by `connect()` on the connection's thread before `open` returns the socket, and
        // cleared by `cleanUp()` under `io`); `decoder`, `inbound` and `deadline` are used only on the connection's
        // thread (so is `end`, which finishes the stream: a sender's failed write leaves `broken` for the thread);
        // everything else is a `Locked`, a constant, or the `CurlWebSocketInbox` (`Sendable`).

        enum Opening: Sendable {
            case open
            case failed(ChannelError)
            case certificate(HTTPError, CurlCertificateFailure)
        }

        /// A frame waiting for the connection's thread, from `offset` on (a frame a sender wrote in part).
        private struct Outgoing {
            var bytes: [UInt8]
            var offset = 0
            var written: Written?
        }

        private struct Outbox {
            var frames: [Outgoing] = []
            var pings: [UInt64: CheckedContinuation<Result<Void, ChannelError>, Never>] = [:]
            var nextPing: UInt64 = 1
            var closeAsked: (WebSocketCloseCode, String)?
            var closeWaiters: [CheckedContinuation<Void, Never>] = []
            var ended: ChannelError?
            /// A sender's own write failed: the thread ends the connection with this.
            var broken: ChannelError?
            var finished = false
        }

        /// What a sender's attempt to write its frame itself came to.
        private enum Direct {
            /// Written whole.
            case sent
            /// The connection broke (or was already closed).
            case failed(ChannelError)
            /// Written in part: the rest is at the head of the queue, and the thread says when it is out.
            case partial(Written)
            /// The handle is busy or frames are queued: the frame was not touched.
            case busy
        }

        /// The size of the receive buffer: a read takes what the kernel (or one TLS record) has, up to this.
        private static let receiveSize = 64 * 1024

        let messages: AsyncThrowingStream<ChannelMessage, any Error>
        private let inbox = CurlWebSocketInbox()
        private let request: ChannelRequest
        private let security: CurlSecurity?
        private let outbox = Locked(Outbox())
        private let io = CurlIOLock()
        private let keys = Locked(MaskKeys())
        private let wakeRead: Int32
        private let wakeWrite: Int32
        private let errorBuffer = CurlErrorBuffer()
        private let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: receiveSize, alignment: 16)
        private var easy: UnsafeMutableRawPointer?
        private var socket: curl_socket_t = -1
        private var decoder: WebSocketDecoder
        /// Messages read and not yet handed to the stream (the connection's thread).
        private var inbound: [ChannelMessage] = []
        private var closeSent = false

        init(request: ChannelRequest, security: CurlSecurity?) {
            self.request = request
            self.security = security
            decoder = WebSocketDecoder(maxMessageBytes: request.maxMessageBytes)
            messages = AsyncThrowingStream(unfolding: { [inbox] in try await inbox.next() })
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) == 0 {
                _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
                _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
            }
            wakeRead = fds[0]
            wakeWrite = fds[1]
            inbox.onCancel { [weak self] in
                guard let self else { return }
                Task { await self.close(.goingAway, reason: "") }
            }
        }

        deinit {
            if wakeRead >= 0 { Glibc.close(wakeRead) }
            if wakeWrite >= 0 { Glibc.close(wakeWrite) }
            receiveBuffer.deallocate()
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
            case .text(var text):
                let key = nextKey()
                frame = text.withUTF8 { WebSocketFrameEncoder.frame(.text, payload: $0, maskKey: key) }
            case .binary(let data):
                let key = nextKey()
                frame = data.withUnsafeBytes {
                    WebSocketFrameEncoder.frame(.binary, payload: $0, maskKey: key)
                }
            case .event: throw .unsupported("send a Server-Sent Event")
            }
            try await enqueue(frame)
        }

        func ping() async throws(ChannelError) {
            let key = nextKey()
            let result = await withCheckedContinuation {
                (done: CheckedContinuation<Result<Void, ChannelError>, Never>) in
                let failure: ChannelError? = outbox.withLock { box in
                    if let ended = box.ended { return ended }
                    let number = box.nextPing
                    box.nextPing += 1
                    box.pings[number] = done
                    box.frames.append(Outgoing(bytes: Self.frame(.ping, Self.bigEndian(number), key: key)))
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

        /// Writes `frame` from this task when the handle is free and nothing is queued; otherwise queues it for
        /// the connection's thread. Returns once it is handed to the network.
        private func enqueue(_ frame: [UInt8]) async throws(ChannelError) {
            switch io.withLockIfAvailable({ writeDirect(frame) }) ?? .busy {
            case .sent:
                return
            case .failed(let error):
                throw error
            case .partial(let written):
                wake()
                try await written.wait().get()
            case .busy:
                let written = Written()
                let failure: ChannelError? = outbox.withLock { box in
                    if let ended = box.ended { return ended }
                    if box.closeAsked != nil { return .notConnected("the connection is closing") }
                    box.frames.append(Outgoing(bytes: frame, written: written))
                    return nil
                }
                if let failure { throw failure }
                wake()
                try await written.wait().get()
            }
        }

        /// A sender's own write of `frame`, `io` held: nothing is written unless the queue is empty.
        private func writeDirect(_ frame: [UInt8]) -> Direct {
            let state: ChannelError?? = outbox.withLock { box in
                if let ended = box.ended { return .some(ended) }
                if box.closeAsked != nil { return .some(.notConnected("the connection is closing")) }
                return box.frames.isEmpty ? .some(nil) : nil
            }
            guard let state else { return .busy }
            if let refused = state { return .failed(refused) }
            guard let easy, !closeSent else { return .failed(.notConnected("the connection is closed")) }
            var offset = 0
            while offset < frame.count {
                var sent = 0
                let code = frame.withUnsafeBytes { raw in
                    curl_easy_send(easy, raw.baseAddress?.advanced(by: offset), raw.count - offset, &sent)
                }
                if code == CURLE_AGAIN {
                    // The rest goes first when the thread writes next (it is woken by the caller).
                    let written = Written()
                    outbox.withLock { box in
                        box.frames.insert(Outgoing(bytes: frame, offset: offset, written: written), at: 0)
                    }
                    return .partial(written)
                }
                guard code == CURLE_OK else {
                    let failure = ChannelError.connection(lost(code))
                    outbox.withLock { $0.broken = failure }
                    wake()
                    return .failed(failure)
                }
                offset += sent
            }
            return .sent
        }

        private func wake() {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }

        /// The next masking key: from the system's random source, fetched 256 keys at a time.
        private func nextKey() -> UInt32 {
            keys.withLock { $0.next() }
        }

        static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], key: UInt32) -> [UInt8] {
            WebSocketFrameEncoder.frame(opcode, payload: payload, maskKey: key)
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

        /// TCP, TLS, the upgrade request and its answer, all within the request's open timeout. (No sender can
        /// reach the handle yet: `io` is not needed until `open` returns the socket.)
        private func connect() -> Opening {
            let url = request.httpURL
            let timeout = request.openTimeout
            let milliseconds = max(
                1,
                Int(
                    timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
                ))
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
                    code, url: url, detail: errorBuffer.text,
                    offersIdentity: security?.offersIdentity ?? false,
                    receivedBytes: 0, timeoutError: unreachable, easy: easy)
                if let certificate { return .certificate(error, certificate) }
                return .failed(.connection(error))
            }
            _ = ck_easy_getinfo_socket(easy, &socket)
            let handshake = WebSocketHandshake()
            if let failure = writeAll(
                handshake.request(for: request.webSocketURL, headers: request.headers))
            {
                return .failed(failure)
            }
            var received: [UInt8] = []
            var headEnd: Int?
            while headEnd == nil {
                switch receive(timeout: millisecondsLeft()) {
                case .bytes(let count):
                    received += UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<count])
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
                            ?? .connection(
                                .connectionLost(url: HTTPError.describe(url), receivedBytes: received.count))
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
            if let problem = handshake.problem(with: head.headers) {
                return .failed(.badHandshake(problem))
            }
            if !rest.isEmpty { _ = rest.withUnsafeBytes { process($0) } }
            return .open
        }

        /// The body of a refused upgrade (at most 64 KiB, until its length or the open deadline).
        private func readBody(_ start: [UInt8], headers: HTTPHeaders) -> [UInt8] {
            var body = start
            let expected = headers["Content-Length"].flatMap(Int.init) ?? 64 * 1024
            while body.count < min(expected, 64 * 1024) {
                guard case .bytes(let count) = receive(timeout: min(millisecondsLeft(), 1000)) else {
                    break
                }
                body += UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<count])
            }
            return Array(body.prefix(64 * 1024))
        }

        private func refusal(_ head: (status: Int, reason: String, headers: HTTPHeaders), body: [UInt8])
            -> ChannelError
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
                sentence: WebSocketHandshake.sentence(
                    reason: head.reason, headers: head.headers, body: body))
        }

        private enum Read {
            /// This many bytes are at the start of `receiveBuffer`.
            case bytes(Int)
            case idle
            case end(ChannelError?)
        }

        /// Reads whatever is there into `receiveBuffer`; with nothing there, waits up to `timeout` ms for it
        /// (`0`: not at all) and says `idle`.
        private func receive(timeout: Int32 = 0) -> Read {
            guard let easy else { return .end(nil) }
            var count = 0
            let code = curl_easy_recv(easy, receiveBuffer.baseAddress, receiveBuffer.count, &count)
            if code == CURLE_OK {
                return count == 0 ? .end(nil) : .bytes(count)
            }
            guard code == CURLE_AGAIN else { return .end(.connection(lost(code))) }
            if timeout != 0 {
                var fds = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                _ = poll(&fds, 1, timeout)
            }
            return .idle
        }

        private func lost(_ code: CURLcode) -> HTTPError {
            guard let easy else {
                return .connectionLost(url: HTTPError.describe(request.url), receivedBytes: 0)
            }
            return CurlFailure.map(
                code, url: request.httpURL, detail: errorBuffer.text,
                offersIdentity: security?.offersIdentity ?? false,
                receivedBytes: 0, timeoutError: .timedOut(url: HTTPError.describe(request.url)), easy: easy
            ).0
        }

        /// Writes `bytes` from `offset` on, whole (waiting for the socket as long as it takes); the error when the
        /// connection broke. `io` held (or the connection not yet handed out).
        private func writeAll(_ bytes: [UInt8], from start: Int = 0) -> ChannelError? {
            guard let easy else { return .notConnected("the connection is closed") }
            var offset = start
            while offset < bytes.count {
                var sent = 0
                let code = bytes.withUnsafeBytes { raw in
                    curl_easy_send(easy, raw.baseAddress?.advanced(by: offset), raw.count - offset, &sent)
                }
                if code == CURLE_AGAIN {
                    var fds = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&fds, 1, 1000)
                    continue
                }
                guard code == CURLE_OK else { return .connection(lost(code)) }
                offset += sent
            }
            return nil
        }

        /// Writes what senders queued and reads what arrived, `io` held, then waits (without it) for the socket or
        /// the wake pipe, until the connection ends: the peer's end of the TCP connection, a sender's failed
        /// write, or 2 s after the close handshake (or a failure) began.
        private func serve() {
            var closingSince: UInt64?
            var failed = false
            while true {
                if let since = closingSince, Self.now() - since > 2_000_000_000 { break }
                let goOn: Bool = io.withLock {
                    if let broken = outbox.withLock({ $0.broken }) {
                        end(broken)
                        return false
                    }
                    if let failure = writeQueued() {
                        end(failure)
                        return false
                    }
                    if let asked = outbox.withLock({ $0.closeAsked }), !closeSent {
                        closeSent = true
                        let payload = WebSocketFrameEncoder.closePayload(asked.0, reason: asked.1)
                        _ = writeAll(Self.frame(.close, payload, key: nextKey()))
                        closingSince = closingSince ?? Self.now()
                    }
                    while true {
                        switch receive() {
                        case .bytes(let count):
                            if !failed, !process(UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<count])) {
                                failed = !decoder.isClosed
                                closingSince = closingSince ?? Self.now()
                            }
                        case .idle:
                            return true
                        case .end(let error):
                            end(
                                error
                                    ?? .connection(
                                        .connectionLost(url: HTTPError.describe(request.url), receivedBytes: 0)))
                            return false
                        }
                    }
                }
                // Handed over once `io` is free again, so a reader that answers at once finds it free.
                deliver()
                guard goOn else { break }
                var fds = (
                    pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
                )
                let wait: Int32 = closingSince == nil ? 60_000 : 100
                let woken = withUnsafeMutablePointer(to: &fds) { pair in
                    pair.withMemoryRebound(to: pollfd.self, capacity: 2) { fd in
                        _ = poll(fd, 2, wait)
                        return fd[1].revents != 0
                    }
                }
                if woken {
                    var drain = (
                        UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0)
                    )
                    while withUnsafeMutableBytes(of: &drain, { read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
                }
            }
        }

        /// Feeds received bytes to the decoder and acts on what they complete; `false` once the connection is
        /// closing (the peer's close, or a breach of the protocol). `io` held.
        @discardableResult
        private func process(_ bytes: UnsafeRawBufferPointer) -> Bool {
            let events: [WebSocketEvent]
            do throws(WebSocketProtocolError) {
                events = try decoder.feed(bytes)
            } catch {
                if !closeSent {
                    closeSent = true
                    let payload = WebSocketFrameEncoder.closePayload(error.closeCode, reason: "")
                    _ = writeAll(Self.frame(.close, payload, key: nextKey()))
                }
                end(.protocolViolation(error))
                return false
            }
            for event in events {
                switch event {
                case .text(let text): inbound.append(.text(text))
                case .binary(let data): inbound.append(.binary(data))
                case .ping(let payload): _ = writeAll(Self.frame(.pong, Array(payload), key: nextKey()))
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
                        _ = writeAll(Self.frame(.close, payload, key: nextKey()))
                    }
                    end(asked ? nil : .closed(code: code, reason: reason))
                    return false
                }
            }
            return true
        }

        /// Writes the queued frames, oldest first, `io` held; each sender waiting on one is told.
        private func writeQueued() -> ChannelError? {
            let frames = outbox.withLock { box in
                let taken = box.frames
                box.frames.removeAll()
                return taken
            }
            for frame in frames {
                let failure = writeAll(frame.bytes, from: frame.offset)
                frame.written?.finish(failure.map { .failure($0) } ?? .success(()))
                if let failure { return failure }
            }
            return nil
        }

        /// Hands the messages read so far to the stream, in order (the connection's thread).
        private func deliver() {
            guard !inbound.isEmpty else { return }
            inbox.push(inbound)
            inbound.removeAll(keepingCapacity: true)
        }

        /// Ends the message stream (once, on the connection's thread), after the messages already read: with
        /// `error`, or cleanly after a close the app asked for.
        private func end(_ error: ChannelError?) {
            deliver()
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
            for frame in frames { frame.written?.finish(.failure(failure)) }
            guard first else { return }
            inbox.finish(error)
        }

        private func cleanUp() {
            end(.notConnected("the connection was closed"))
            io.withLock {
                if let easy { curl_easy_cleanup(easy) }
                easy = nil
            }
            let waiters = outbox.withLock { box in
                box.finished = true
                let waiters = box.closeWaiters
                box.closeWaiters.removeAll()
                return waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// A sender waiting for the connection's thread to write the rest of its frame.
    private final class Written: Sendable {
        private struct State {
            var result: Result<Void, ChannelError>?
            var waiting: CheckedContinuation<Result<Void, ChannelError>, Never>?
        }

        private let state = Locked(State())

        /// Tells the sender (now, or when it starts waiting) how the write ended.
        func finish(_ result: Result<Void, ChannelError>) {
            let waiting = state.withLock {
                state -> CheckedContinuation<Result<Void, ChannelError>, Never>? in
                guard state.result == nil else { return nil }
                state.result = result
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?.resume(returning: result)
        }

        /// How the write ended.
        func wait() async -> Result<Void, ChannelError> {
            await withCheckedContinuation {
                (waiting: CheckedContinuation<Result<Void, ChannelError>, Never>) in
                let result = state.withLock { state -> Result<Void, ChannelError>? in
                    if let result = state.result { return result }
                    state.waiting = waiting
                    return nil
                }
                if let result { waiting.resume(returning: result) }
            }
        }
    }

    /// Client mask keys (RFC 6455 §5.3: unpredictable, one per frame) from the system's random source, read 256 at
    /// a time (one `arc4random_buf` call, which glibc serves with one `getrandom`, where
    /// `SystemRandomNumberGenerator` asks the kernel again for every 8 bytes).
    private struct MaskKeys {
        private var keys: [UInt32] = []

        mutating func next() -> UInt32 {
            if keys.isEmpty {
                keys = [UInt32](unsafeUninitializedCapacity: 256) { buffer, count in
                    guard let base = buffer.baseAddress else { return }
                    arc4random_buf(base, buffer.count * MemoryLayout<UInt32>.size)
                    count = buffer.count
                }
            }
            return keys.popLast() ?? UInt32.random(in: .min ... .max)
        }
    }

    /// The mutex that gives one thread at a time the libcurl handle of a connection (`pthread_mutex`, which the
    /// thread sanitizer understands; `trylock` for a sender that must not wait).
    private final class CurlIOLock: @unchecked Sendable {
        // Why `@unchecked Sendable` is sound: `mutex` is allocated once, never moves, is used only through the
        // pthread calls (thread-safe by definition) and is destroyed in `deinit`, when no thread can hold it.
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>

        init() {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        /// Runs `body` holding the lock, waiting for it.
        func withLock<Value>(_ body: () -> Value) -> Value {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return body()
        }

        /// Runs `body` holding the lock if it is free now; `nil` (without running it) if it is not.
        func withLockIfAvailable<Value>(_ body: () -> Value) -> Value? {
            guard pthread_mutex_trylock(mutex) == 0 else { return nil }
            defer { pthread_mutex_unlock(mutex) }
            return body()
        }
    }
#endif
