import Foundation

/// The outcome of reading a resource whose parts each name the version they describe.
public enum ConsistentReadOutcome<Page: Sendable>: Sendable {
    /// Every part named the same version.
    case consistent(Page, version: String, attempts: Int)
    /// The version moved during the read and again during the one repeat: the previous page (if
    /// one was read) is kept and the app says the resource moved (M-CHG-7).
    case moved(previous: Page?, versionsSeen: [[String]])
}

/// Reads a multi-part resource so that no shown page mixes two versions.
///
/// Rule (Mainworthy's "Read a change's gate", M-CHG-6/7): if the parts name different versions,
/// the whole read is repeated once; if they differ again, the previous page stays and the outcome
/// says so. A pull afterwards is a new read with its own single repeat (M-CHG-8).
public enum ConsistentRead {
    /// Reads with `read`, checking `versions(page)` (one per part) agree.
    public static func read<Page: Sendable>(
        previous: Page?, versions: @Sendable (Page) -> [String], read: @Sendable () async throws -> Page
    ) async throws -> ConsistentReadOutcome<Page> {
        var seen: [[String]] = []
        for attempt in 1...2 {
            let page = try await read()
            let named = versions(page)
            seen.append(named)
            if let first = named.first, named.allSatisfy({ $0 == first }) {
                return .consistent(page, version: first, attempts: attempt)
            }
        }
        return .moved(previous: previous, versionsSeen: seen)
    }
}
