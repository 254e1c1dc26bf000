import Foundation

/// `GET P/changes/{id}/gate`.
public struct Gate: Sendable, Hashable, Codable {
    /// The head this gate describes.
    public var head: String
    /// The verdict.
    public var verdict: GateVerdict
    /// The server's reason, word for word.
    public var reason: String
    /// The open questions the verdict waits on.
    public var questions: [GateQuestion]
}

/// An open question the gate is waiting on.
public struct GateQuestion: Sendable, Hashable, Codable, Identifiable {
    /// The question's id.
    public var id: String
    /// Its kind (`failure`, …).
    public var kind: String
    /// Its title.
    public var title: String
}
