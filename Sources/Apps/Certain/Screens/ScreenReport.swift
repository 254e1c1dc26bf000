import CompanionScreen
import Foundation

/// A screen's state as plain data: which screen, what state, when its value was fetched and how old it is, why
/// it is not live, and the value. The terminal client prints it (`companion certain … --json`, documented in
/// docs/cli-json.md); an app can log or share it.
public struct ScreenReport<Value: Encodable & Sendable & Equatable>: Encodable, Sendable {
    /// The state's kind.
    public enum Kind: String, Encodable, Sendable {
        /// Nothing yet.
        case loading
        /// Just fetched.
        case content
        /// An older copy; the server answered with an error (or is being asked again).
        case stale
        /// The last stored copy; the server could not be reached.
        case offline
        /// Nothing to show.
        case failed
    }

    /// The screen's name (`overview`, `budget`, …).
    public let screen: String
    /// The state's kind.
    public let state: Kind
    /// When the shown value was fetched (for stale and offline: now minus its age).
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
    public init(screen: String, _ state: ScreenState<Value>, now: Date = Date()) {
        self.screen = screen
        var fetchedAt: Date?
        var age: TimeInterval?
        var reason: String?
        var signIn = false
        switch state {
        case .loading: self.state = .loading
        case .content(_, let at):
            self.state = .content
            (fetchedAt, age) = (at, 0)
        case .stale(_, let seconds, let problem):
            self.state = .stale
            (fetchedAt, age, reason) = (now.addingTimeInterval(-seconds), seconds, problem)
        case .offline(_, let seconds, let why):
            self.state = .offline
            (fetchedAt, age, reason) = (now.addingTimeInterval(-seconds), seconds, why)
        case .failed(let why, let required):
            self.state = .failed
            (reason, signIn) = (why, required)
        }
        self.fetchedAt = fetchedAt
        self.age = age
        self.reason = reason
        self.signInRequired = signIn
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
