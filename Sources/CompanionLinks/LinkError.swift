import CompanionCore

/// Why a deep link was refused. A refused link causes no navigation, no state change and no network request.
public enum LinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The link is empty or longer than the grammar allows.
    case empty
    /// The link is longer than the grammar's maximum (carries the maximum).
    case tooLong(maximum: Int)
    /// The scheme is not the app's (carries the scheme as given, clipped).
    case wrongScheme(String)
    /// There is no `//host` after the scheme, such as `omnigent:c/x` or `omnigent:///c/x`.
    case missingHost
    /// The host or port could not be read (carries the address error).
    case invalidServer(ServerAddressError)
    /// The link carries `user@` or `user:password@`; credentials never travel in a link.
    case userInfoNotAllowed
    /// The link carries a `?query` or `#fragment`, which no route accepts.
    case queryOrFragmentNotAllowed
    /// The path matches none of the grammar's patterns.
    case unsupportedPath
    /// An identifier is empty after decoding.
    case emptyIdentifier
    /// An identifier holds a `%` that does not start a two-digit hex escape, or decodes to invalid UTF-8.
    case malformedEscape
    /// An identifier holds a raw character a URL must percent-encode (a space, non-ASCII, `"`, `<`).
    case unencodedCharacter
    /// An identifier holds a forbidden character after decoding (`?`, `#`, `/`, `.`, `%` or a control).
    case forbiddenCharacter

    /// A sentence a person can act on; it never repeats the whole link.
    public var description: String {
        switch self {
        case .empty:
            return "The link is empty."
        case .tooLong(let maximum):
            return "The link is longer than \(maximum) characters, so it was not opened."
        case .wrongScheme(let scheme):
            return "Links starting with \"\(scheme):\" are not handled by this app."
        case .missingHost:
            return "The link does not name a server. It must look like scheme://host/…."
        case .invalidServer(let error):
            return "The link names a server that cannot be used: \(error.description)"
        case .userInfoNotAllowed:
            return "The link contains a user name or password, so it was not opened."
        case .queryOrFragmentNotAllowed:
            return "The link has a query (?…) or fragment (#…), which this app does not accept."
        case .unsupportedPath:
            return "The link points to a page this app cannot open."
        case .emptyIdentifier:
            return "The link is missing the id of what it should open."
        case .malformedEscape:
            return "The link contains a broken %-escape, so it was not opened."
        case .unencodedCharacter:
            return "The link contains a character that must be percent-encoded, so it was not opened."
        case .forbiddenCharacter:
            return "The id in the link contains a character that is not allowed (?, #, /, ., % or a control character)."
        }
    }
}
