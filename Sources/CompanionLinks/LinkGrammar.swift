/// The deep-link grammar of one app: its URL scheme and the paths it accepts.
///
/// Rule: each app declares its own grammar as data, so the parser stays generic and a link that does not
/// match the declared scheme and one of the declared path patterns is refused before anything happens.
/// A link names a server by `host[:port]` only (no `http`/`https`): the scheme of the server is inferred by
/// the same rule as a typed address, so a link and a pasted URL never disagree.
public struct LinkGrammar: Sendable, Hashable {
    /// The URL scheme, lowercased, such as `omnigent`. Links compare it case-insensitively.
    public let scheme: String
    /// The app's name as a person reads it, used in the consent question (`Open this <app> link?`).
    public let appName: String
    /// The accepted paths, tried in order.
    public let patterns: [LinkPattern]
    /// The longest link text accepted, in UTF-8 bytes: a pasted document is not a link.
    public let maximumLength: Int
    /// What a `?query` or `#fragment` after the path does: refuses the link (the default: no route reads
    /// them), or is ignored, the link opening its path without them (for an app whose shell drops them).
    public let queryAndFragment: QueryAndFragment

    /// What a link's `?query` and `#fragment` do.
    public enum QueryAndFragment: Sendable, Hashable {
        /// The link is refused (`LinkError.queryOrFragmentNotAllowed`).
        case refused
        /// They are dropped: the link opens its path alone, and nothing of them reaches the page.
        case ignored
    }

    /// Creates a grammar for the app named `appName`; `scheme` is lowercased.
    public init(
        scheme: String, appName: String, patterns: [LinkPattern], maximumLength: Int = 2_048,
        queryAndFragment: QueryAndFragment = .refused
    ) {
        self.scheme = scheme.lowercased()
        self.appName = appName
        self.patterns = patterns
        self.maximumLength = maximumLength
        self.queryAndFragment = queryAndFragment
    }
}

/// One accepted path: a sequence of literal segments and identifier segments, with one trailing slash
/// tolerated.
public struct LinkPattern: Sendable, Hashable {
    /// One path segment of a pattern.
    public enum Segment: Sendable, Hashable {
        /// A segment that must equal this text exactly (case-sensitive, as a web router matches it).
        case literal(String)
        /// A segment captured under this name. After percent-decoding it must be non-empty and hold none of
        /// `?`, `#`, `/`, `.`, `%` or a control character (U+0000–U+001F, U+007F), so an id can never
        /// change the path, add a query, climb with `..` or smuggle an escape the page decodes again.
        case identifier(String)
    }

    /// A name for the route, such as `conversation`, reported with the parsed link.
    public let name: String
    /// The segments after the leading `/`.
    public let segments: [Segment]

    /// Creates a pattern.
    public init(name: String, segments: [Segment]) {
        self.name = name
        self.segments = segments
    }
}
