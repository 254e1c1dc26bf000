import CompanionApp
import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation

/// How PrompTugal words a team-data failure: in the product's name, with the site's own message word for word,
/// and never a data source's address (P-TEAM-8).
enum TeamSentence {
    /// Why a request failed, without the address: `the site answered 503: Injected fault.`
    static func reason(_ error: HTTPError) -> String {
        if let status = error.statusCode {
            if let message = error.envelope?.summary { return "the site answered \(status): \(message)" }
            return "the site answered \(status)"
        }
        if case .undecodable = error { return "what it sent could not be read" }
        return "the connection failed"
    }

    /// `update`'s state with PrompTugal's sentence for the part called `name`; the state's kind is the kit's.
    static func worded<Value>(_ update: ScreenUpdate<Value>, name: String, offline: Bool) -> ScreenState<Value> {
        switch update.state {
        case .stale(let value, let age, nil) where offline:
            return .offline(value, age: age, reason: "PrompTugal is showing the copy saved on this device.")
        case .stale(let value, let age, let problem?):
            return .stale(value, age: age, problem: refresh(update, name: name, fallback: problem))
        case .offline(let value, let age, let reason):
            let sentence =
                offline
                ? "PrompTugal is showing the copy saved on this device." : refresh(update, name: name, fallback: reason)
            return .offline(value, age: age, reason: sentence)
        case .failed(let reason, let signIn):
            return .failed(
                reason: nothing(update, name: name, offline: offline, fallback: reason), signInRequired: signIn)
        default:
            return update.state
        }
    }

    /// A refresh that failed while a saved copy is shown.
    static func refresh<Value>(_ update: ScreenUpdate<Value>, name: String, fallback: String) -> String {
        if case .undecodable = update.cause {
            return "PrompTugal could not read the \(name) it received; the last good copy is kept."
        }
        if case .store(let error) = update.cause {
            return "PrompTugal could not use its saved data: \(error.description)"
        }
        guard let failure = update.failure else { return fallback }
        return "PrompTugal could not refresh \(name): \(reason(failure))."
    }

    /// Nothing to show.
    static func nothing<Value>(
        _ update: ScreenUpdate<Value>, name: String, offline: Bool, fallback: String
    ) -> String {
        switch update.cause {
        case .notCached:
            return "PrompTugal has no saved copy of \(name) yet; connect once to load it."
        case .undecodable:
            return "PrompTugal could not read the \(name) it received and has no saved copy."
        case .store(let error):
            return "PrompTugal could not use its saved data: \(error.description)"
        case .http(let error), .offlineWithoutCache(_, let error):
            return "PrompTugal could not load \(name) and has no saved copy: \(reason(error))."
        case nil:
            if let failure = update.failure {
                return "PrompTugal could not load \(name) and has no saved copy: \(reason(failure))."
            }
            return offline ? "PrompTugal has no saved copy of \(name) yet; connect once to load it." : fallback
        }
    }

    /// `42 s`, `3 min`, `2 h`, `1 d`.
    static func age(_ age: TimeInterval) -> String {
        let seconds = Int(age.rounded())
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3_600 { return "\(seconds / 60) min" }
        if seconds < 86_400 { return "\(seconds / 3_600) h" }
        return "\(seconds / 86_400) d"
    }
}
