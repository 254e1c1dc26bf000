import CompanionCore
import CompanionScreen
import Foundation

/// The words the terminal prints around a screen's value. English by default; an app with languages of its own
/// passes its words (Certain's `--lang`).
struct ScreenWords: Sendable {
    /// Said while nothing is shown yet.
    var loading = "Loading …"
    /// Said before a stale value's reason.
    var stale = "Not up to date"
    /// Said before an offline value's reason.
    var offline = "Offline"
    /// Said when a screen failed without a sentence of its own.
    var failed = "Loading failed"
    /// Said after a failure that ended the sign-in, before the command that signs in again.
    var signIn = "Please sign in again"
    /// "As of STAMP": when the shown copy was fetched and how old it is.
    var asOf: @Sendable (String) -> String = { "As of \($0)" }
}

/// The terminal client's one printer of a screen's state, for people and for `--json`.
///
/// Rules (docs/cli-json.md, "Screens"):
/// - `--json` prints one document: the screen's `ScreenReport` (`screen`, `state`, `fetched_at`, `age_seconds`,
///   `reason`, `sign_in_required`, `value`), with a command's own members beside them where it documents any.
/// - The text prints the value's lines on standard output; a stale or offline value is preceded by one line on
///   standard error saying so, when it was fetched and why; an empty answer prints its empty lines.
/// - The exit code is 0 whenever something is shown (an empty answer included) and 1 when the screen failed;
///   the text of a failure is one sentence on standard error (with how to sign in again when the server ended
///   the sign-in), the JSON of one is still printed.
enum ScreenOutput {
    /// Prints `state` of `screen` and returns the exit code.
    ///
    /// - Parameters:
    ///   - screen: The screen's name in the JSON (`overview`, `states`, …).
    ///   - state: What the screen shows.
    ///   - now: The time ages are measured at (the core's clock).
    ///   - json: Whether `--json` was given.
    ///   - words: The words around the value.
    ///   - signIn: The command that signs in again (`companion certain login <address>`); `nil` when the failure's
    ///     own sentence says how (the watch's "Reopen Omnigent on your iPhone and sign in.").
    ///   - extra: Members printed beside the report's in the JSON (a month's `prev` and `next`); `nil` for none.
    ///   - emptyLines: What the text prints for an empty answer (before the value's own lines).
    ///   - lines: The value's lines of text.
    static func show<Value: Encodable & Sendable & Equatable>(
        screen: String, _ state: ScreenState<Value>, now: Date, json: Bool, words: ScreenWords = ScreenWords(),
        signIn: String?, extra: (any Encodable & Sendable)? = nil, emptyLines: [String] = [],
        lines: (Value) -> [String]
    ) throws -> Int32 {
        let report = ScreenReport(screen: screen, state, now: now)
        if json {
            Terminal.out(try JSONOutput.document(Document(report: report, extra: extra)))
            return report.state == .failed ? 1 : 0
        }
        switch report.state {
        case .loading: Terminal.out(words.loading)
        case .content: break
        case .empty: emptyLines.forEach(Terminal.out)
        case .stale: Terminal.err("\(words.stale) — \(asOf(report, words)): \(report.reason ?? "")")
        case .offline: Terminal.err("\(words.offline) — \(asOf(report, words)): \(report.reason ?? "")")
        case .failed:
            let reason = report.reason ?? words.failed
            guard report.signInRequired, let signIn else { throw CommandFailure(reason) }
            throw CommandFailure("\(reason) \(words.signIn): `\(signIn)`.")
        }
        if let value = report.value { lines(value).forEach(Terminal.out) }
        return 0
    }

    /// One of the screens a command prints together (`promptugal team`: one per file read).
    struct Listed<Value: Encodable & Sendable & Equatable> {
        /// The screen's name in the JSON (`me`, `newsroom/desks`, …).
        let screen: String
        /// What the screen shows.
        let state: ScreenState<Value>
        /// Members printed beside the report's in the JSON; `nil` for none.
        let extra: (any Encodable & Sendable)?
        /// The screen's line of text.
        let line: String
    }

    /// Prints several screens at once and returns the exit code: `--json` prints one array of their reports (each
    /// with its own members beside), in order; the text prints each screen's line. The exit code is 1 only when
    /// every screen failed (a failed screen among shown ones is a line, not the command's failure).
    static func showEach<Value: Encodable & Sendable & Equatable>(
        _ screens: [Listed<Value>], now: Date, json: Bool
    ) throws -> Int32 {
        if json {
            let reports = screens.map { listed in
                Document(report: ScreenReport(screen: listed.screen, listed.state, now: now), extra: listed.extra)
            }
            Terminal.out(try JSONOutput.document(reports))
        } else {
            for screen in screens { Terminal.out(screen.line) }
        }
        return !screens.isEmpty && screens.allSatisfy { $0.state.kind == .failed } ? 1 : 0
    }

    /// "As of 2026-11-30 15:39 UTC (8 s)": when the shown copy was fetched, and how old it is.
    static func asOf<Value>(_ report: ScreenReport<Value>, _ words: ScreenWords) -> String {
        let stamp =
            report.fetchedAt?.formatted(
                Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().dateSeparator(.dash).time(
                    includingFractionalSeconds: false
                )
                .timeSeparator(.colon).dateTimeSeparator(.space)) ?? "-"
        return words.asOf("\(stamp) UTC (\(ageText(report.age ?? 0)))")
    }

    /// An age in the largest unit that keeps it readable: `8 s`, `5 min`, `3 h`, `2 d`.
    static func ageText(_ age: TimeInterval) -> String {
        let seconds = Int(age)
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7_200 { return "\(seconds / 60) min" }
        if seconds < 172_800 { return "\(seconds / 3_600) h" }
        return "\(seconds / 86_400) d"
    }

    /// The report with a command's own members beside its keys.
    private struct Document<Value: Encodable & Sendable & Equatable>: Encodable {
        let report: ScreenReport<Value>
        let extra: (any Encodable & Sendable)?

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            try extra?.encode(to: encoder)
        }
    }
}
