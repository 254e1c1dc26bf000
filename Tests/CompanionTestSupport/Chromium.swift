import Foundation
import Testing

/// Runs headless Chromium (Debian's `chromium`, installed by `scripts/bootstrap`), the real browser engine pages
/// are checked in. A missing browser fails the test loudly; it never skips.
public enum Chromium {
    /// The browser on the PATH, or a recorded failure that says how to install it.
    public static func executable() -> URL? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            if let path = folders.map({ "\($0)/\(name)" }).first(where: FileManager.default.isExecutableFile) {
                return URL(fileURLWithPath: path)
            }
        }
        Issue.record("chromium is not on the PATH; run scripts/bootstrap to install it")
        return nil
    }

    /// The DOM of `url` after its scripts ran (`--dump-dom`).
    public static func dumpDOM(_ url: URL) async throws -> String {
        try await run(["--dump-dom", url.absoluteString])
    }

    /// Saves a PNG of `url` at `width`×`height` to `file`.
    public static func screenshot(_ url: URL, to file: URL, width: Int = 1280, height: Int = 900) async throws {
        _ = try await run(["--screenshot=\(file.path)", "--window-size=\(width),\(height)", url.absoluteString])
    }

    /// Runs the browser headless with a fresh profile, killed after 90 s (`timeout -s KILL`); returns stdout.
    static func run(_ arguments: [String]) async throws -> String {
        guard let browser = executable() else { return "" }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let result = try await ChildProcess.run(
            "/usr/bin/timeout",
            [
                "-s", "KILL", "90", browser.path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-extensions", "--disable-background-networking", "--user-data-dir=\(profile.path)",
            ] + arguments, errors: .discard, limit: .seconds(100))
        #expect(result.status == .exited(0), "chromium ended with \(result.status)")
        return result.outputText
    }
}
