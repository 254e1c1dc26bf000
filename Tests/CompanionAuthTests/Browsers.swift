import CompanionAuth
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "10", "-o", "/dev/null", "-D", "-", url.absoluteString]
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            throw .unexpectedReply("curl could not start")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// A URL with one query item replaced.
func replacing(_ name: String, with value: String, in url: URL) -> URL {
    guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
    parts.queryItems = (parts.queryItems ?? []).map { $0.name == name ? URLQueryItem(name: name, value: value) : $0 }
    return parts.url ?? url
}
