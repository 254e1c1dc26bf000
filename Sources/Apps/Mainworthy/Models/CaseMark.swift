import Foundation

/// The mark at the end of a case's row (M-CASE-4).
public enum CaseMark: String, Sendable, Hashable {
    /// A failure or an error.
    case cross
    /// Blocked.
    case triangle
    /// A pass.
    case tick
    /// No result on the current version.
    case none

    /// The mark of `worst`: fail or error → cross, blocked → triangle, pass → tick, nothing → none.
    public init(_ worst: WorstResult?) {
        switch worst {
        case .fail, .error: self = .cross
        case .blocked: self = .triangle
        case .pass: self = .tick
        case nil: self = .none
        }
    }
}

/// A case's worst result on its current version, as the server computes it (O-13).
public enum WorstResult: String, Sendable, Hashable, Codable {
    /// A failure.
    case fail
    /// An error from the pipeline.
    case error
    /// Blocked.
    case blocked
    /// A pass.
    case pass
}
