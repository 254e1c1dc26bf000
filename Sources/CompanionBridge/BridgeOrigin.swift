import CompanionCore
import Foundation

/// Where a bridge message came from, as the web view reports it.
public struct BridgeSource: Sendable, Hashable {
    /// Whether the message came from the main frame (not an iframe).
    public var isMainFrame: Bool
    /// The frame's security origin as `scheme://host[:port]`.
    public var frameOrigin: String
    /// The web view's current URL, if any.
    public var pageURL: String?

    /// Creates a source.
    public init(isMainFrame: Bool, frameOrigin: String, pageURL: String?) {
        self.isMainFrame = isMainFrame
        self.frameOrigin = frameOrigin
        self.pageURL = pageURL
    }
}

/// Why a bridge message was dropped before any operation ran.
public enum BridgeRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message came from an iframe.
    case notMainFrame
    /// The frame's origin is not on the allow-list (carries it, clipped).
    case frameOriginNotAllowed(String)
    /// The web view's URL is missing or not on the allow-list (carries its origin when readable).
    case pageNotAllowed(String)
    /// The message could not be read.
    case malformed(BridgeEnvelopeError)

    /// A sentence for the journal.
    public var description: String {
        switch self {
        case .notMainFrame: return "Dropped a bridge message from a subframe."
        case .frameOriginNotAllowed(let origin): return "Dropped a bridge message from origin \(origin), not allowed."
        case .pageNotAllowed(let origin): return "Dropped a bridge message: the page \(origin) is not allowed."
        case .malformed(let error): return error.description
        }
    }
}

/// The origins a bridge talks to.
///
/// Rule: a message is accepted only from the main frame, and only when both the frame's origin and the web
/// view's current URL have an allowed origin. Origins compare exactly on scheme, host and port after
/// lowercasing and dropping the default port (`https://promptugal.news` allows neither
/// `http://promptugal.news`, `https://sub.promptugal.news`, `https://promptugal.news.evil.example` nor
/// `:8443`). An origin text without an explicit `scheme://` never matches, because nothing may be inferred
/// about where a message came from. Reason: pinning an origin grants it the bridge's privileges (notifications,
/// badge, server switching, the schedule), so an iframe or a navigated-away page must not inherit them.
public struct OriginAllowList: Sendable, Hashable {
    /// The allowed origins, normalized (`scheme://host[:port]`).
    public let origins: Set<String>

    /// Creates an allow-list from server addresses (their origins are used).
    public init(_ servers: [ServerAddress]) { origins = Set(servers.map(\.origin)) }

    /// The normalized origin of `text` (an origin or a URL), or `nil` when it has no explicit http(s) scheme
    /// or no valid host. Read under the development policy, so a page a development build loaded over `http://`
    /// from the LAN has its origin too: this compares origins, it connects nowhere, and an `http://` origin
    /// never equals an `https://` one.
    public static func origin(of text: String) -> String? {
        guard text.utf8.count <= 4_096, text.contains("://") else { return nil }
        return (try? ServerAddress(parsing: text, policy: .development))?.origin
    }

    /// `nil` when `source` may use the bridge, else why not.
    public func check(_ source: BridgeSource) -> BridgeRejection? {
        guard source.isMainFrame else { return .notMainFrame }
        guard let frame = Self.origin(of: source.frameOrigin), origins.contains(frame) else {
            return .frameOriginNotAllowed(String(source.frameOrigin.prefix(80)))
        }
        guard let page = source.pageURL.flatMap(Self.origin(of:)), origins.contains(page) else {
            return .pageNotAllowed(source.pageURL.flatMap(Self.origin(of:)) ?? "(none)")
        }
        return nil
    }
}
