import CompanionCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads the certificate a server presents without trusting it and without sending it anything: what a person
/// checks before trusting a server (`companion trust`), and what an untrusted-certificate refusal carries.
public enum CertificateInspection {
    /// The leaf certificate the server at `url`'s origin presents, or `nil` when no TLS handshake got that far
    /// within `timeout` (nothing listens, not TLS).
    public static func presented(at url: URL, timeout: Duration = .seconds(5)) async -> ServerCertificate? {
        #if os(Linux) && canImport(CCurl)
            return await CurlCertificateInspector.presented(at: url, timeout: timeout)
        #elseif canImport(Security)
            return await SecurityCertificateInspector.presented(at: url, timeout: timeout)
        #else
            return nil
        #endif
    }
}

#if canImport(Security) && !os(Linux)
    import Security

    /// Apple platforms: a session whose delegate copies the leaf out of the server-trust challenge and cancels it,
    /// so the request is never sent. Thin glue, not compiled on Linux.
    final class SecurityCertificateInspector: NSObject, URLSessionTaskDelegate, Sendable {
        private let captured = Locked<Data?>(nil)

        static func presented(at url: URL, timeout: Duration) async -> ServerCertificate? {
            let inspector = SecurityCertificateInspector()
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = max(1, TimeInterval(timeout.components.seconds))
            let session = URLSession(configuration: configuration, delegate: inspector, delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            var request = URLRequest(url: url)
            request.httpMethod = "HEAD"
            _ = try? await session.data(for: request)
            return inspector.captured.withLock { $0 }.flatMap { try? ServerCertificate(der: $0) }
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            if let trust = challenge.protectionSpace.serverTrust,
                let leaf = (SecTrustCopyCertificateChain(trust) as? [SecCertificate])?.first
            {
                let der = SecCertificateCopyData(leaf) as Data
                captured.withLock { $0 = der }
            }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
#endif
