import Foundation

/// The gate's verdict on a change's head. An unknown value from a newer server is kept as it came.
public struct GateVerdict: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The wire value.
    public var rawValue: String

    /// Wraps a wire value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Nothing stops the change.
    public static let passing = GateVerdict(rawValue: "passing")
    /// At least one failing test is unexplained.
    public static let failing = GateVerdict(rawValue: "failing")
    /// The failures are explained, and one is a defect in the product.
    public static let blocked = GateVerdict(rawValue: "blocked")
    /// No pipeline report names the head yet.
    public static let pending = GateVerdict(rawValue: "pending")

    /// Decodes the wire string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the wire string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The wire value.
    public var description: String { rawValue }
}

/// The verdict a list row carries.
public struct GateMark: Sendable, Hashable, Codable {
    /// The verdict.
    public var verdict: GateVerdict

    /// Creates a mark.
    public init(verdict: GateVerdict) { self.verdict = verdict }
}
