#if canImport(Security)
    import CompanionCrypto
    import Foundation
    import Security

    /// How a URLSession delegate answers an authentication challenge for one server. Apple platforms only (not
    /// compiled on Linux, where FoundationNetworking never asks about server trust or client certificates).
    protocol ChallengeResponder: Sendable {
        /// The answer to `challenge`, and the refusal to report when it is refused.
        func answer(_ challenge: URLAuthenticationChallenge) -> ChallengeAnswer
    }

    /// A challenge's disposition, credential and, when refused, the kit's error for it.
    struct ChallengeAnswer: @unchecked Sendable {
        // Why `@unchecked Sendable` is sound: the value is made and handed to URLSession's completion handler on the
        // delegate queue and never shared; `URLCredential` is immutable once made.
        var disposition: URLSession.AuthChallengeDisposition
        var credential: URLCredential?
        var refusal: HTTPError?
    }

    /// The Security framework glue of one server's `ConnectionSecurity`: thin, and written to the same rules and
    /// test cases as `CurlTransport` (Tests/CompanionHTTPTests/NetworksTrustTests.swift).
    ///
    /// - Server trust: with pins, the leaf's SubjectPublicKeyInfo SHA-256 must be one of them (the chain is not
    ///   asked about); with anchors, `SecTrustSetAnchorCertificates` adds the server's CAs to the system's and
    ///   `SecTrustEvaluateWithError` decides; otherwise the system decides. A refusal is
    ///   `HTTPError.untrustedCertificate` with the presented certificate, and the challenge is cancelled, so
    ///   nothing is sent.
    /// - Client certificate: the identity (`SecPKCS12Import` of the stored file) with its intermediates, for this
    ///   session only; without one the challenge continues without a certificate.
    struct SecurityChallengeResponder: ChallengeResponder, @unchecked Sendable {
        // Why `@unchecked Sendable` is sound: every stored property is set once in `init` and only read after;
        // `SecIdentity` and `SecCertificate` are immutable Core Foundation objects, safe to share between threads.
        private let pins: [PinnedKey]
        private let anchors: [SecCertificate]
        private let identity: SecIdentity?
        private let intermediates: [SecCertificate]
        /// Why the identity could not be opened; the transport then refuses to send without it.
        let identityProblem: PKCS12Error?
        /// Which origins the server's settings apply to (others get the system's handling).
        private let security: ConnectionSecurity

        init(security: ConnectionSecurity) {
            self.security = security
            pins = security.trust.pins
            anchors = security.trust.anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
            var identity: SecIdentity?
            var intermediates: [SecCertificate] = []
            var problem: PKCS12Error?
            if let stored = security.identity {
                var items: CFArray?
                // In memory only, as `PKCS12.open`: without it macOS adds the identity to the login keychain.
                let options: [String: Any] = [
                    kSecImportExportPassphrase as String: stored.passphrase, kSecImportToMemoryOnly as String: true,
                ]
                let status = SecPKCS12Import(stored.pkcs12 as CFData, options as CFDictionary, &items)
                if status == errSecSuccess, let first = (items as? [[String: Any]])?.first,
                    let value = first[kSecImportItemIdentity as String]
                {
                    let object = value as CFTypeRef
                    if CFGetTypeID(object) == SecIdentityGetTypeID() {
                        identity = unsafeBitCast(object, to: SecIdentity.self)
                    }
                    intermediates = Array(
                        ((first[kSecImportItemCertChain as String] as? [SecCertificate]) ?? []).dropFirst())
                } else {
                    problem = status == errSecAuthFailed ? .wrongPassphrase : .unsupported(detail: "status \(status)")
                }
            }
            self.identity = identity
            self.intermediates = intermediates
            self.identityProblem = problem
        }

        func answer(_ challenge: URLAuthenticationChallenge) -> ChallengeAnswer {
            let space = challenge.protectionSpace
            let scheme = space.protocol ?? "https"
            let inScope = URL(string: "\(scheme)://\(space.host):\(space.port)").map(security.applies(to:)) ?? false
            switch space.authenticationMethod {
            case NSURLAuthenticationMethodServerTrust:
                guard let trust = space.serverTrust else { return .init(disposition: .performDefaultHandling) }
                // Another origin (a redirect's target) is held to the server's CAs, not to its pinned keys.
                return evaluate(trust, host: "\(space.host):\(space.port)", pins: inScope ? pins : [], anchors: anchors)
            case NSURLAuthenticationMethodClientCertificate:
                guard inScope, let identity else { return .init(disposition: .performDefaultHandling) }
                let credential = URLCredential(
                    identity: identity, certificates: intermediates, persistence: .forSession)
                return .init(disposition: .useCredential, credential: credential)
            default:
                return .init(disposition: .performDefaultHandling)
            }
        }

        private func evaluate(_ trust: SecTrust, host: String, pins: [PinnedKey], anchors: [SecCertificate])
            -> ChallengeAnswer
        {
            let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
            guard let leaf = chain.first,
                let presented = try? ServerCertificate(der: SecCertificateCopyData(leaf) as Data)
            else { return .init(disposition: .cancelAuthenticationChallenge) }
            if !pins.isEmpty {
                guard pins.contains(where: { $0.pin == presented.publicKeyPin }) else {
                    let refusal = HTTPError.untrustedCertificate(
                        .init(host: host, certificate: presented, pinned: pins))
                    return .init(disposition: .cancelAuthenticationChallenge, refusal: refusal)
                }
                return .init(disposition: .useCredential, credential: URLCredential(trust: trust))
            }
            if !anchors.isEmpty {
                SecTrustSetAnchorCertificates(trust, anchors as CFArray)
                SecTrustSetAnchorCertificatesOnly(trust, false)
            }
            var error: CFError?
            if SecTrustEvaluateWithError(trust, &error) {
                return .init(disposition: .useCredential, credential: URLCredential(trust: trust))
            }
            let reason = error.map { CFErrorCopyDescription($0) as String }
            let refusal = HTTPError.untrustedCertificate(.init(host: host, certificate: presented, reason: reason))
            return .init(disposition: .cancelAuthenticationChallenge, refusal: refusal)
        }
    }
#endif
