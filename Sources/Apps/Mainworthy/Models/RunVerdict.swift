import Foundation

/// The server's verdict on a run: its value and its sentence (M-RUN-1).
public struct RunVerdict: Sendable, Hashable, Codable {
    /// `passing`, `failing`, `blocked` or `pending`.
    public var value: String
    /// The sentence shown.
    public var sentence: String

    /// Creates a verdict.
    public init(value: String, sentence: String) {
        self.value = value
        self.sentence = sentence
    }
}
