#if os(Linux) && canImport(CCurl)
    import CCurl
    import CompanionCore
    import Foundation

    /// One libcurl multi handle driven by one thread, shared by every `CurlTransport`.
    ///
    /// Rule: only the engine thread touches the multi handle and the easy handles; other threads
    /// talk to it through `inbox` and `curl_multi_wakeup`, the one multi call libcurl allows from
    /// any thread. A single multi handle means a single connection cache, so every client in the
    /// process reuses the same keep-alive connections.
    final class CurlEngine: @unchecked Sendable {
        // Why `@unchecked Sendable` is sound: `multi`, `running`, `handles` and `pool` are read and written only
        // by `run()`, on the engine's own thread (started once, in `init`). Other threads use `inbox`
        // (a `Locked`) and `curl_multi_wakeup`, which libcurl documents as thread-safe.
        static let shared = CurlEngine()

        /// A transfer on the multi handle, with the header list libcurl reads until it ends.
        private struct Running {
            var transfer: CurlTransfer
            var headerList: UnsafeMutablePointer<curl_slist>?
        }

        private enum Command {
            case start(CurlTransfer)
            case cancel(CurlTransfer)
        }

        private let multi: UnsafeMutableRawPointer
        private let inbox = Locked<[Command]>([])
        private var running: [UnsafeMutableRawPointer: Running] = [:]
        private var handles: [ObjectIdentifier: UnsafeMutableRawPointer] = [:]
        private var pool: [UnsafeMutableRawPointer] = []

        private init() {
            curl_global_init(Int(CURL_GLOBAL_ALL))
            guard let multi = curl_multi_init() else { fatalError("libcurl could not create a multi handle") }
            self.multi = multi
            _ = ck_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 64)
            let thread = Thread { [self] in run() }
            thread.name = "CompanionHTTP.CurlEngine"
            thread.start()
        }

        /// Sends one request (no redirects) with one server's TLS settings and waits for its response head. A
        /// certificate libcurl refused comes back as `untrustedCertificate`, with what the server presented.
        func exchange(_ request: HTTPRequest, security: CurlSecurity? = nil) async throws(HTTPError) -> (
            HTTPResponse, HTTPBody
        ) {
            let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
            let transfer = CurlTransfer(request: request, security: security, body: continuation)
            continuation.onTermination = { [weak self] termination in
                if case .cancelled = termination { self?.cancel(transfer) }
            }
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { (head: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
                    transfer.awaitHead(head)
                    submit(.start(transfer))
                }
            } onCancel: {
                cancel(transfer)
            }
            switch result {
            case .success(let head):
                return (head, HTTPBody(stream: stream))
            case .failure(let error):
                guard let failure = transfer.certificateFailure else { throw error }
                throw await CertificateDiagnosis.refusal(
                    for: request.url, failure: failure, pins: security?.pins ?? [], fallback: error)
            }
        }

        private func cancel(_ transfer: CurlTransfer) {
            if transfer.markCancelled() { submit(.cancel(transfer)) }
        }

        private func submit(_ command: Command) {
            inbox.withLock { $0.append(command) }
            curl_multi_wakeup(multi)
        }

        // MARK: The engine thread

        private func run() {
            var stillRunning: Int32 = 0
            while true {
                let commands = inbox.withLock { commands -> [Command] in
                    let taken = commands
                    commands.removeAll(keepingCapacity: true)
                    return taken
                }
                for command in commands {
                    switch command {
                    case .start(let transfer): start(transfer)
                    case .cancel(let transfer): stop(transfer, with: .cancelled)
                    }
                }
                curl_multi_perform(multi, &stillRunning)
                var queued: Int32 = 0
                while let message = curl_multi_info_read(multi, &queued) {
                    guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                        let transfer = running[easy]?.transfer
                    else { continue }
                    let code = ck_msg_result(message)
                    if Self.foundPooledConnectionsDead(code, easy: easy), transfer.takeFreshConnectionRetry() {
                        // Sent again once, on a new connection: see `foundPooledConnectionsDead`.
                        release(easy, of: transfer)
                        start(transfer)
                        continue
                    }
                    let error = code == CURLE_OK ? nil : Self.error(code, transfer: transfer, easy: easy)
                    release(easy, of: transfer)
                    transfer.complete(error)
                }
                for entry in running.values { entry.transfer.deliverHead() }
                let wait = expireIdle()
                curl_multi_poll(multi, nil, 0, Int32(wait), nil)
            }
        }

        /// Fails every transfer idle for longer than its timeout; returns how long the next poll
        /// may wait (milliseconds) before another one could expire.
        private func expireIdle() -> Int {
            guard !running.isEmpty else { return 60_000 }
            let now = DispatchTime.now().uptimeNanoseconds
            var wait: UInt64 = 1_000_000_000
            for transfer in running.values.map(\.transfer) {
                let deadline = transfer.idleDeadline
                if deadline <= now {
                    stop(transfer, with: transfer.timeoutError)
                } else {
                    wait = min(wait, deadline - now)
                }
            }
            return Int((wait + 999_999) / 1_000_000)
        }

        private func start(_ transfer: CurlTransfer) {
            guard !transfer.isCancelled else {
                transfer.complete(.cancelled)
                return
            }
            if let problem = transfer.security?.identityProblem {
                transfer.complete(.tls(host: transfer.request.url.host ?? "the server", detail: problem.description))
                return
            }
            guard let easy = pool.popLast() ?? curl_easy_init() else {
                transfer.complete(.transport("libcurl could not create a transfer"))
                return
            }
            let list = transfer.configure(easy)
            running[easy] = Running(transfer: transfer, headerList: list)
            handles[ObjectIdentifier(transfer)] = easy
            transfer.touch()
            curl_multi_add_handle(multi, easy)
        }

        /// Aborts a running transfer (cancelled, or idle past its timeout).
        private func stop(_ transfer: CurlTransfer, with error: HTTPError) {
            guard let easy = handles[ObjectIdentifier(transfer)] else { return }
            release(easy, of: transfer)
            transfer.complete(error)
        }

        private func release(_ easy: UnsafeMutableRawPointer, of transfer: CurlTransfer) {
            curl_multi_remove_handle(multi, easy)
            if let list = running.removeValue(forKey: easy)?.headerList { curl_slist_free_all(list) }
            handles[ObjectIdentifier(transfer)] = nil
            curl_easy_reset(easy)
            if pool.count < 32 { pool.append(easy) } else { curl_easy_cleanup(easy) }
        }

        /// Whether a transfer failed only because every connection it was given was a kept-alive one the server had
        /// since closed (engine thread, before `easy` is released).
        ///
        /// Why: a server that restarts (or drops idle connections) on TLS sends `close_notify` before closing, and
        /// libcurl 7.88 takes the pending alert as a live connection; it resends a request whose reused connection
        /// died before any reply byte, but onto the next pooled connection, at most five times, so a pool of dead
        /// connections to that server fails the request ("Send failure: Broken pipe"). No new connection was made
        /// (`CURLINFO_NUM_CONNECTS` is 0), so the server's application never read the request. The transfer's
        /// own rule (`takeFreshConnectionRetry`) allows one more attempt, on a new connection, for a read only.
        static func foundPooledConnectionsDead(_ code: CURLcode, easy: UnsafeMutableRawPointer) -> Bool {
            guard code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR || code == CURLE_GOT_NOTHING else {
                return false
            }
            var connects = 0
            guard ck_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK else { return false }
            return connects == 0
        }

        /// Maps a libcurl result onto the kit's error cases (engine thread, before `easy` is released).
        static func error(_ code: CURLcode, transfer: CurlTransfer, easy: UnsafeMutableRawPointer) -> HTTPError {
            let (error, certificateFailure) = CurlFailure.map(
                code, url: transfer.request.url, detail: transfer.errorText,
                offersIdentity: transfer.security?.offersIdentity ?? false, receivedBytes: transfer.receivedBytes,
                timeoutError: transfer.timeoutError, easy: easy)
            if let certificateFailure { transfer.noteCertificateFailure(certificateFailure) }
            return error
        }
    }

    /// A libcurl result as the kit's error, for every libcurl user in the kit (the HTTP transport and the
    /// WebSocket's connect-only stream): the same failure reads the same whichever of them met it.
    enum CurlFailure {
        /// The error for `code` on a transfer to `url`, and the certificate failure to diagnose, if any (on the
        /// thread that owns `easy`, before it is released).
        static func map(
            _ code: CURLcode, url: URL, detail: String, offersIdentity: Bool, receivedBytes: Int,
            timeoutError: HTTPError, easy: UnsafeMutableRawPointer
        ) -> (HTTPError, CurlCertificateFailure?) {
            let place = HTTPError.describe(url)
            let host = url.host ?? "the server"
            let sentence = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            switch code {
            case CURLE_PEER_FAILED_VERIFICATION:
                var result = 0
                _ = ck_easy_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &result)
                return (
                    .tls(host: host, detail: sentence),
                    .untrusted(reason: CurlCertificateFailure.reason(verifyResult: result))
                )
            case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
                return (.tls(host: host, detail: sentence), .pinMismatch)
            case CURLE_SSL_CONNECT_ERROR where ClientCertificateAlert.matches(detail),
                CURLE_RECV_ERROR where ClientCertificateAlert.matches(detail),
                CURLE_SEND_ERROR where ClientCertificateAlert.matches(detail):
                // A server that checks client certificates during the handshake (TLS 1.3 `certificate_required`,
                // or `bad_certificate` / `unknown_ca` for one it refused) ends it with an alert. (A `where` clause
                // binds to the last pattern only, so each of the three carries it.)
                return (
                    .clientCertificateRequired(
                        .init(host: "\(host):\(url.port ?? 443)", offered: offersIdentity, serverSentence: nil)), nil
                )
            case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
                return (.unreachable(host: host, detail: sentence), nil)
            case CURLE_OPERATION_TIMEDOUT:
                return (timeoutError, nil)
            case CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_WEIRD_SERVER_REPLY,
                CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING:
                return (.connectionLost(url: place, receivedBytes: receivedBytes), nil)
            case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
                CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
                CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND,
                CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CRL_BADFILE,
                CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CLIENTCERT:
                return (.tls(host: host, detail: sentence), nil)
            case CURLE_ABORTED_BY_CALLBACK:
                return (.cancelled, nil)
            case CURLE_UNSUPPORTED_PROTOCOL where ["http", "https"].contains(url.scheme?.lowercased() ?? ""):
                // An http(s) URL is always supported: libcurl says "unsupported protocol" here when the reply
                // was not HTTP at all (an HTTP/0.9-looking answer, e.g. stray bytes on a reused connection),
                // which is a broken connection, retried like one, not a request that cannot be built.
                return (.connectionLost(url: place, receivedBytes: receivedBytes), nil)
            case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
                return (.invalidRequest("\(place) cannot be requested: \(sentence)"), nil)
            default:
                return (.transport("\(sentence) (\(place))"), nil)
            }
        }
    }

    /// One request on the engine: the request, its response head as it is parsed, and the
    /// continuations waiting for the head and fed with the body.
    final class CurlTransfer: Sendable {
        private struct State {
            var certificateFailure: CurlCertificateFailure?
            var head: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>?
            /// The head, complete and not yet handed over (`deliverHead`, after the engine's pass).
            var readyHead: HTTPResponse?
            var headDelivered = false
            var finished = false
            var cancelled = false
            var status = 0
            var headers = HTTPHeaders()
            var received = 0
            var lastActivity: UInt64 = 0
            var connected = false
            /// Sent again on a new connection after every pooled one was found dead (at most once).
            var freshConnection = false
        }

        /// The user's preferred language (`en` when none is known), as URLSession sends it.
        static let acceptLanguage = Locale.preferredLanguages.first ?? "en"

        let request: HTTPRequest
        /// The server's TLS settings, or `nil` for the system's.
        let security: CurlSecurity?
        /// libcurl's own sentence for a failure (`CURLOPT_ERRORBUFFER`), for https transfers.
        private let errorBuffer: CurlErrorBuffer?
        private let body: AsyncThrowingStream<Data, any Error>.Continuation
        private let timeoutNanoseconds: UInt64
        private let state: Locked<State>

        init(
            request: HTTPRequest, security: CurlSecurity? = nil, body: AsyncThrowingStream<Data, any Error>.Continuation
        ) {
            self.request = request
            self.security = security
            self.errorBuffer = request.url.scheme?.lowercased() == "https" ? CurlErrorBuffer() : nil
            self.body = body
            let components = request.timeout.components
            let nanoseconds =
                max(0, components.seconds) * 1_000_000_000 + max(0, components.attoseconds) / 1_000_000_000
            self.timeoutNanoseconds = UInt64(max(1_000_000, nanoseconds))
            self.state = Locked(State())
        }

        var isCancelled: Bool { state.withLock { $0.cancelled } }
        var certificateFailure: CurlCertificateFailure? { state.withLock { $0.certificateFailure } }
        /// libcurl's sentence for the failure, empty when it wrote none (engine thread, after the transfer).
        var errorText: String { errorBuffer?.text ?? "" }

        func noteCertificateFailure(_ failure: CurlCertificateFailure) {
            state.withLock { $0.certificateFailure = failure }
        }
        var receivedBytes: Int { state.withLock { $0.received } }
        var idleDeadline: UInt64 { state.withLock { $0.lastActivity } + timeoutNanoseconds }

        /// The failure of a transfer that ran out of time: `timedOut` once the request left (the server may have
        /// acted on it), `unreachable` while the connection was still not accepted (nothing was sent).
        var timeoutError: HTTPError {
            if state.withLock({ $0.connected }) { return .timedOut(url: HTTPError.describe(request.url)) }
            return .unreachable(host: request.url.host ?? "the server", detail: HTTPError.connectTimeoutDetail)
        }

        /// The connection is up and the request is about to be sent (libcurl's pre-request callback).
        func markConnected() {
            state.withLock { $0.connected = true }
        }

        func touch() {
            let now = DispatchTime.now().uptimeNanoseconds
            state.withLock { $0.lastActivity = now }
        }

        /// Marks the transfer cancelled; `true` the first time, while it has not finished.
        func markCancelled() -> Bool {
            state.withLock { state in
                guard !state.cancelled, !state.finished else { return false }
                state.cancelled = true
                return true
            }
        }

        /// Allows the one new-connection attempt of a read whose pooled connections were all dead: `true` once, for
        /// a safe method with no byte of a reply received, not cancelled (engine thread). A write is never sent
        /// again: it always goes on a new connection of its own.
        func takeFreshConnectionRetry() -> Bool {
            guard request.method.isSafe else { return false }
            return state.withLock { state in
                guard !state.freshConnection, !state.cancelled, !state.finished, !state.headDelivered,
                    state.readyHead == nil, state.status == 0, state.received == 0
                else { return false }
                state.freshConnection = true
                state.connected = false
                return true
            }
        }

        func awaitHead(_ continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) {
            state.withLock { $0.head = continuation }
        }

        /// Sets every option of `easy` for this request (engine thread); returns the header list,
        /// which must outlive the transfer.
        func configure(_ easy: UnsafeMutableRawPointer) -> UnsafeMutablePointer<curl_slist>? {
            let me = Unmanaged.passUnretained(self).toOpaque()
            _ = request.url.absoluteString.withCString { ck_easy_setopt_pointer(easy, CURLOPT_URL, $0) }
            _ = ck_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
            _ = ck_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
            _ = ck_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
            _ = ck_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
            security?.configure(easy)
            if let errorBuffer { _ = ck_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer.pointer) }
            _ = ck_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(timeoutNanoseconds / 1_000_000))
            _ = "".withCString { ck_easy_setopt_pointer(easy, CURLOPT_ACCEPT_ENCODING, $0) }
            _ = ck_easy_setopt_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
            _ = ck_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
            _ = ck_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback)
            _ = ck_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
            _ = ck_easy_setopt_prereq(easy, curlPrereqCallback)
            _ = ck_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, me)

            // libcurl silently resends a request whose reused connection died before any reply byte. That is
            // harmless for a read, but a write (PUT and DELETE included) would be sent twice behind the kit's and
            // the app's resend rules: a write always goes on a fresh connection, so it is sent exactly once.
            if !request.method.isSafe || state.withLock({ $0.freshConnection }) {
                _ = ck_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1)
            }

            switch request.method {
            case .get where request.body == nil:
                _ = ck_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
            case .head:
                _ = ck_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
            default:
                if request.method != .post {
                    _ = request.method.rawValue.withCString { ck_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, $0) }
                }
                if let payload = request.body {
                    _ = ck_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(payload.count))
                    _ = payload.withUnsafeBytes { ck_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
                } else if request.method == .post {
                    _ = ck_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0)
                    _ = ck_easy_setopt_long(easy, CURLOPT_POST, 1)
                }
            }

            // "Expect:" turns off libcurl's 100-continue round trip for larger bodies (a request without a body has
            // none to turn off). Like URLSession, ask for the user's language unless the request names one (servers
            // localise their errors).
            var list: UnsafeMutablePointer<curl_slist>? =
                request.body == nil ? nil : curl_slist_append(nil, "Expect:")
            if request.headers["Accept-Language"] == nil {
                list = CurlTransfer.acceptLanguageLine.withUnsafeBufferPointer {
                    curl_slist_append(list, $0.baseAddress)
                }
            }
            for (name, value) in request.headers {
                list = Self.append(list, name: name, value: value)
            }
            _ = ck_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, list)
            return list
        }

        /// `Accept-Language: <the user's language>`, NUL-terminated, made once.
        static let acceptLanguageLine = Array("Accept-Language: \(acceptLanguage)".utf8CString)

        /// Appends the header line `name: value` (`name;` for an empty value, which libcurl sends as an empty field)
        /// to `list`, written byte by byte into one buffer: no interpolated `String` per line.
        static func append(_ list: UnsafeMutablePointer<curl_slist>?, name: String, value: String)
            -> UnsafeMutablePointer<curl_slist>?
        {
            var name = name
            var value = value
            return name.withUTF8 { name in
                value.withUTF8 { value in
                    let length = name.count + (value.isEmpty ? 1 : 2 + value.count)
                    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { line in
                        let bytes = UnsafeMutableRawBufferPointer(line)
                        bytes.copyMemory(from: UnsafeRawBufferPointer(name))
                        if value.isEmpty {
                            bytes[name.count] = UInt8(ascii: ";")
                        } else {
                            bytes[name.count] = UInt8(ascii: ":")
                            bytes[name.count + 1] = UInt8(ascii: " ")
                            UnsafeMutableRawBufferPointer(rebasing: bytes[(name.count + 2)...])
                                .copyMemory(from: UnsafeRawBufferPointer(value))
                        }
                        bytes[length] = 0
                        return curl_slist_append(list, line.baseAddress)
                    }
                }
            }
        }

        /// One header line as libcurl hands it over, CRLF included. Parsed on its bytes: the status line's code, or
        /// a field's name and value with the spaces and tabs around them (RFC 9110's OWS) left out; nothing here goes
        /// through Foundation's string bridging, which cost half of a small request's instructions.
        func headerLine(_ bytes: UnsafeRawBufferPointer) {
            var end = bytes.count
            while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
            let field = Self.field(line)
            let status = field == nil ? Self.status(line) : nil
            let now = DispatchTime.now().uptimeNanoseconds
            state.withLock { state in
                state.lastActivity = now
                if let status {
                    state.status = status
                    state.headers = HTTPHeaders()
                    return
                }
                if line.isEmpty {
                    guard state.status >= 200, !state.headDelivered else { return }
                    state.headDelivered = true
                    state.readyHead = HTTPResponse(status: state.status, headers: state.headers, url: request.url)
                    return
                }
                guard let (name, value) = field else { return }
                if let existing = state.headers[name] {
                    state.headers[name] = existing + ", " + value
                } else {
                    state.headers[name] = value
                }
            }
        }

        /// Hands a complete head to the caller waiting for it (engine thread, at the end of each pass over the multi
        /// handle): by then a small reply's body and its end are in the stream too, so the caller wakes once, to a
        /// whole reply, instead of for the head and again for the body.
        func deliverHead() {
            let ready = state.withLock {
                state -> (CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>, HTTPResponse)? in
                guard let response = state.readyHead, let continuation = state.head else { return nil }
                state.readyHead = nil
                state.head = nil
                return (continuation, response)
            }
            if let (continuation, response) = ready { continuation.resume(returning: .success(response)) }
        }

        /// The code of a status line (`HTTP/1.1 200 OK` → 200: its second word, when that is a number; else 0), or
        /// `nil` for another line.
        static func status(_ line: UnsafeRawBufferPointer) -> Int? {
            guard line.starts(with: "HTTP/".utf8) else { return nil }
            let words = line.split(separator: 0x20, maxSplits: 2)
            guard words.count > 1, words[1].count <= 9, !words[1].isEmpty,
                words[1].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else { return 0 }
            return words[1].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }

        /// A header field's name and value, each without the spaces and tabs around it; `nil` for a line without a
        /// colon, or a status line.
        static func field(_ line: UnsafeRawBufferPointer) -> (name: String, value: String)? {
            guard !line.starts(with: "HTTP/".utf8), let colon = line.firstIndex(of: 0x3A) else { return nil }
            func trimmed(_ range: Range<Int>) -> String {
                var lower = range.lowerBound
                var upper = range.upperBound
                while lower < upper, line[lower] == 0x20 || line[lower] == 0x09 { lower += 1 }
                while upper > lower, line[upper - 1] == 0x20 || line[upper - 1] == 0x09 { upper -= 1 }
                return String(decoding: UnsafeRawBufferPointer(rebasing: line[lower..<upper]), as: UTF8.self)
            }
            return (trimmed(0..<colon), trimmed((colon + 1)..<line.count))
        }

        /// One chunk of body bytes.
        func bodyBytes(_ bytes: UnsafeRawBufferPointer) {
            let now = DispatchTime.now().uptimeNanoseconds
            state.withLock { state in
                state.lastActivity = now
                state.received += bytes.count
            }
            body.yield(Data(bytes))
        }

        /// Ends the transfer: ends the body, then hands over a head not yet handed over, or fails it if it never came.
        func complete(_ error: HTTPError?) {
            let (continuation, ready, delivered) = state.withLock { state in
                let continuation = state.head
                let ready = state.readyHead
                state.head = nil
                state.readyHead = nil
                state.finished = true
                return (continuation, ready, state.headDelivered)
            }
            if let error {
                body.finish(throwing: error)
            } else {
                body.finish()
            }
            if let ready {
                continuation?.resume(returning: .success(ready))
            } else if !delivered {
                continuation?.resume(
                    returning: .failure(error ?? .transport("the server closed the connection without a response")))
            }
        }
    }

    /// The buffer libcurl writes a failure's sentence into (`CURL_ERROR_SIZE` bytes).
    final class CurlErrorBuffer: @unchecked Sendable {
        // Why `@unchecked Sendable` is sound: libcurl writes the bytes only on the engine thread while the transfer
        // runs, and they are read only on the engine thread after it ended (`CurlEngine.error`).
        let pointer: UnsafeMutablePointer<CChar>

        init() {
            pointer = .allocate(capacity: Int(CURL_ERROR_SIZE))
            pointer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        }

        deinit { pointer.deallocate() }

        var text: String { String(cString: pointer) }
    }

    /// The TLS alerts a server ends a handshake with when it wants a client certificate or refused the one sent.
    enum ClientCertificateAlert {
        static func matches(_ detail: String) -> Bool {
            let lower = detail.lowercased()
            return ["alert certificate required", "alert bad certificate", "alert unknown ca", "certificate required"]
                .contains { lower.contains($0) }
        }
    }

    /// libcurl's header callback: `userdata` is the unretained `CurlTransfer` (the engine retains it).
    private let curlHeaderCallback: curl_write_callback = { buffer, size, count, userdata in
        let length = size * count
        guard let buffer, let userdata else { return length }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        transfer.headerLine(UnsafeRawBufferPointer(start: buffer, count: length))
        return length
    }

    /// libcurl's pre-request callback: the connection is up and the request goes next (`clientp` is the
    /// unretained `CurlTransfer`).
    private let curlPrereqCallback: curl_prereq_callback = { clientp, _, _, _, _ in
        if let clientp { Unmanaged<CurlTransfer>.fromOpaque(clientp).takeUnretainedValue().markConnected() }
        return CURL_PREREQFUNC_OK
    }

    /// libcurl's write callback: `userdata` is the unretained `CurlTransfer` (the engine retains it).
    private let curlWriteCallback: curl_write_callback = { buffer, size, count, userdata in
        let length = size * count
        guard let buffer, let userdata else { return length }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        transfer.bodyBytes(UnsafeRawBufferPointer(start: buffer, count: length))
        return length
    }
#endif
