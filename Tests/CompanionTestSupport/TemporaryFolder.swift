import Foundation

/// A fresh temporary folder per test, removed when the value goes away.
public final class TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Creates the folder under the system's temporary directory; `prefix` names it for a person
    /// looking at leftovers.
    public init(prefix: String = "companion-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A fresh folder the caller removes itself (with `defer`), for tests that hand the path on.
    public static func make(prefix: String = "companion-tests") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The package's root folder (for scripts and executables).
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
