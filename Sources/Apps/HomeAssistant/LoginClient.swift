import CompanionAuth
import CompanionCore
import Foundation

/// Who the app says it is to Home Assistant's IndieAuth-style sign-in: a `client_id` URL and the `redirect_uri`
/// the sign-in returns to (H-AUTH-1, H-AUTH-2).
///
/// Rules: the headless client (terminal, tests) is the server's own origin, `<origin>/` with
/// `<origin>/?auth_callback=1`, which Home Assistant accepts without fetching anything; an app uses its own page
/// that lists its custom-scheme callback, never Home Assistant's own iOS pair. A `client_id` Home Assistant
/// would refuse (not http(s), a fragment, user info, a `.` or `..` segment, a public IP address) is refused
/// before any request.
public struct LoginClient: Sendable, Hashable {
    /// The `client_id`: a URL.
    public let clientID: String
    /// The `redirect_uri`.
    public let redirectURI: String

    /// The pair Home Assistant's own iOS app uses, which this app must never send (H-AUTH-2).
    static let reserved: Set<String> = ["https://home-assistant.io/iOS", "https://home-assistant.io/android"]

    /// Checks and creates a client identity.
    public init(clientID: String, redirectURI: String) throws(AuthError) {
        guard !Self.reserved.contains(clientID), Self.isValid(clientID) else {
            throw .signInEnded(.invalidClient, serverSentence: nil)
        }
        self.clientID = clientID
        self.redirectURI = redirectURI
    }

    /// The headless identity for the server at `address`: its own origin (H-AUTH-1). A server at a public IP
    /// address cannot be its own client (Home Assistant refuses such a client id): use an app's page there.
    public static func headless(for address: ServerAddress) throws(AuthError) -> LoginClient {
        try LoginClient(clientID: address.origin + "/", redirectURI: address.origin + "/?auth_callback=1")
    }

    /// Home Assistant's `_parse_client_id` as a check.
    static func isValid(_ text: String) -> Bool {
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", parts.fragment == nil, parts.user == nil, parts.password == nil,
            let host = parts.host?.lowercased(), !host.isEmpty
        else { return false }
        let segments = parts.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0 == "." || $0 == ".." }) else { return false }
        // Home Assistant reads the host with its port as the IP address: with a port it is never one, so a name,
        // and Home Assistant checks a name no further.
        guard parts.port == nil else { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        if octets.count == 4, octets.allSatisfy({ $0 != nil }) {
            let value = octets.compactMap { $0 }
            guard value.allSatisfy({ (0...255).contains($0) }) else { return false }
            return value[0] == 127 || value[0] == 10 || (value[0] == 172 && (16...31).contains(value[1]))
                || (value[0] == 192 && value[1] == 168) || (value[0] == 169 && value[1] == 254)
        }
        if host.hasPrefix("[") || host.contains(":") {
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            // Home Assistant's `is_local`: loopback, fd00::/8 (not all of fc00::/7) and link-local fe80::/10.
            return bare == "::1" || bare.hasPrefix("fd")
                || ["fe8", "fe9", "fea", "feb"].contains { bare.hasPrefix($0) }
        }
        return host.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "." }
    }
}
