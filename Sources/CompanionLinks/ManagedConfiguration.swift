import CompanionCore
import Foundation

/// A validated managed app configuration: the preset servers an administrator offers.
///
/// Rules (Omnigent's `ManagedConfiguration`), and their reasons:
/// - Key `serverUrls`, an optional array of strings; absent or `[]` means no presets and no error. Unknown
///   extra keys are tolerated, so one payload can serve several app versions.
/// - Each entry is read by `ServerAddress` with http never allowed (`TransportPolicy.httpsOnly`), so a bare
///   host becomes https and a workspace path is kept; entries with the same server key collapse, the first
///   kept and the order otherwise preserved.
/// - Checks, first failure reported (O-OPEN-8): 103 (not an array of strings), then 102 (more than 10 entries,
///   counted before de-duplication), then each entry in order, 100 (not a valid URL) before 101 (not https).
/// - Any failure rejects the whole configuration: no preset is applied, not even the valid ones, so an
///   administrator never gets a half-applied list they did not write.
public struct ManagedConfiguration: Sendable, Hashable {
    /// The payload key holding the server list.
    public static let serverURLsKey = "serverUrls"
    /// The most entries a configuration may list.
    public static let maximumEntries = 10

    /// The preset servers, de-duplicated, in configuration order.
    public let servers: [ServerAddress]

    /// Creates a configuration of already validated servers (for tests and the debug seam).
    public init(servers: [ServerAddress]) { self.servers = servers }

    /// Validates a payload dictionary by the rules above.
    public init(validating payload: [String: ManagedValue]) throws(ManagedConfigurationError) {
        guard let value = payload[Self.serverURLsKey] else {
            self.init(servers: [])
            return
        }
        guard case .array(let elements) = value else { throw .notAnArrayOfStrings }
        var entries: [String] = []
        for element in elements {
            guard case .string(let text) = element else { throw .notAnArrayOfStrings }
            entries.append(text)
        }
        try self.init(validatingEntries: entries)
    }

    /// Validates a list of entries (the `serverUrls` strings) by the rules above, from code 102 on.
    public init(validatingEntries entries: [String]) throws(ManagedConfigurationError) {
        guard entries.count <= Self.maximumEntries else { throw .tooManyEntries(count: entries.count) }
        var servers: [ServerAddress] = []
        for (index, entry) in entries.enumerated() {
            let address: ServerAddress
            do {
                address = try ServerAddress(parsing: entry, policy: .httpsOnly)
            } catch {
                switch error {
                case .unsupportedScheme, .insecureHTTPNotAllowed:
                    throw .notHTTPS(index: index, reason: error)
                default:
                    throw .invalidURL(index: index, reason: error)
                }
            }
            if !servers.contains(where: { $0.serverKey == address.serverKey }) { servers.append(address) }
        }
        self.init(servers: servers)
    }
}

/// Why a managed configuration was rejected, with the code reported to the administrator.
///
/// Rule: codes are stable (100–103), documented for administrators, and below the system-reserved
/// `0x70000000`. The entry index is kept; the entry text is not repeated, since it may be long.
public enum ManagedConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Code 100: an entry is not a valid URL (blank, `https://` with no host, an invalid host or port).
    case invalidURL(index: Int, reason: ServerAddressError)
    /// Code 101: an entry is not https (`http://…`, `ftp://…`).
    case notHTTPS(index: Int, reason: ServerAddressError)
    /// Code 102: more than 10 entries (carries the count).
    case tooManyEntries(count: Int)
    /// Code 103: `serverUrls` is not an array of strings.
    case notAnArrayOfStrings

    /// The code reported to the administrator.
    public var code: Int {
        switch self {
        case .invalidURL: return 100
        case .notHTTPS: return 101
        case .tooManyEntries: return 102
        case .notAnArrayOfStrings: return 103
        }
    }

    /// A sentence an administrator can act on.
    public var description: String {
        switch self {
        case .invalidURL(let index, let reason):
            return "serverUrls[\(index)] is not a valid URL (code 100): \(reason.description)"
        case .notHTTPS(let index, _):
            return "serverUrls[\(index)] is not an https:// URL (code 101). Only https servers can be preset."
        case .tooManyEntries(let count):
            return "serverUrls lists \(count) servers; at most \(ManagedConfiguration.maximumEntries) are "
                + "allowed (code 102)."
        case .notAnArrayOfStrings:
            return "serverUrls must be an array of strings (code 103)."
        }
    }
}
