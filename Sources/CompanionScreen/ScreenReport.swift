import Foundation

/// A screen's state as plain data: which screen, what state, when its value was fetched and how old it is, why
/// it is not live, and the value. The terminal client prints it (`--json`, documented in docs/cli-json.md); an
/// app can log or share it.
public struct ScreenReport<Value: Encodable & Sendable & Equatable>: Encodable, Sendable {
    /// The screen's name (`overview`, `budget`, …).
    public let screen: String
    /// The state's kind.
    public let state: ScreenKind
    /// When the shown value was fetched (for stale and offline: `now` minus its age).
    public let fetchedAt: Date?
    /// How old the shown value is, in seconds.
    public let age: TimeInterval?
    /// Why the value is not live (the server's sentence where it sent one).
    public let reason: String?
    /// Whether the server refused the credential.
    public let signInRequired: Bool
    /// The value shown, if any.
    public let value: Value?

    /// The report of `state` on `screen`, with ages measured at `now`.
    public init(screen: String, _ state: ScreenState<Value>, now: Date) {
        self.screen = screen
        self.state = state.kind
        self.age = state.age(at: now)
        self.fetchedAt = state.fetchedAt ?? state.age.map { now.addingTimeInterval(-$0) }
        self.reason = state.problem
        self.signInRequired = state.signInRequired
        self.value = state.value
    }

    enum CodingKeys: String, CodingKey {
        case screen, state, reason, value
        case fetchedAt = "fetched_at"
        case ageSeconds = "age_seconds"
        case signInRequired = "sign_in_required"
    }

    /// Encodes every key, `null` where there is nothing; the age in whole seconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(screen, forKey: .screen)
        try container.encode(state, forKey: .state)
        try container.encode(fetchedAt, forKey: .fetchedAt)
        try container.encode(age.map { Int($0) }, forKey: .ageSeconds)
        try container.encode(reason, forKey: .reason)
        try container.encode(signInRequired, forKey: .signInRequired)
        try container.encode(value, forKey: .value)
    }
}
