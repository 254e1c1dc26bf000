import CompanionBridge
import CompanionCore
import Foundation

/// The interim schedule sync with PrompTugal's website, until it calls the bridge itself.
///
/// Rules (P-BRIDGE-8..12, P-OPEN-9, issue 38 item 1): one script (`syncScript`) reads
/// `localStorage['nr.schedule.v1']` in the page's world, merges the app's picks into it and writes it back, then
/// dispatches the `nr:schedule` event, all in one evaluation, so nothing the page does can fall between the read
/// and the write. The write keeps every member and entry the app does not own, drops a page pick only for a later
/// app removal, and never re-adds a pick the page removed after the app's last write. The app then merges the value
/// read (a missing value, `null`, is an empty document). Data goes into the script only as a JSON string literal,
/// so ids holding quotes, backslashes, `</script>`, U+2028 or U+2029 round-trip intact. A malformed stored value is
/// reported and nothing is written back until the page stores a valid one, so data the website may still
/// understand is not destroyed. Sync runs only on allowed origins: the caller checks the page's URL first, and the
/// script checks `location.origin` itself when it runs (P-BRIDGE-11), because the page may have navigated
/// elsewhere since. On a page of any other origin it reads and writes nothing and throws, so the app sees a failed
/// evaluation, never an empty value.
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

    /// The localStorage key where the app keeps, for each page origin, the picks the page held after the app's
    /// last write (`{id: milliseconds}`): how a later sync tells a pick the page removed from one it never had.
    public static let seenKey = "pt.schedule.seen.v1"

    /// The one script of a sync (item 1 of issue 38): on a page of one of `origins` only, it reads
    /// `nr.schedule.v1`, merges the app's `picks` into it and writes it back in the same turn of the page's event
    /// loop, so no pick the page makes can fall between the read and the write. It keeps the stored value as the
    /// page wrote it apart from what the app owns:
    /// - every member other than `picks` (removal records included) and every entry the strict reader skips (no
    ///   usable id or time) stay as they are;
    /// - a readable entry is dropped only when the app's removal of its id is later than it (P-SCHED-14);
    /// - an app pick the page does not hold is appended as `{id, at}`, unless the page held that pick at the app's
    ///   last write (`seenKey`) and has removed it since: that pick is not re-added, and the script reports its id
    ///   so the app removes it too. A pick made in the app after that write is newer and is added.
    /// A stored value that is not a `{v:1, picks:[…]}` document is left untouched (P-OPEN-9). The result is JSON
    /// text: `{"stored": <the text read, or null>, "written": <bool>, "removedOnPage": [ids]}`.
    public static func syncScript(
        picks: ScheduleDocument, removals: [String: Date], allowed origins: Set<String>
    ) -> String {
        func milliseconds(_ date: Date) -> JSONValue { .integer(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
        let input = JSONValue.object([
            "picks": .array(
                picks.picks.map { pick in
                    .object([
                        "id": .string(pick.id), "at": .string((try? ScheduleTime.write(pick.at)) ?? ""),
                        "ms": milliseconds(pick.at),
                    ])
                }),
            "removed": .object(removals.mapValues(milliseconds)),
        ])
        return """
            (function () {
              \(originGuard(origins))
              var KEY = \(JavaScriptLiteral.string(storageKey)), SEEN = \(JavaScriptLiteral.string(seenKey));
              var app = JSON.parse(\(JavaScriptLiteral.string(input.jsonString())));
              var has = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };
              var slug = function (id) {
                if (typeof id !== "string") { return null; }
                if (id !== "" && id.indexOf("/") < 0 && id !== "." && id !== "..") { return id; }
                var page = /(?:^|\\/)events\\/([^\\/]+)\\/index\\.html$/;
                var m = page.exec(id) || page.exec(id.replace(/\\/+$/, "") + "/index.html");
                return m ? m[1] : null;
              };
              var time = function (at) {
                if (typeof at === "number") { return isFinite(at) ? at : null; }
                if (typeof at !== "string") { return null; }
                var m = /^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d)(?:\\.(\\d{1,9}))?(Z|[+-]\\d\\d:\\d\\d)$/.exec(at);
                if (!m) { return null; }
                var ms = Date.parse(m[1] + "." + ((m[2] || "") + "000").slice(0, 3) + m[3]);
                return isFinite(ms) ? ms : null;
              };
              var raw = window.localStorage.getItem(KEY);
              var value = { v: 1, picks: [] };
              if (raw !== null) {
                var parsed;
                try {
                  if (new TextEncoder().encode(raw).length > \(BridgeEnvelopeCodec.maximumBytes)) { throw 0; }
                  parsed = JSON.parse(raw);
                } catch (e) { return JSON.stringify({ stored: raw, written: false, removedOnPage: [] }); }
                if (parsed !== null) {
                  if (typeof parsed !== "object" || Array.isArray(parsed) || parsed.v !== 1 ||
                      !Array.isArray(parsed.picks)) {
                    return JSON.stringify({ stored: raw, written: false, removedOnPage: [] });
                  }
                  value = parsed;
                }
              }
              var seen = {};
              try {
                var s = JSON.parse(window.localStorage.getItem(SEEN));
                if (s && typeof s === "object" && !Array.isArray(s)) { seen = s; }
              } catch (e) { seen = {}; }
              var held = Object.create(null), kept = [], removedOnPage = [];
              value.picks.forEach(function (entry) {
                var id = entry && typeof entry === "object" ? slug(entry.id) : null;
                var ms = id === null ? null : time(entry.at);
                if (ms === null) { kept.push(entry); return; }
                if (has(app.removed, id) && app.removed[id] > ms) { return; }
                held[id] = id in held ? Math.max(held[id], ms) : ms;
                kept.push(entry);
              });
              app.picks.forEach(function (pick) {
                if (pick.id in held) { return; }
                if (has(seen, pick.id) && typeof seen[pick.id] === "number" && pick.ms <= seen[pick.id]) {
                  removedOnPage.push(pick.id);
                  return;
                }
                kept.push({ id: pick.id, at: pick.at });
                held[pick.id] = pick.ms;
              });
              value.picks = kept;
              window.localStorage.setItem(KEY, JSON.stringify(value));
              window.localStorage.setItem(SEEN, JSON.stringify(held));
              window.dispatchEvent(new CustomEvent(\(JavaScriptLiteral.string(eventName))));
              return JSON.stringify({ stored: raw, written: true, removedOnPage: removedOnPage });
            })();
            """
    }

    /// What the sync script read.
    public enum ReadResult: Sendable, Hashable {
        /// A document to merge (`{v:1, picks:[…]}`; an empty one when nothing was stored).
        case document(JSONValue)
        /// The stored value is not a schedule document; do not write back.
        case malformed(String)
    }

    /// Interprets the stored text the sync script read (`nil` or JSON `null` when the key is absent).
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
