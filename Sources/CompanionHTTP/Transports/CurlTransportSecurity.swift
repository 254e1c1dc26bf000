#if os(Linux) && canImport(CCurl)
    import CCurl
    import CompanionCrypto
    import Foundation

    /// One server's `ConnectionSecurity` as the libcurl options a transfer sets, worked out once per transport.
    ///
    /// - Pins: `CURLOPT_PINNEDPUBLICKEY` with every pinned key, and the chain check off, because the pinned key is
    ///   what the server is checked by (a self-signed or expired certificate of a pinned server is its owner's
    ///   choice); libcurl aborts before sending anything when the key differs (`CURLE_SSL_PINNEDPUBKEYNOTMATCH`).
    ///   No TLS session is resumed (`CURLOPT_SSL_SESSIONID_CACHE` off): a resumed session shows the certificate of
    ///   the handshake it came from, so a server whose key changed would pass the pin without presenting it.
    /// - Anchors: `CURLOPT_CAINFO_BLOB` with the server's CAs (PEM), the chain and the host name checked as always.
    /// - Identity: `CURLOPT_SSLCERT_BLOB` with the leaf and its intermediates (PEM, leaf first) and
    ///   `CURLOPT_SSLKEY_BLOB` with its key, both in memory only; offered when the server asks.
    struct CurlSecurity: Sendable {
        let pinnedKeys: String?
        let pins: [PinnedKey]
        let anchorsPEM: Data?
        let certificateChainPEM: Data?
        let privateKeyPEM: Data?
        /// Why the identity could not be opened (the transfer fails with this instead of going without it).
        let identityProblem: PKCS12Error?
        /// Whether a client certificate is offered.
        var offersIdentity: Bool { certificateChainPEM != nil }

        init(_ security: ConnectionSecurity) {
            pinnedKeys = security.trust.curlPinnedKeys
            pins = security.trust.pins
            anchorsPEM = security.trust.anchorsPEM
            var chain: Data?
            var key: Data?
            var problem: PKCS12Error?
            if let identity = security.identity {
                do {
                    let contents = try identity.contents()
                    chain = contents.certificateChainPEM
                    key = contents.privateKeyPEM
                } catch {
                    problem = error
                }
            }
            certificateChainPEM = chain
            privateKeyPEM = key
            identityProblem = problem
        }

        /// Sets the options on `easy` (engine thread).
        func configure(_ easy: UnsafeMutableRawPointer) {
            if let pinnedKeys {
                _ = ck_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0)
                _ = ck_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0)
                _ = ck_easy_setopt_long(easy, CURLOPT_SSL_SESSIONID_CACHE, 0)
                _ = pinnedKeys.withCString { ck_easy_setopt_pointer(easy, CURLOPT_PINNEDPUBLICKEY, $0) }
            } else if let anchorsPEM {
                _ = anchorsPEM.withUnsafeBytes {
                    ck_easy_setopt_blob(easy, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count)
                }
            }
            if let certificateChainPEM, let privateKeyPEM {
                _ = "PEM".withCString { ck_easy_setopt_pointer(easy, CURLOPT_SSLCERTTYPE, $0) }
                _ = certificateChainPEM.withUnsafeBytes {
                    ck_easy_setopt_blob(easy, CURLOPT_SSLCERT_BLOB, $0.baseAddress, $0.count)
                }
                _ = "PEM".withCString { ck_easy_setopt_pointer(easy, CURLOPT_SSLKEYTYPE, $0) }
                _ = privateKeyPEM.withUnsafeBytes {
                    ck_easy_setopt_blob(easy, CURLOPT_SSLKEY_BLOB, $0.baseAddress, $0.count)
                }
            }
        }
    }

    /// Reads the certificate a server presents, for a refusal a person can check: a TLS handshake with nothing
    /// trusted or sent (`CURLOPT_CONNECT_ONLY`, no HTTP request), on a thread of its own, bounded by `timeout`.
    enum CurlCertificateInspector {
        /// The server's leaf certificate at `url`'s origin, or `nil` when the handshake did not get that far.
        static func presented(at url: URL, timeout: Duration = .seconds(5)) async -> ServerCertificate? {
            guard let host = url.host else { return nil }
            let port = url.port ?? 443
            let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            let target = "https://\(bracketed):\(port)/"
            let milliseconds = Int(timeout.components.seconds * 1000)
            return await withCheckedContinuation { continuation in
                let thread = Thread {
                    continuation.resume(returning: inspect(target, timeoutMilliseconds: milliseconds))
                }
                thread.name = "CompanionHTTP.CertificateInspector"
                thread.start()
            }
        }

        private static func inspect(_ target: String, timeoutMilliseconds: Int) -> ServerCertificate? {
            guard let easy = curl_easy_init() else { return nil }
            defer { curl_easy_cleanup(easy) }
            _ = target.withCString { ck_easy_setopt_pointer(easy, CURLOPT_URL, $0) }
            _ = ck_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
            _ = ck_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1)
            // Only to read what is presented: nothing is trusted on this connection and nothing is sent on it.
            _ = ck_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0)
            _ = ck_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0)
            _ = ck_easy_setopt_long(easy, CURLOPT_CERTINFO, 1)
            _ = ck_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, timeoutMilliseconds)
            _ = ck_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
            guard curl_easy_perform(easy) == CURLE_OK else { return nil }
            var info: UnsafeMutablePointer<curl_certinfo>?
            guard ck_easy_getinfo_certinfo(easy, &info) == CURLE_OK, let info, info.pointee.num_of_certs > 0,
                let first = info.pointee.certinfo?[0]
            else { return nil }
            var entry: UnsafeMutablePointer<curl_slist>? = first
            while let current = entry {
                if let data = current.pointee.data {
                    let line = String(cString: data)
                    if line.hasPrefix("Cert:"), let der = try? ServerCertificate.certificates(in: Data(line.utf8)).first
                    {
                        return try? ServerCertificate(der: der)
                    }
                }
                entry = current.pointee.next
            }
            return nil
        }
    }

    /// Why libcurl refused a server's certificate, noted on the engine thread for the refusal made after it.
    enum CurlCertificateFailure: Sendable {
        /// The chain did not verify (`CURLE_PEER_FAILED_VERIFICATION`), for this reason.
        case untrusted(reason: String)
        /// The key is not a pinned one (`CURLE_SSL_PINNEDPUBKEYNOTMATCH`).
        case pinMismatch

        /// OpenSSL's verify result (`CURLINFO_SSL_VERIFYRESULT`) in words; 0 with a failed check means the name.
        static func reason(verifyResult: Int) -> String {
            switch verifyResult {
            case 0: return "it is not issued for this host name"
            case 9: return "it is not valid yet"
            case 10: return "it has expired"
            case 18: return "it is self-signed"
            case 19: return "its chain ends at a self-signed certificate this device does not trust"
            case 2, 20, 21: return "it is not signed by a CA this device trusts"
            case 23: return "it has been revoked"
            case 24, 26: return "its chain is not valid for a server"
            default: return "the TLS library's check failed (X.509 error \(verifyResult))"
            }
        }
    }

    /// Turns a certificate failure into the typed refusal with what the server presented, or `fallback` when the
    /// certificate could not be read.
    enum CertificateDiagnosis {
        static func refusal(
            for url: URL, failure: CurlCertificateFailure, pins: [PinnedKey], fallback: HTTPError
        ) async -> HTTPError {
            guard let certificate = await CurlCertificateInspector.presented(at: url) else { return fallback }
            let host = "\(url.host ?? "the server"):\(url.port ?? 443)"
            switch failure {
            case .untrusted(let reason):
                return .untrustedCertificate(.init(host: host, certificate: certificate, reason: reason))
            case .pinMismatch:
                return .untrustedCertificate(.init(host: host, certificate: certificate, pinned: pins))
            }
        }
    }
#endif
