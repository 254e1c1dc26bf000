import CompanionAuth
import CompanionTestSupport
import Foundation
import Synchronization

/// A headless browser step for tests: fetches the authorization URL with curl (no redirects followed)
/// and returns the `Location` it was sent to, which is the app's callback. `rewrite` lets a test tamper
/// with the request (another nonce) the way an attacker in the middle would.
struct CurlBrowser: BrowserStep, BrowserOpener {
    var rewrite: @Sendable (URL) -> URL = { $0 }

    func authorize(_ url: URL, callbackScheme: String) async throws(AuthError) -> URL {
        let headers = try fetchHeaders(rewrite(url))
        for line in headers.split(whereSeparator: \.isNewline) where line.lowercased().hasPrefix("location:") {
            let value = line.dropFirst("location:".count).trimmingCharacters(in: .whitespaces)
            if let callback = URL(string: value), callback.scheme == callbackScheme { return callback }
        }
        throw .cancelled
    }

    func open(_ url: URL) async throws(AuthError) { _ = try fetchHeaders(url) }

    private func fetchHeaders(_ url: URL) throws(AuthError) -> String {
        do {
            return try ChildProcess.runBlocking(
                "/usr/bin/curl", ["-s", "--max-time", "10", "-o", "/dev/null", "-D", "-", url.absoluteString],
                limit: .seconds(20)
            ).outputText
        } catch {
            throw .unexpectedReply("curl could not run: \(error)")
        }
    }
}

/// A URL with one query item replaced.
func replacing(_ name: String, with value: String, in url: URL) -> URL {
    guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
    parts.queryItems = (parts.queryItems ?? []).map { $0.name == name ? URLQueryItem(name: name, value: value) : $0 }
    return parts.url ?? url
}
