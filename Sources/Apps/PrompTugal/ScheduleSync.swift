import CompanionBridge
import CompanionCore
import Foundation

/// The interim schedule sync with PrompTugal's website, until it calls the bridge itself.
///
/// Rules (P-BRIDGE-8..12, P-OPEN-9): the app reads `localStorage['nr.schedule.v1']` with `evaluateJavaScript`
/// in the page's world and merges it; a missing value (`null`) is an empty document; after a merge or a local
/// change it writes the store's document as a JSON string to that key, then dispatches the `nr:schedule`
/// event. The document goes into the script only as a JSON string literal, so ids holding quotes,
/// backslashes, `</script>`, U+2028 or U+2029 round-trip intact. A malformed stored value is reported and
/// nothing is written back until the page stores a valid one, so data the website may still understand is
/// not destroyed. Sync runs only on allowed origins: the caller checks the page's URL first, and every script
/// checks `location.origin` itself when it runs (P-BRIDGE-11), because the page may have navigated elsewhere
/// between the check and the script, or between two scripts. A script on a page of any other origin reads and
/// writes nothing and throws, so the app sees a failed evaluation, never an empty value.
public enum ScheduleSync {
    /// The localStorage key.
    public static let storageKey = "nr.schedule.v1"
    /// The event dispatched after a write.
    public static let eventName = "nr:schedule"

    /// The error message a script throws on a page whose origin is not in `allowed`.
    public static let refusal = "pt: this page's origin is not allowed"

    /// The guard every script starts with: it throws unless the page's `location.origin` is one of `origins`.
    public static func originGuard(_ origins: Set<String>) -> String {
        let list = JavaScriptLiteral.literal(.array(origins.sorted().map(JSONValue.string)))
        return
            "if (\(list).indexOf(window.location.origin) < 0) { throw new Error(\(JavaScriptLiteral.string(refusal))); }"
    }

    /// The script whose result is the stored text (a string) or `null`, on a page of one of `origins` only.
    public static func readScript(allowed origins: Set<String>) -> String {
        """
        (function () {
          \(originGuard(origins))
          return window.localStorage.getItem(\(JavaScriptLiteral.string(storageKey)));
        })();
        """
    }

    /// The script that stores `document` and announces it, on a page of one of `origins` only.
    public static func writeScript(document: JSONValue, allowed origins: Set<String>) -> String {
        let text = JavaScriptLiteral.string(document.jsonString())
        return """
            (function () {
              \(originGuard(origins))
              window.localStorage.setItem(\(JavaScriptLiteral.string(storageKey)), \(text));
              window.dispatchEvent(new CustomEvent(\(JavaScriptLiteral.string(eventName))));
              return null;
            })();
            """
    }

    /// What the read script returned.
    public enum ReadResult: Sendable, Hashable {
        /// A document to merge (`{v:1, picks:[…]}`; an empty one when nothing was stored).
        case document(JSONValue)
        /// The stored value is not a schedule document; do not write back.
        case malformed(String)
    }

    /// Interprets the read script's result (`nil` or JSON `null` when the key is absent).
    public static func interpret(_ stored: String?) -> ReadResult {
        guard let stored else { return .document(emptyDocument) }
        guard stored.utf8.count <= BridgeEnvelopeCodec.maximumBytes, let value = JSONValue(data: Data(stored.utf8))
        else { return .malformed("The stored schedule is not JSON.") }
        if value == .null { return .document(emptyDocument) }
        guard value["v"]?.intValue == 1, value["picks"]?.arrayValue != nil else {
            return .malformed("The stored schedule is not a {v:1, picks:[…]} document.")
        }
        return .document(value)
    }

    /// `{"v": 1, "picks": []}`.
    public static let emptyDocument: JSONValue = .object(["v": .integer(1), "picks": .array([])])
}
