import CompanionLinks
import Foundation

/// Where the managed app configuration comes from. It is read again each time the app becomes active
/// (O-MDM-15), so an administrator's change, or its withdrawal (O-MDM-14), shows up without a relaunch.
public protocol ManagedConfigurationSource: Sendable {
    /// The two channels as they stand now: the declarative one (`AppConfig`) and the classic one.
    func read() -> (declarative: ManagedValue?, classic: ManagedValue?)
}

/// The live source: the classic channel is the `com.apple.configuration.managed` dictionary in the app's
/// defaults, read afresh at every call (never cached); the declarative channel comes from the closure the
/// platform glue gives (the managed-app framework on iOS 18.4 and later; `nil` elsewhere).
public struct DefaultsManagedConfigurationSource: ManagedConfigurationSource {
    /// The defaults key of the classic channel.
    public static let classicKey = "com.apple.configuration.managed"

    /// The defaults suite to read (`nil`: the app's standard defaults).
    public let suiteName: String?
    private let declarative: @Sendable () -> ManagedValue?

    /// Creates the source on `suiteName`'s defaults, with the declarative channel from `declarative`.
    public init(suiteName: String? = nil, declarative: @escaping @Sendable () -> ManagedValue? = { nil }) {
        self.suiteName = suiteName
        self.declarative = declarative
    }

    /// Reads both channels now.
    public func read() -> (declarative: ManagedValue?, classic: ManagedValue?) {
        let defaults = suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
        let classic = defaults.object(forKey: Self.classicKey).map(ManagedValue.init(foundation:))
        return (declarative(), classic)
    }
}
