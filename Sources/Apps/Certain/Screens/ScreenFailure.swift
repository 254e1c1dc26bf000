import CompanionHTTP
import CompanionScreen
import Foundation

/// How a Certain screen moves when a load fails, in one place for every screen (C-ERR-1):
/// content already shown stays, with the reason added (offline for connectivity, stale otherwise); with
/// nothing shown, the last stored copy is shown with its age; with nothing stored, the screen fails. A refusal
/// that ends the sign-in (a revoked token's 401) always fails with sign-in required: the offline data is gone
/// (C-OFF-5).
enum ScreenFailure {
    /// The next state of a screen showing `state` after `error`, with `stored` as the offline fallback.
    static func state<Value>(
        after error: any Error, showing state: ScreenState<Value>, stored: Stored<Value>?, now: Date, texts: Texts
    ) -> ScreenState<Value> {
        let http = error as? HTTPError
        let reason = Self.reason(error, texts: texts)
        if let http, CertainConnection.endsSignIn(http) { return .failed(reason: reason, signInRequired: true) }
        let shown: (Value, Date)?
        switch state {
        case .content(let value, let fetchedAt): shown = (value, fetchedAt)
        case .stale(let value, let age, _), .offline(let value, let age, _):
            shown = (value, now.addingTimeInterval(-age))
        case .loading, .empty, .failed: shown = stored.map { ($0.value, $0.fetchedAt) }
        }
        guard let (value, fetchedAt) = shown else { return .failed(reason: reason, signInRequired: false) }
        let age = max(0, now.timeIntervalSince(fetchedAt))
        if http?.isConnectivity == true { return .offline(value, age: age, reason: reason) }
        return .stale(value, age: age, problem: reason)
    }

    /// The sentence for `error`: the server's own `detail` word for word (C-ERR-2), a 422 list reduced to
    /// field and message, otherwise the error's description.
    static func reason(_ error: any Error, texts: Texts) -> String {
        guard let http = error as? HTTPError else { return String(describing: error) }
        if let envelope = http.envelope {
            if !envelope.fieldProblems.isEmpty {
                return envelope.fieldProblems.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
            }
            if let message = envelope.message { return message }
        }
        return http.description
    }
}
